"""The agent session: conversation, mode state, todo list and the model loop.

Every tool call goes through `gate.decide` (session/dispatch.py); a refused call returns the reason
to the model as the tool result, never an exception. Tools receive the narrow `ToolHost` protocol
(session/protocol.py), which this class implements; UIs read it through `SessionView`
(session/view.py). Mode lives in one `ModeState` value moved only by `session.mode.transition`.

In execute mode under an approval, every mutating call first checks the exact pin (session/pin.py):
the approval this session received must still be the plan's current one. A changed plan, or another
approval appearing, sends the session back to plan mode and refuses the call naming the changed
sections.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planview.approval.channels import REVIEW_SCREEN, TOOL_PROCESS_ENV
from planview.errors import PlanviewError
from planview.home import planview_home
from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved, ReviewDecision
from planview.plan.store import PlanStore
from planview.session import dispatch, lifecycle
from planview.session import mode as modes
from planview.session import todos as todolist
from planview.session.conversation import (
    AssistantMessage,
    Message,
    ToolCallRecord,
    ToolMessage,
    UserMessage,
    dangling_results,
)
from planview.session.events import (
    ConfirmationRequested,
    ErrorEvent,
    Event,
    McpNotice,
    Mode,
    ModeChanged,
    PlanWritten,
    ReviewRequested,
    TextDelta,
    Todo,
    TodosChanged,
    TurnEnded,
)
from planview.session.persistence import SessionLog, SessionState, find_session, read_session
from planview.session.pin import PinCheck, stat_stamp
from planview.session.providers.base import ModelRequest, ModelToolCall, Provider, TextChunk, ToolCallChunk
from planview.session.restore import ResumeNotice, restore
from planview.session.tools import DEFAULT_TOOLS, ToolSet
from planview.session.ui import ReviewRequest, SessionUI

if TYPE_CHECKING:
    from planview.approval.approvals import Approvals
    from planview.approval.flow import ReviewOutcome
    from planview.approval.records import ApprovalRecord

DEFAULT_MAX_REQUESTS = 200  # model requests in one user turn before the session stops a runaway loop


class SessionBusyError(PlanviewError):
    """A turn is already running."""


class Session:
    def __init__(
        self,
        *,
        project_root: Path,
        provider: Provider,
        ui: SessionUI | None = None,
        on_event: Callable[[Event], None] | None = None,
        plan_mode: bool = False,
        session_id: str | None = None,
        store: PlanStore | None = None,
        approvals: Approvals | None = None,
        allow_read_only_hint: bool = True,
        persist: bool = True,
        max_model_requests: int = DEFAULT_MAX_REQUESTS,
        mcp_servers: Sequence[Any] = (),
    ) -> None:
        from planview.approval.approvals import Approvals
        from planview.gate import GatePolicy

        self._project_root = Path(project_root).absolute()
        self.provider = provider
        self.ui = ui
        self.on_event = on_event
        self._store = store or PlanStore(planview_home(self._project_root), project_root=self._project_root)
        self.approvals = approvals or Approvals(self._store.home, self._project_root)
        self.policy = GatePolicy(
            allow_read_only_hint=allow_read_only_hint,
            plans_dir=self._store.plans_dir,
            project_root=self._project_root,
            plan_path_check=self._store.check_path,  # write_plan's plan_path: this store's own rule
        )
        self.max_model_requests = max_model_requests
        # What this session can run and what it is told: a subagent's child narrows these.
        self.tools: ToolSet = DEFAULT_TOOLS
        self.system_prompt = lifecycle.SYSTEM_PROMPT
        self.plan_notes = True  # the hidden plan-mode note (a read-only child is not planning)
        from planview.session.mcp import McpHub

        self.mcp = McpHub(
            mcp_servers,
            project_root=self._project_root,
            log_dir=self._store.home / "mcp",
            on_notice=lambda server, line: self._emit(McpNotice(server, line)),
        )
        self._mode = modes.ModeState("plan" if plan_mode else "execute")
        self._pin_check = PinCheck(self.approvals)
        self._stale_seen: tuple[Any, bool] | None = None  # (pin seq + plan stat, answer) of is_stale
        self._todos: tuple[Todo, ...] = ()
        self._deferred: tuple[str, ...] = ()
        self.conversation: list[Message] = []
        self.resume_notice: ResumeNotice | None = None  # what a resume found (told with the next message)
        self.file_notice: str | None = None  # for the user: the session file's torn last line was left out
        self.saved_mode = False  # a restored session file recorded a mode (then --plan does not apply)
        self._packet: UserMessage | None = None
        self._note_pending = self.mode == "plan"
        self._task: asyncio.Task[None] | None = None
        self.id = session_id or SessionLog.new_id()
        self._log = SessionLog(self.home, self.id) if persist else None
        if self._log is not None and self._log.exists():
            self._restore()

    @classmethod
    def resume(cls, session_id: str | None = None, **kwargs: Any) -> Session:
        """Restore a saved session (the newest when no id): conversation, mode, plan, approval, todos.

        `plan_mode=True` (the --plan flag) applies only when the file saved no mode: a session the
        user left in execute mode stays there (`saved_mode` says which case it was)."""
        root = Path(kwargs["project_root"]).absolute()
        store = kwargs.get("store") or PlanStore(planview_home(root), project_root=root)
        kwargs["store"] = store
        path = find_session(store.home, session_id)
        plan_mode = bool(kwargs.pop("plan_mode", False))
        session = cls(session_id=path.stem, **kwargs)
        if plan_mode and not session.saved_mode:
            session._move(modes.EnterPlan(), None)
        return session

    # ------------------------------------------------------------------ MCP servers, subagents

    async def start_servers(self) -> None:
        """Start the configured MCP servers (each failure is one McpNotice; the session goes on)."""
        await self.mcp.start()

    async def close(self) -> None:
        """Stop the MCP servers this session started."""
        await self.mcp.close()

    def tool_schemas(self) -> tuple[Any, ...]:
        """What the model is offered now: this session's tools, then the MCP servers' tools."""
        from planview.session.mcp.offer import mcp_schemas

        return self.tools.schemas(self.mode) + mcp_schemas(self.mcp.tools(), self.mode, self.policy)

    def spawn_child(
        self,
        call_id: str,
        *,
        read_only: bool,
        plan_tools: tuple[str, ...],
        execute_tools: tuple[str, ...],
        system_prompt: str,
        max_model_requests: int,
        watch: Callable[[Event], None],
    ) -> Session:
        """A subagent: its own conversation and tool set; its events go to `watch` and, tagged with
        `call_id`, to this session's listener. A writing child shares this session's MCP servers and
        exact pin (each write checks the same approval); a read-only child plans, pinned to nothing."""
        from planview.session.events import SubagentEvent

        def forward(event: Event) -> None:
            watch(event)
            self._emit(SubagentEvent(call_id, event))

        make = getattr(self.provider, "child", None)  # a scripted provider scripts its children
        child = Session(
            project_root=self._project_root,
            provider=make(call_id) if callable(make) else self.provider,
            ui=None,  # a child never asks the user anything
            on_event=forward,
            plan_mode=read_only,
            store=self._store,
            approvals=self.approvals,
            allow_read_only_hint=self.policy.allow_read_only_hint,
            persist=False,
            max_model_requests=max_model_requests,
        )
        child.plan_notes = False
        child.system_prompt = system_prompt
        child.tools = ToolSet(plan=plan_tools, execute=execute_tools)
        if not read_only:
            child.mcp = self.mcp
            child._mode, child._packet = self._mode, self._packet
        return child

    def final_answer(self) -> str:
        """The last thing the assistant said (a subagent's answer)."""
        for message in reversed(self.conversation):
            if isinstance(message, AssistantMessage):
                return message.content
        return ""

    def _restore(self) -> None:
        assert self._log is not None
        saved = read_session(self._log.path)
        if saved.dropped is not None and saved.good_bytes is not None:
            self._log.drop_torn_tail(saved.good_bytes)  # appends must not follow a torn line
            self.file_notice = saved.dropped
        found = restore(
            saved.state,
            saved.conversation,
            approvals=self.approvals,
            store=self._store,
            relative=self.relative,
        )
        self.conversation = list(found.conversation)
        self._todos, self._deferred = found.todos, found.deferred
        self.saved_mode = found.saved_mode
        restore_provider = getattr(self.provider, "restore", None)
        if found.provider and callable(restore_provider):
            restore_provider(found.provider)
        self._move(modes.Restore(found.mode), None)
        if found.seed:
            self.seed_steps(found.seed, emit=False)
        self.resume_notice = found.notice
        if found.notice is not None and found.notice.kind == "revoked":
            self._save_state()  # the revocation is recorded: the file says plan mode from now on

    # ------------------------------------------------------------------ state (SessionView / ToolHost)

    @property
    def project_root(self) -> Path:
        return self._project_root

    @property
    def store(self) -> PlanStore:
        return self._store

    @property
    def home(self) -> Path:
        return self._store.home

    @property
    def mode_state(self) -> modes.ModeState:
        return self._mode

    @property
    def mode(self) -> Mode:
        return self._mode.mode

    @property
    def plan_path(self) -> Path | None:
        return self._mode.plan

    @property
    def approval(self) -> ApprovalRecord | None:
        """The approval this session is pinned to (None unless executing an approved plan)."""
        return self._mode.pin

    @property
    def approved(self) -> bool:
        return self._mode.pin is not None

    @property
    def todos(self) -> tuple[Todo, ...]:
        return self._todos

    @property
    def deferred_steps(self) -> tuple[str, ...]:
        return self._deferred

    @property
    def has_ui(self) -> bool:
        return self.ui is not None

    @property
    def channel(self) -> str:
        """How a person approves in this session (recorded on the ledger event): the UI's name."""
        channel = getattr(self.ui, "channel", None)  # optional on a UI: the review screen by default
        return channel if isinstance(channel, str) and channel else REVIEW_SCREEN

    @property
    def provider_label(self) -> str:
        return getattr(self.provider, "label", type(self.provider).__name__)

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def relative(self, path: Path) -> str:
        return self._store.relative(path)

    def tool_env(self) -> Mapping[str, str]:
        """The environment of the agent's tool processes: marked, so `planview approve` there refuses."""
        return {**os.environ, TOOL_PROCESS_ENV: self.id}

    def is_stale(self) -> bool:
        """The plan's text changed after its approval (revoked here, or changed on disk right now)."""
        if self._mode.stale is not None:
            return True
        plan = self.plan_path
        if plan is None:
            return False
        if self.approval is None:  # e.g. resumed after a revocation: the ledger knows
            try:
                return self.approvals.status(plan).state == "stale"
            except PlanviewError:
                return False
        stamp = (self.approval.seq, stat_stamp(plan))
        if stamp[1] is not None and self._stale_seen is not None and self._stale_seen[0] == stamp:
            return self._stale_seen[1]  # the chip's periodic check: no re-hash while the file is untouched
        try:
            stale = canonical_sha256(self._store.read(plan)) != self.approval.canonical_sha256
        except PlanviewError:
            return True
        self._stale_seen = (stamp, stale)
        return stale

    def is_current_pin(self, path: Path) -> bool:
        """This session executes `path` under an approval that still holds (re-approving is a no-op)."""
        plan = self.plan_path
        if self.approval is None or plan is None or Path(path).resolve() != plan.resolve():
            return False
        return self._pin_check.check(plan, self.approval) is None

    def active_plan(self) -> Path | None:
        return self.plan_path

    # ------------------------------------------------------------------ events and persistence

    def _emit(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _append(self, message: Message) -> None:
        self.conversation.append(message)
        if self._log is not None:
            self._ensure_log()
            self._log.message(message)

    def _ensure_log(self) -> None:
        assert self._log is not None
        if not self._log.exists():
            self._log.start({"project_root": str(self.project_root), "provider": self.provider_label})

    def _save_state(self) -> None:
        if self._log is None:
            return
        self._ensure_log()
        state = self._mode
        self._log.state(
            SessionState(
                mode=state.mode,
                plan_path=str(state.plan) if state.plan else None,
                approval=asdict(state.pin) if state.pin is not None else None,
                todos=self._todos,
                deferred=self._deferred,
                provider=self._provider_snapshot(),
                seen_approval=state.seen_seq,
            )
        )

    def _provider_snapshot(self) -> dict[str, Any] | None:
        snapshot = getattr(self.provider, "snapshot", None)
        return snapshot() if callable(snapshot) else None

    # ------------------------------------------------------------------ mode: the one place it moves

    def _move(self, event: modes.ModeEvent, note: str | None) -> None:
        """Apply one transition; `note` set: persist it and tell the UI (ModeChanged)."""
        before, after = self._mode, modes.transition(self._mode, event)
        if after.pin is not None and (before.pin is None or before.pin.seq != after.pin.seq):
            packet = self.approvals.packet(after.pin)  # EvidenceError: not pinned, nothing changed
            self._packet = lifecycle.packet_message(packet.to_json(), packet.sha256)
        elif after.pin is None:
            self._packet = None
        self._mode = after
        if after.mode == "plan" and before.mode != "plan" or isinstance(event, modes.Restore):
            self._note_pending = after.mode == "plan"
        elif after.mode == "execute":
            self._note_pending = False
        if after.pin is None or before.pin is None or before.pin.seq != after.pin.seq:
            self._pin_check.forget()
        if note is not None:
            self._announce(note)

    def _announce(self, note: str) -> None:
        state = self._mode
        self._save_state()
        self._emit(ModeChanged(state.mode, state.plan, state.pin is not None, self.is_stale(), note))

    def enter_plan_mode(self, note: str = "plan mode on") -> None:
        if self.mode != "plan":
            self._move(modes.EnterPlan(), note)

    def leave_plan_mode(self, note: str = "plan mode off") -> None:
        """The user's own toggle. A plan whose approval is still current pins execute mode again."""
        if self.mode == "execute":
            return
        current = None
        if self.plan_path is not None:
            try:
                if self.approvals.is_current(self.plan_path):
                    current = self.approvals.current(self.plan_path)
                    self.approvals.packet(current)  # an unusable packet: normal mode, not pinned
            except PlanviewError:
                current = None
        self._move(modes.LeavePlan(current), note)

    def toggle_plan_mode(self) -> None:
        if self.mode == "plan":
            self.leave_plan_mode()
        else:
            self.enter_plan_mode()

    # ------------------------------------------------------------------ the ToolHost protocol

    def note_plan_written(self, path: Path, size: int) -> None:
        self._move(modes.ChoosePlan(path), None)
        self._emit(PlanWritten(path, size))
        self._announce("plan saved")

    def note_plan_path(self, path: Path) -> None:
        if self.plan_path != path:
            self._move(modes.ChoosePlan(path), None)
            self._save_state()

    async def ask_confirm(self, title: str, message: str) -> bool | None:
        if self.ui is None:
            return None
        self._emit(ConfirmationRequested(title, message))
        return bool(await self.ui.confirm(title, message))

    async def review(self, path: Path, text: str) -> ReviewDecision:
        assert self.ui is not None
        self._emit(ReviewRequested(path, text, True))
        return await self.ui.review(ReviewRequest(path, text))

    def request_review_without_ui(self, path: Path, text: str) -> None:
        self._emit(ReviewRequested(path, text, False))

    def approve_reviewed(self, path: Path, decision: Approved) -> ReviewOutcome:
        """The one approval flow (approval/flow.py) with this session's channel, then pin its record.

        Raises ApprovalError when the plan changed since it was shown (nothing sealed unseen)."""
        from planview.approval.flow import record_decision

        outcome = record_decision(self.approvals, path, decision, channel=self.channel)
        assert outcome.record is not None
        self._move(modes.Approve(outcome.record, path, current=True), "plan approved")
        return outcome

    def seed_steps(self, steps: Sequence[Any], *, emit: bool = True) -> todolist.MergeResult:
        seeds = (todolist.StepSeed.from_step(s) for s in steps)
        merge = todolist.merge_steps(self._todos, seeds)
        self.set_todos(merge.todos, self._deferred + merge.deferred, emit=emit)
        return merge

    def mark_step(self, text: str, status: str) -> None:
        updated, found = todolist.set_status(self._todos, text, status)
        if found and updated != self._todos:
            self.set_todos(updated, self._deferred)

    def set_todos(self, todos: Sequence[Todo], deferred: Sequence[str] = (), *, emit: bool = True) -> None:
        todos, deferred = tuple(todos), tuple(deferred)
        if deferred and len(todos) < todolist.TODO_CAP:  # room freed: deferred steps move up, in order
            refill = todolist.refill(todos, deferred)
            todos, deferred = refill.todos, refill.deferred
        self._todos, self._deferred = todos, deferred
        self._save_state()
        if emit:
            self._emit(TodosChanged(self._todos, self._deferred))

    # ------------------------------------------------------------------ the pin

    def check_pin(self) -> str | None:
        """The exact pin: None while the pinned approval holds, else the refusal (and back to planning)."""
        change = self.revoke_if_changed()
        if change is None:
            return None
        return (
            f"Refused: {change}. Nothing was run. The session is back in plan mode: review the change, then "
            "call exit_plan_mode to get the plan approved again before any write."
        )

    def revoke_if_changed(self) -> str | None:
        """None while the pin holds; else drop it (the session plans again) and say what changed."""
        plan, pin = self.plan_path, self.approval
        if pin is None or plan is None:
            return None
        broken = self._pin_check.check(plan, pin)
        if broken is None:
            return None
        self._move(
            modes.Revoke(broken.sections),
            f"plan changed after approval: {', '.join(broken.sections) or broken.detail}",
        )
        return f"the approved plan {self.relative(plan)} changed after approval ({broken.detail})"

    def _plan_changed(self) -> str | None:
        """Why the session is planning again, for a refused write: the sections a revocation named."""
        stale, plan = self._mode.stale, self.plan_path
        if self.mode != "plan" or stale is None or plan is None:
            return None
        named = f" (changed sections: {', '.join(stale)})" if stale else ""
        return (
            f"The approved plan {self.relative(plan)} changed after its approval{named}, so the session is "
            "back in plan mode until it is approved again"
        )

    # ------------------------------------------------------------------ the turn

    async def send(self, text: str) -> None:
        """Run one user turn to completion (events report progress; errors end the turn, not raise)."""
        if self.busy:
            raise SessionBusyError("a turn is already running; wait for it to end or cancel it")
        self._task = asyncio.create_task(self._turn(text))
        await self._task
        caller = asyncio.current_task()
        if caller is not None and caller.cancelling():
            # The caller itself was cancelled (Ctrl+C, a closing UI): the turn ended cleanly above,
            # and the cancellation goes on to the caller instead of being swallowed.
            raise asyncio.CancelledError

    def cancel(self) -> None:
        """Stop the model stream and any running tool; the turn ends with TurnEnded("cancelled")."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _turn(self, text: str) -> None:
        parts: list[str] = []
        try:
            await self.mcp.start()  # no-op once started (or with no servers); the UI may have begun it
            if self.mode == "plan":
                self._note_pending = True
            self._append(UserMessage(text))
            for _ in range(self.max_model_requests):
                # Checked before every request, not only before mutating calls: the evidence packet
                # of a plan that changed on disk must not go out as the approved scope.
                why = self.revoke_if_changed() if self.mode == "execute" else None
                if why is None and self._note_pending:
                    why = self._plan_changed()
                if self._note_pending and self.mode == "plan" and self.plan_notes:
                    rel = self.relative(self.plan_path) if self.plan_path else None
                    self._append(lifecycle.note_message(rel, why))
                self._note_pending = False
                parts = []
                calls = await self._stream(parts)
                records = tuple(ToolCallRecord(c.id, c.name, dict(c.arguments)) for c in calls)
                parts_text, parts = "".join(parts), []
                self._append(AssistantMessage(parts_text, records))
                if not calls:
                    self._end("done")
                    return
                stop = await self._run_calls(calls)
                if stop is not None:
                    self._end("review", stop)
                    return
            self._fail(
                f"stopped after {self.max_model_requests} model requests in one turn; send a message to go on"
            )
        except asyncio.CancelledError:
            if parts:
                self._append(AssistantMessage("".join(parts) + " [cancelled]"))
            self._close_dangling("cancelled by the user")
            self._end("cancelled")
        except PlanviewError as exc:
            self._close_dangling(f"not run: {exc}")
            self._fail(str(exc))
        except Exception as exc:  # a provider bug must end the turn with a message, not kill the UI
            self._close_dangling("not run: the turn failed")
            self._fail(f"the turn failed unexpectedly ({type(exc).__name__}: {exc}); send a message to retry")

    def _end(self, reason: str, message: str = "") -> None:
        self._save_state()  # the turn's last word: todos, mode and the provider's resume point
        self._emit(TurnEnded(reason, message))  # type: ignore[arg-type]

    def _fail(self, message: str) -> None:
        self._emit(ErrorEvent(message))
        self._end("error", message)

    def _close_dangling(self, reason: str) -> None:
        for at, result in dangling_results(self.conversation, reason):
            self.conversation.insert(at, result)
            if self._log is not None:  # a cancelled turn's calls are the newest, so these land at the end
                self._log.message(result)

    async def _stream(self, parts: list[str]) -> list[ModelToolCall]:
        request = ModelRequest(
            self.system_prompt,
            lifecycle.request_messages(self.conversation, self.mode, self._packet),
            self.tool_schemas(),
        )
        calls: list[ModelToolCall] = []
        async with contextlib.aclosing(self.provider.stream(request)) as stream:
            async for event in stream:
                if isinstance(event, TextChunk):
                    if event.text:
                        parts.append(event.text)
                        self._emit(TextDelta(event.text))
                elif isinstance(event, ToolCallChunk):
                    calls.append(event.call)
        return calls

    async def run_tool_call(self, call: ModelToolCall) -> dispatch.CallOutcome:
        """One call through the gate, the pin and the tool, as a turn runs it (not recorded)."""
        return await dispatch.run_call(
            call,
            host=self,
            tools=self.tools,
            mcp=self.mcp,
            policy=self.policy,
            emit=self._emit,
            check_pin=self.check_pin,
            plan_changed=self._plan_changed,
        )

    async def _run_calls(self, calls: Sequence[ModelToolCall]) -> str | None:
        from planview.session.tools import headline

        stop: str | None = None
        for call in calls:
            if stop is not None:
                line = headline(call.name, dict(call.arguments))
                self._append(
                    ToolMessage(
                        call.id, call.name, "not run: the turn stopped for the plan review", line, error=True
                    )
                )
                continue
            outcome = await self.run_tool_call(call)
            result = outcome.result
            self._append(
                ToolMessage(call.id, call.name, result.text, outcome.headline, outcome.refused, result.error)
            )
            if result.stop_turn:
                stop = result.text
        return stop
