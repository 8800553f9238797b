"""AcpSession: an external ACP agent behind planview's plan mode, review, ledger and hash pin.

It is a `Session` whose turn is run by the agent instead of planview's own model loop, so mode,
approval, todos, persistence and the execute-mode pin are the same code (and the same events) as
planview's own agent. What is new is the agent's side of each rule, layered because a client
cannot enforce read-only by itself:

1. put the agent in its own read-only mode and verify it took (refuse plan mode if it has none);
2. pass the agent's hard limits (profile: env, session/new `_meta`);
3. refuse `fs/write_text_file` (but the plan file) and `terminal/create`, and answer mutating
   permission requests with the agent's reject option, through `planview.gate.decide`;
4. watch the project while it plans: a write outside `.planview/` cancels the turn and names it;
5. route its exit-plan request (or a plan file it wrote) to planview's review; approval seals and
   records first, then answers with the agent's allow option.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from planview.agents import permissions as perm
from planview.agents.breach import BreachWatcher, diff_of
from planview.agents.client import PlanviewClient
from planview.agents.connection import AgentConnection
from planview.agents.errors import AgentError, PlanModeUnavailableError
from planview.agents.modes import AgentModes, ModeTarget, current_from_update
from planview.agents.profiles import AgentProfile, agent_spec
from planview.agents.translate import Translator, content_text, todos_from_plan
from planview.errors import PlanviewError
from planview.home import HomeLayout
from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved, Refine
from planview.plan.steps import extract_steps
from planview.session import lifecycle
from planview.session.conversation import AssistantMessage, UserMessage
from planview.session.events import ErrorEvent, ToolFinished, ToolStarted
from planview.session.session import Session

MODE_CONFIRM_TIMEOUT = 1.0  # how long a set_mode waits for the agent's mode update
CANCEL_GRACE = 5.0  # after session/cancel, how long the agent has to end the turn itself
PLAN_READ_CAP = 1_000_000  # bytes of a plan file an agent names outside the project

CANCELLED = RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


def _selected(option_id: str) -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option_id))


def plan_preamble(plans_rel: str, plan_rel: str | None) -> str:
    where = f" (revise {plan_rel})" if plan_rel else ""
    return (
        "[planview plan mode] You are planning: the project is read-only for you until the user approves "
        "a plan. Explore and read; do not edit files or run commands that change anything (planview "
        "refuses them and cancels the turn if a file changes).\n"
        f"When the plan is ready, present it for approval with your exit-plan-mode tool, or write it as "
        f"Markdown to {plans_rel}/<short-name>.md{where} — the one file you may write — and stop.\n"
        f"Outline:\n{lifecycle.OUTLINE}\n\n"
    )


class AgentProvider:
    """Stands where Session expects a model provider: it names the agent (label, resume snapshot)."""

    def __init__(self, profile: AgentProfile, spec: str) -> None:
        self.profile = profile
        self.spec = spec
        self.label = profile.label

    def snapshot(self) -> dict[str, Any]:
        return {"kind": "acp", "agent": self.spec}

    async def stream(self, request: Any) -> Any:  # pragma: no cover - the agent runs its own loop
        raise AgentError("an ACP agent runs its own model loop; planview does not stream for it")


class AcpSession(Session):
    def __init__(self, *, profile: AgentProfile, spec: str | None = None, **kwargs: Any) -> None:
        super().__init__(provider=AgentProvider(profile, spec or profile.name), **kwargs)
        self.profile = profile
        self.stderr_path = HomeLayout(self.home).agent_log(self.id)
        self._session_ids: set[str] = set()
        self._agent = AgentConnection(
            profile, self.project_root, self.stderr_path, PlanviewClient(self, self._session_ids)
        )
        self._agent_session: str | None = None
        self._limited = False  # the agent session was opened with the plan-only hard limits
        self._fresh = True  # the agent session has seen no prompt yet
        self.agent_modes = AgentModes(None, ())
        self.agent_mode: str | None = None
        self._mode_event = asyncio.Event()
        self._translator = Translator(self._emit, self.project_root)
        self._waiting: set[asyncio.Task[Any]] = set()  # permission answers awaiting the user
        self._cancel_requested = False
        self._cancel_why: str | None = None  # "user", "breach", "review", "handoff", "replan"
        self._hard_cancel: asyncio.TimerHandle | None = None
        self._hard_stopped = False
        self._watcher: BreachWatcher | None = None
        self._breach: tuple[str, ...] = ()
        self._breach_report: asyncio.Task[None] | None = None
        self._plan_files: list[Path] = []  # plans the agent wrote this turn (fs or its own tools)
        self._reviewed = False  # this turn's plan went through a review
        self._stop_message: str | None = None  # headless review hand-off
        self._follow_up: str | None = None  # the next prompt of this turn (feedback, carry out)
        self._fresh_session = False  # open a new agent session (without the limits) for the follow-up
        self._writes = 0
        notice = self.resume_notice
        if notice is not None and notice.kind == "approved" and self.approval is not None and self.plan_path:
            # restore() words it for planview's own tools (set_plan_steps); the agent gets the plan (_framed)
            self.resume_notice = replace(
                notice,
                for_model=f"The plan {self.relative(self.plan_path)} was approved by {self.approval.approver} "
                f"({self.approval.artifact}); follow its steps in order.",
            )

    # ------------------------------------------------------------------ connection

    @property
    def init_response(self) -> Any:
        return self._agent.init_response

    async def connect(self) -> None:
        """Start the agent and initialize (once; later calls return at once)."""
        if not self._agent.open:
            await self._agent.start()

    async def _open_agent_session(self, limited: bool) -> None:
        response = await self._agent.new_session(dict(self.profile.session_meta) if limited else {})
        self._agent_session = response.session_id
        self._session_ids.add(response.session_id)
        self._limited, self._fresh = limited, True
        self.agent_modes = AgentModes.from_response(response.modes, response.config_options)
        self.agent_mode = self.agent_modes.current

    async def _ensure_agent_session(self) -> None:
        """An agent session whose hard limits fit the mode (limits are fixed when a session opens)."""
        wants_limits = self.mode == "plan" and bool(self.profile.session_meta)
        if self._agent_session is None or self._fresh_session or wants_limits != self._limited:
            self._fresh_session = False
            await self._open_agent_session(wants_limits)

    async def start_servers(self) -> None:
        """planview's MCP servers serve planview's own agent; an ACP agent brings its own."""

    async def close(self) -> None:
        """Stop the MCP servers, the watcher and the agent process."""
        await super().close()
        if self._watcher is not None:
            await self._watcher.stop()
        await self._agent.close()

    # ------------------------------------------------------------------ the agent's mode

    async def _set_agent_mode(self, target: ModeTarget) -> None:
        """Switch the agent and verify: the config option's answer, or a mode update that names it."""
        if self.agent_mode == target.value:
            return
        assert self._agent_session is not None
        self._mode_event.clear()
        if target.via == "config":
            response = await self._agent.set_config_option(
                self._agent_session, target.config_id, target.value
            )
            reported = AgentModes.from_response(None, getattr(response, "config_options", None)).current
            if reported is not None:
                self.agent_mode = reported
        else:
            await self._agent.set_mode(self._agent_session, target.value)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._mode_event.wait(), MODE_CONFIRM_TIMEOUT)
            if not self._mode_event.is_set():
                self.agent_mode = target.value  # answered without an update: its answer is the word we have
        if self.agent_mode != target.value:
            raise PlanModeUnavailableError(
                f"{self.profile.short_name} was asked for its {target.name!r} mode but reports {self.agent_mode!r}; "
                "planview does not start plan mode on an agent whose mode it cannot confirm"
            )

    async def _agent_plan_mode(self) -> None:
        target = self.agent_modes.find(self.profile.plan_modes)
        if target is None:
            offered = self.agent_modes.listing() or "no modes at all"
            raise PlanModeUnavailableError(
                f"{self.profile.short_name} has no plan or read-only mode (it offers {offered}), so planview cannot "
                "keep it read-only while it plans; run without --plan, or use an agent with a plan mode "
                "(gemini, claude, codex, opencode)"
            )
        await self._set_agent_mode(target)

    def _leave_plan_mode_if_stuck(self) -> None:
        """After an allowed exit-plan request most agents switch mode themselves; one that stays in its
        read-only mode is moved out of it, so it can carry out the plan it was just allowed to."""

        async def move() -> None:
            with contextlib.suppress(PlanviewError):
                await self._agent_execute_mode()

        if self._agent.open and self.mode == "execute":
            task = asyncio.get_running_loop().create_task(move())
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def _agent_execute_mode(self) -> None:
        """Out of the agent's read-only mode when planview is executing (after approval or /plan off)."""
        plan_ids = {t.value for t in (self.agent_modes.find([m]) for m in self.profile.plan_modes) if t}
        target = self.agent_modes.find(self.profile.execute_modes)
        if self.agent_mode in plan_ids and target is not None:
            await self._set_agent_mode(target)

    # ------------------------------------------------------------------ the turn

    async def _turn(self, text: str) -> None:
        self._reset_cancel()
        self._follow_up, self._stop_message = None, None
        try:
            await self.connect()
            self._append(UserMessage(text))
            prompt: str | None = text
            while prompt is not None:
                reason = await self._one_prompt(prompt)
                if self._breach or self._stop_message is not None:
                    break
                if reason == "cancelled" and self._cancel_why != "handoff":
                    break
                self._reset_cancel()
                prompt, self._follow_up = self._follow_up, None
            await self._finish()
        except asyncio.CancelledError:
            self._translator.close_open(cancelled=True)
            self._keep_text(" [cancelled]")
            if (
                self._hard_stopped
            ):  # the agent ignored session/cancel: it is stopped, the next turn restarts it
                await self.close()
            if self._breach:
                if self._breach_report is not None:
                    await self._breach_report
            else:
                self._end("cancelled")
        except PlanviewError as exc:
            self._translator.close_open(cancelled=True)
            self._fail(str(exc))
        except Exception as exc:  # an agent or SDK bug must end the turn with a message, not kill the UI
            self._translator.close_open(cancelled=True)
            self._fail(f"the turn failed unexpectedly ({type(exc).__name__}: {exc}); send a message to retry")
        finally:
            self._reset_cancel()
            self._breach, self._breach_report, self._hard_stopped = (), None, False
            if self._watcher is not None:
                await self._watcher.stop()

    async def _one_prompt(self, text: str) -> str:
        await self._ensure_agent_session()
        if self.mode == "plan":
            await self._agent_plan_mode()
            await self._watch()
        else:
            await self._agent_execute_mode()
        self._plan_files, self._reviewed, self._breach = [], False, ()
        message = self._framed(text)
        self._fresh = False
        assert self._agent_session is not None
        response = await self._agent.prompt(self._agent_session, message)
        reason = "cancelled" if self._cancel_requested else response.stop_reason
        if self._watcher is not None:
            await self._watcher.stop()
        self._translator.close_open(cancelled=reason == "cancelled")
        self._keep_text()
        if reason != "cancelled" and self.mode == "plan" and not self._reviewed and self._plan_files:
            await self._review_written_plan()
        return reason

    def _framed(self, text: str) -> str:
        """What the agent is sent: planview's plan-mode rules while planning; the plan on a fresh session."""
        rel = self.relative(self.plan_path) if self.plan_path else None
        if self.mode == "plan":
            return plan_preamble(self.relative(self.store.plans_dir), rel) + text
        if self._fresh and self.approval is not None and self.plan_path is not None:
            try:
                plan = self.store.read(self.plan_path)
            except PlanviewError:
                return text
            return f"The user approved this plan ({rel}); carry it out step by step.\n\n{plan}\n\n{text}"
        return text

    def _keep_text(self, suffix: str = "") -> None:
        text = self._translator.take_text()
        if text:
            self._append(AssistantMessage(text + suffix))

    async def _finish(self) -> None:
        if self._breach:
            if self._breach_report is not None:
                await self._breach_report  # it ends the turn, naming the files
            return
        if self._stop_message is not None:
            message, self._stop_message = self._stop_message, None
            self._end("review", message)
        elif self._cancel_requested:
            self._end("cancelled")
        else:
            self._end("done")

    def cancel(self) -> None:
        """Esc: session/cancel to the agent, `cancelled` to every pending permission; a hard stop if it hangs."""
        if self.busy:
            self._request_cancel("user")

    def _reset_cancel(self) -> None:
        self._cancel_requested, self._cancel_why = False, None
        if self._hard_cancel is not None:
            self._hard_cancel.cancel()
            self._hard_cancel = None

    def _request_cancel(self, why: str) -> None:
        """End the agent's turn. The user and a breach also withdraw every question still waiting for
        an answer; planview's own stops (review hand-off, fresh session) are sent after the answer."""
        if self._cancel_requested:
            return
        self._cancel_requested, self._cancel_why = True, why
        loop = asyncio.get_running_loop()
        if why in ("user", "breach"):
            for task in list(self._waiting):
                task.cancel()
        if self._agent_session is not None:
            self._agent.cancel_soon(self._agent_session)  # after the permission answer that asked for it
        if self._hard_cancel is None:
            self._hard_cancel = loop.call_later(CANCEL_GRACE, self._force_stop)

    def _force_stop(self) -> None:
        self._hard_cancel = None
        if self.busy:
            self._hard_stopped = True
            super().cancel()

    # ------------------------------------------------------------------ breach detection

    async def _watch(self) -> None:
        if self._watcher is None:
            self._watcher = BreachWatcher(
                self.project_root, self.home, self.store.plans_dir, self._on_breach, self._on_plan_file
            )
        await self._watcher.start()

    def _on_plan_file(self, path: Path) -> None:
        if path.is_file() and path not in self._plan_files:
            self._plan_files.append(path)

    def _on_breach(self, paths: tuple[str, ...]) -> None:
        if self.mode != "plan" or self._breach:
            return
        self._breach = paths
        self._request_cancel("breach")
        self._breach_report = asyncio.get_running_loop().create_task(self._report_breach(paths))

    async def _report_breach(self, paths: tuple[str, ...]) -> None:
        diff = await diff_of(self.project_root, paths)
        names = ", ".join(paths)
        message = (
            f"Plan-mode breach: {self.profile.short_name} changed {names} while planning, so planview cancelled the "
            "turn. Nothing was approved; review the change with git diff (and undo it with git checkout or "
            "git restore) before you go on."
        )
        if diff:
            message += f"\n\n{diff}"
        self._breach_report = None
        self._emit(ErrorEvent(message))
        self._end("error", message)

    # ------------------------------------------------------------------ what the agent asks (ClientHandler)

    def on_update(self, update: Any) -> None:
        mode = current_from_update(update)
        if mode is not None:
            self.agent_mode = mode
            self._mode_event.set()
            return
        if getattr(update, "session_update", None) == "plan":
            self._agent_plan(update.entries)
            return
        self._translator.update(update)

    def _agent_plan(self, entries: list[Any]) -> None:
        todos = todos_from_plan(entries)
        if self.approval is None or not self.todos:
            self.set_todos(todos)
            return
        for todo in todos:  # under an approval the plan's Steps stay the list; the agent ticks them
            self.mark_step(todo.text, todo.status)

    async def on_permission(
        self, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        if self._cancel_requested:
            return CANCELLED
        state = self._translator.merge(tool_call)
        self._translator.start(state)
        if self.mode == "plan":
            if perm.is_exit_plan(state.kind, state.title, self.profile.exit_plan_titles):
                return await self._waited(self._exit_plan(state, options))
            decision = self._gate(state)
            if decision.allowed:
                return self._answer(options, perm.ALLOW_KINDS)
            return self._refuse(state, options, self._plan_refusal(decision.reason))
        if perm.is_exit_plan(state.kind, state.title, self.profile.exit_plan_titles):
            return self._answer(options, perm.ALLOW_KINDS)  # already executing: nothing to review
        with contextlib.suppress(PlanviewError):
            await self._agent_execute_mode()  # an agent still in its read-only mode after an approval
        if state.kind in perm.READ_KINDS:  # reading needs no question, as for planview's own agent
            return self._answer(options, perm.ALLOW_KINDS)
        pinned = self.check_pin()
        if pinned is not None:
            return self._refuse(state, options, pinned, replan=True)
        if self.ui is None:
            return self._answer(options, perm.ALLOW_KINDS)  # headless execute mode runs what it asks
        return await self._waited(self._ask_user(state, options))

    async def _waited(self, work: Any) -> RequestPermissionResponse:
        """Await an answer that depends on the user; Esc cancels it and the agent gets `cancelled`."""
        task = asyncio.ensure_future(work)
        self._waiting.add(task)
        try:
            return await task
        except asyncio.CancelledError:
            if self._cancel_requested:
                return CANCELLED
            raise
        finally:
            self._waiting.discard(task)

    def _gate(self, state: Any) -> Any:
        from planview.gate import decide

        call = perm.gate_call(
            state.kind, state.title, state.raw_input, state.locations, self.store.plans_dir, self.project_root
        )
        return decide(call, "plan", self.policy)

    def _plan_refusal(self, reason: str) -> str:
        return f"Refused in plan mode: {reason}" if not reason.lower().startswith("refused") else reason

    def _refuse(
        self, state: Any, options: list[PermissionOption], reason: str, *, replan: bool = False
    ) -> RequestPermissionResponse:
        state.refused = reason
        self._translator.finish(state)
        if replan:
            self._request_cancel("replan")  # the agent was carrying out a plan that no longer holds
        return self._answer(options, perm.REJECT_KINDS)

    def _answer(self, options: list[PermissionOption], kinds: tuple[str, ...]) -> RequestPermissionResponse:
        option = perm.pick_option(options, kinds)
        return _selected(option) if option is not None else CANCELLED

    async def _ask_user(self, state: Any, options: list[PermissionOption]) -> RequestPermissionResponse:
        body = content_text(state.content, None, self.project_root)
        question = f"{self.profile.short_name} asks to run: {self._translator.headline(state)}"
        allowed = await self.ask_confirm("Allow this?", question + (f"\n\n{body}" if body else ""))
        return self._answer(options, perm.ALLOW_KINDS if allowed else perm.REJECT_KINDS)

    # ------------------------------------------------------------------ plans and review

    async def _exit_plan(self, state: Any, options: list[PermissionOption]) -> RequestPermissionResponse:
        text = perm.plan_text(state.raw_input, content_text(state.content, None, self.project_root))
        named = perm.plan_file(state.raw_input, state.title, state.locations)
        if text is None and named is not None:
            text = self._read_named_plan(named)
        if text is None and self.plan_path is not None:
            text = self.store.read(self.plan_path)
        if text is None or not text.strip():
            return self._refuse(
                state, options, "no plan to review: the request carried no plan text and no plan file"
            )
        path = self._save_plan(text)
        decision = await self._review(path)
        if isinstance(decision, Approved):
            self._translator.finish(state)
            if self.profile.session_meta:  # session-wide limits: carry the plan out in a fresh session
                self._fresh_session = True
                self._follow_up = "Carry out the approved plan."
                self._request_cancel("handoff")
            else:
                asyncio.get_running_loop().call_later(MODE_CONFIRM_TIMEOUT, self._leave_plan_mode_if_stuck)
            return self._answer(options, perm.ALLOW_KINDS)
        if self.ui is None:
            state.refused = f"waiting for approval: planview approve {self.relative(path)}"
        else:
            state.refused = "the plan was not approved; still planning"
        self._translator.finish(state)
        return self._answer(options, perm.REJECT_KINDS)

    def _read_named_plan(self, named: str) -> str | None:
        path = Path(named)
        if not path.is_absolute():
            path = self.project_root / path
        try:
            if path.suffix != ".md" or not path.is_file() or path.stat().st_size > PLAN_READ_CAP:
                return None
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def _save_plan(self, text: str) -> Path:
        """The plan text as this session's plan file (the same file again on a revision)."""
        title = _title(text)
        target = (
            self.plan_path
            if self.plan_path is not None and self.plan_path.parent == self.store.plans_dir
            else None
        )
        written = self.store.write(title, text, target)
        self.note_plan_written(written.path, written.bytes)
        return written.path

    async def _review(self, path: Path) -> Any:
        """The one approval flow: review, then (approved) seal, record and pin; feedback goes back to the agent."""
        self._reviewed = True
        text = self.store.read(path)
        rel = self.relative(path)
        if self.ui is None:
            self.request_review_without_ui(path, text)
            self._stop_message = (
                f"No review UI is attached, so the plan cannot be approved here. The plan is saved at {rel}. "
                f"Approve it with `planview approve {rel}` and continue with `planview run --resume {self.id}`."
            )
            self._request_cancel("review")
            return None
        decision = await self.review(path, text)
        if isinstance(decision, Approved):
            current = self.store.read(path)
            if (
                Path(decision.plan).resolve() != path.resolve()
                or canonical_sha256(current) != decision.canonical_sha256
            ):
                self._emit(
                    ErrorEvent(f"{rel} changed while it was shown, so nothing was approved; review it again.")
                )
                return None
            if self._watcher is not None:
                await self._watcher.stop()  # executing from here on: the agent may write
            channel = f"{decision.channel} ({self.profile.label})" if decision.channel else self.profile.label
            self.approve_reviewed(path, replace(decision, channel=channel))  # the one approval flow
            self.seed_steps(extract_steps(current).steps)
            return decision
        if isinstance(decision, Refine):
            self._follow_up = (
                f"The user reviewed the plan {rel} and asked for changes; you are still planning.\n"
                f"Feedback:\n{decision.text.strip()}\nRevise the plan and present it again."
            )
        return decision

    async def _review_written_plan(self) -> None:
        """An agent without an exit-plan request wrote its plan to a file: review it as the turn ends."""
        path = self._plan_files[-1]
        try:
            path = self.store.check_path(path)
        except PlanviewError as exc:
            self._emit(ErrorEvent(f"the agent wrote a plan planview cannot use: {exc}"))
            return
        self.note_plan_written(path, path.stat().st_size)
        decision = await self._review(path)
        if isinstance(decision, Approved):
            await self._agent_execute_mode()
            self._follow_up = f"The user approved the plan {self.relative(path)}. Carry it out step by step."

    # ------------------------------------------------------------------ files and terminals

    def _inside(self, raw: str) -> Path:
        path = Path(raw)
        if not path.is_absolute():
            path = self.project_root / path
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(Path(os.path.realpath(self.project_root))):
            raise RequestError(
                -32000,
                f"{raw} is outside the project ({self.project_root}); planview only serves files inside it",
            )
        return real

    async def on_read(self, path: str, line: int | None, limit: int | None) -> str:
        target = self._inside(path)
        try:
            text = await asyncio.to_thread(target.read_text, encoding="utf-8", errors="replace")
        except OSError as exc:
            raise RequestError(-32002, f"cannot read {path}: {exc.strerror or exc}") from None
        if line is None and limit is None:
            return text
        lines = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        return "".join(lines[start : start + limit] if limit is not None else lines[start:])

    async def on_write(self, path: str, content: str) -> None:
        self._writes += 1
        call_id = f"planview-write-{self._writes}"
        target = self._inside(path)
        rel = self.relative(target)
        if self.mode == "plan":
            if target.suffix == ".md" and perm.in_folder(
                str(target), self.store.plans_dir, self.project_root
            ):
                written = self.store.write(_title(content), content, target)
                self.note_plan_written(written.path, written.bytes)
                if written.path not in self._plan_files:
                    self._plan_files.append(written.path)
                return
            self._write_row(call_id, rel, "refused")
            raise RequestError(
                -32000,
                f"Refused by planview: plan mode is read-only until the user approves a plan, so {rel} was not "
                f"written. The one file you may write is your plan, {self.relative(self.store.plans_dir)}/<name>.md; "
                "present it for approval when it is ready.",
            )
        pinned = self.check_pin()
        if pinned is not None:
            self._write_row(call_id, rel, pinned)
            self._request_cancel("replan")
            raise RequestError(-32000, pinned)
        from planview.atomic import atomic_write

        await asyncio.to_thread(atomic_write, target, content)

    def _write_row(self, call_id: str, rel: str, reason: str) -> None:
        if reason == "refused":
            reason = f"plan mode is read-only: {rel} was not written (only the plan file may be)"
        self._emit(ToolStarted(call_id, "write", {"path": rel}, f"write {rel}"))
        self._emit(ToolFinished(call_id, "write", reason, True, reason, False))

    def on_terminal(self, command: str, args: list[str]) -> str:
        from planview.gate import ToolCall, decide

        line = " ".join([command, *args])
        if self.mode == "plan":
            decision = decide(ToolCall("bash", {"command": line}), "plan", self.policy)
            if not decision.allowed:
                return f"Refused in plan mode: {decision.reason}"
        return "planview offers no terminal to agents; run the command with your own shell tool"


def _title(text: str) -> str:
    found = re.search(r"^#\s+(.+?)\s*#*\s*$", text, re.MULTILINE)
    return found.group(1).strip() if found else "Plan"


__all__ = ["AcpSession", "agent_spec", "build"]


def build(
    spec: str,
    *,
    project_root: Path,
    ui: Any = None,
    on_event: Callable[[Any], None] | None = None,
    plan_mode: bool = False,
    resume: str | None = None,
    **kwargs: Any,
) -> AcpSession:
    """An AcpSession for `--agent spec` (the binary checked now, so a missing one is one line)."""
    from planview.agents.profiles import require_installed, resolve_agent

    profile = require_installed(resolve_agent(spec))
    common = {
        "project_root": project_root,
        "ui": ui,
        "on_event": on_event,
        "profile": profile,
        "spec": spec,
        **kwargs,
    }
    if resume is not None:
        return AcpSession.resume(resume or None, plan_mode=plan_mode, **common)
    return AcpSession(plan_mode=plan_mode, **common)
