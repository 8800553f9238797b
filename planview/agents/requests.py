"""What an ACP agent asks of its session, answered by planview's rules (the `ClientHandler` side).

The agent runs its own loop, so everything planview enforces arrives here as a request or an
event while a prompt runs, and is answered through the same code as planview's own agent:

- permission requests: mapped onto a gate call (permissions.py) and decided by `planview.gate`
  while planning; in execute mode re-checked against the exact pin, then asked of the person;
- an exit-plan request, or a plan file the agent wrote: saved in the plan store, reviewed, and on
  approval sealed, recorded and pinned (the one approval flow) before the agent hears "allow";
- file requests: served inside the project only (files.py); a write while planning is refused
  unless it is the plan file;
- terminal requests: a command runs only when the gate allows it - in plan mode the same read-only
  git check and environment as planview's own bash tool, in the project root; in execute mode
  after the pin check - and terminals.py runs it, caps its output and kills its process group;
- session updates: its text and tool calls into transcript events (translate.py), its own plan
  into the todo list, its mode into `AgentLink`;
- the breach watcher (breach.py): a write the agent made without asking cancels the turn.

What a request decides for the rest of the turn (a follow-up prompt, a headless stop, a fresh
agent session) is left in this object's turn state; `AcpSession` (session.py) runs the prompts and
reads it. This layer is a `SessionBase`, so mode, approval, pin, todos and events are shared code.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from acp import RequestError
from acp.schema import (
    AllowedOutcome,
    EnvVariable,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from planview.agents import files, prompts
from planview.agents import permissions as perm
from planview.agents.breach import BreachWatcher, breach_message, classify, diff_of
from planview.agents.cancel import CANCELLED, TurnCancel
from planview.agents.confine import sandboxed
from planview.agents.link import MODE_CONFIRM_TIMEOUT, AgentLink, SavedAgentSession
from planview.agents.modes import current_from_update
from planview.agents.plan_watch import PlanWatch
from planview.agents.profiles import AgentProfile
from planview.agents.terminals import REFUSED, Terminals, TerminalSpec, output_limit, shell_line
from planview.agents.translate import Translator, content_text, todos_from_plan
from planview.errors import PlanviewError
from planview.home import HomeLayout
from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved, Refine
from planview.plan.steps import extract_steps
from planview.session.base import SessionBase
from planview.session.events import ErrorEvent, ToolFinished, ToolStarted


def _selected(option_id: str) -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option_id))


class AgentProvider:
    """Stands where a session keeps its provider: it names the agent (label, resume snapshot)."""

    def __init__(self, profile: AgentProfile, spec: str) -> None:
        self.profile = profile
        self.spec = spec
        self.label = profile.label
        self.link: AgentLink | None = None  # the session's link, once it has one
        self.saved: SavedAgentSession | None = None  # the agent session a resumed session last used

    def snapshot(self) -> dict[str, Any]:
        return {"kind": "acp", "agent": self.spec, **(self.link.snapshot() if self.link is not None else {})}

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        """A resumed session: remember its agent session, if it ran this same agent."""
        if snapshot.get("agent") == self.spec:
            self.saved = SavedAgentSession.from_snapshot(dict(snapshot))


class AgentRequests(SessionBase):
    def __init__(self, *, profile: AgentProfile, spec: str | None = None, **kwargs: Any) -> None:
        super().__init__(provider=AgentProvider(profile, spec or profile.name), **kwargs)
        self.profile = profile
        self.stderr_path = HomeLayout(self.home).agent_log(self.id)
        self.agent = AgentLink(
            profile, self.project_root, self.stderr_path, self, self.tool_env(), self.store.plans_dir
        )
        self.provider.link, self.agent.saved = self.agent, self.provider.saved
        self._terminals = Terminals()
        self._stop = TurnCancel(self._cancel_agent, self._stop_turn)
        self._translator = Translator(self._emit, self.project_root, self._terminals.shown)
        self._watcher: BreachWatcher | None = None
        self._plan_watch: PlanWatch | None = None  # the approved plan, while the agent executes it
        self._revoked = asyncio.Event()  # the approved plan changed under the executing agent
        self._restart: asyncio.Task[None] | None = None
        self._breach: tuple[str, ...] = ()
        self._breach_report: asyncio.Task[None] | None = None
        # The turn's state that requests leave for AcpSession's turn (which resets it per prompt):
        self._plan_files: list[Path] = []  # plans the agent wrote this turn (fs or its own tools)
        self._reviewed = False  # this turn's plan went through a review
        self._stop_message: str | None = None  # headless review hand-off
        self._follow_up: str | None = None  # the next prompt of this turn (feedback, carry out)
        self._untold: list[str] = []  # refusals whose reason the agent has not heard (the next prompt tells)
        self._writes = 0
        self._commands = 0
        notice = self.resume_notice
        if notice is not None and notice.kind == "approved" and self.approval is not None and self.plan_path:
            # restore() words it for planview's own tools (set_plan_steps); the agent gets the plan (_framed)
            self.resume_notice = replace(
                notice,
                for_model=prompts.resumed_approval(
                    self.relative(self.plan_path), self.approval.approver, self.approval.artifact
                ),
            )

    def _cancel_agent(self) -> None:
        """A stopped turn: its running commands are killed now (kept for their output), then
        session/cancel goes to the agent."""
        self._terminals.kill_running()
        self.agent.cancel_soon()

    def _stop_turn(self) -> bool:
        """The agent ignored session/cancel past the grace: cancel the turn task itself."""
        if not self.busy:
            return False
        SessionBase.cancel(self)  # the task itself; AcpSession.cancel asks the agent first
        return True

    def _leave_plan_mode_if_stuck(self) -> None:
        """After an allowed exit-plan request, an agent still in its read-only mode is moved out."""
        if self.mode == "execute":
            self.agent.leave_plan_mode_soon()

    # ------------------------------------------------------------------ breach detection

    async def _watch(self) -> None:
        # The plans folder exists before the watch starts: a file written into a folder made after it
        # can be missed (the watch on a new folder is added only once its creation is reported).
        self.store.ensure_plans_dir()
        if self._watcher is None:
            self._watcher = BreachWatcher(
                self.project_root,
                self.home,
                self.store.plans_dir,
                self._on_breach,
                self._on_plan_file,
                own_files=self.profile.own_files,
            )
        await self._watcher.start()

    def _on_plan_file(self, path: Path) -> None:
        if path.is_file() and path not in self._plan_files:
            self._plan_files.append(path)

    def _on_breach(self, paths: tuple[str, ...]) -> None:
        if self.mode != "plan" or self._breach:
            return
        self._breach = paths
        self._stop.request("breach")
        self._breach_report = asyncio.get_running_loop().create_task(self._report_breach(paths))

    async def _report_breach(self, paths: tuple[str, ...]) -> None:
        from planview.invocation import planview_command

        changes = await classify(self.project_root, paths)
        resume = (
            "send the agent your next message (it is still in plan mode); from the shell: "
            f'{planview_command()} run --resume {self.id} "keep planning, read-only"'
        )
        diff = await diff_of(self.project_root, changes)
        message = breach_message(self.profile.short_name, changes, diff, resume)
        self._breach_report = None
        self._emit(ErrorEvent(message))
        self._end("error", message)

    # ------------------------------------------------------------------ the approved plan, while executing

    async def _watch_plan(self) -> None:
        """While an approved plan is carried out, watch it: agents that never ask permission give
        planview no other moment to check the pin."""
        if self.approval is None or self.plan_path is None:
            return
        if self._plan_watch is None or self._plan_watch.plan != Path(os.path.realpath(self.plan_path)):
            await self._stop_plan_watch()
            self._plan_watch = PlanWatch(self.plan_path, self._plan_changed)
        self._revoked.clear()
        await self._plan_watch.start()

    async def _stop_plan_watch(self) -> None:
        if self._plan_watch is not None:
            await self._plan_watch.stop()

    def _plan_changed(self) -> None:
        if self.mode != "execute" or self._revoked.is_set():
            return
        pinned = self.check_pin()  # the revoked event, naming the changed sections; back to planning
        if pinned is None:
            return
        self._revoked.set()
        self._emit(ErrorEvent(pinned))
        self._stop.request("replan")
        self._restart = asyncio.get_running_loop().create_task(self._restart_sandboxed())

    async def _restart_sandboxed(self) -> None:
        """The executing agent is killed at once (it may write without asking) and started again
        under the agent profile: from here on its writes fail in the kernel, detached children too."""
        try:
            await self.agent.restart(sandboxed=self.mode == "plan" and sandboxed(), kill=True)
        except PlanviewError as exc:
            self._emit(
                ErrorEvent(f"{self.profile.short_name} was stopped but could not be started again: {exc}")
            )

    # ------------------------------------------------------------------ what the agent asks (ClientHandler)

    def on_update(self, update: Any) -> None:
        if self.agent.replaying:
            return  # session/load's replay of what the saved transcript already shows
        mode = current_from_update(update)
        if mode is not None:
            self.agent.mode_reported(mode)
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
        if self._stop.requested:
            return CANCELLED
        state = self._translator.merge(tool_call)
        self._translator.start(state)
        if self.mode == "plan":
            if perm.is_exit_plan(state.kind, state.title, self.profile.exit_plan_titles):
                return await self._stop.waited(self._exit_plan(state, options))
            decision = self._gate(state)
            if decision.allowed:
                return self._answer(options, perm.ALLOW_KINDS)
            reason = decision.reason
            if not decision.call.builtin and decision.call.name == (state.kind or "other"):
                plans = self.relative(self.store.plans_dir)
                reason = perm.unknown_kind_refusal(state.kind, state.title, self.profile.short_name, plans)
            return self._refuse(state, options, self._plan_refusal(reason))
        if perm.is_exit_plan(state.kind, state.title, self.profile.exit_plan_titles):
            return self._answer(options, perm.ALLOW_KINDS)  # already executing: nothing to review
        with contextlib.suppress(PlanviewError):
            await self.agent.execute_mode()  # an agent still in its read-only mode after an approval
        if state.kind in perm.READ_KINDS:  # reading needs no question, as for planview's own agent
            return self._answer(options, perm.ALLOW_KINDS)
        pinned = self.check_pin()
        if pinned is not None:
            return self._refuse(state, options, pinned, replan=True)
        if self.ui is None:
            return self._answer(options, perm.ALLOW_KINDS)  # headless execute mode runs what it asks
        return await self._stop.waited(self._ask_user(state, options))

    def _gate(self, state: Any) -> Any:
        from planview.gate.policy import decide

        call = perm.gate_call(
            state.kind, state.title, state.raw_input, state.locations, self.store.plans_dir, self.project_root
        )
        # The agent runs what it asks permission for in its own process, outside planview's command
        # sandbox: its commands get the git-only list, never the sandboxed plan mode's wider one.
        decision = decide(call, "plan", self.policy._replace(sandboxed=False))
        if decision.allowed and decision.call.name == "bash" and decision.call.builtin:
            problem = perm.agent_git_refusal(self.project_root)
            if problem is not None:
                return decision._replace(allowed=False, reason=problem)
        return decision

    def _plan_refusal(self, reason: str) -> str:
        return f"Refused in plan mode: {reason}" if not reason.lower().startswith("refused") else reason

    def _refuse(
        self, state: Any, options: list[PermissionOption], reason: str, *, replan: bool = False
    ) -> RequestPermissionResponse:
        state.refused = reason
        self._untold = [*self._untold, f"{self._translator.headline(state)}: {reason}"][-5:]
        self._translator.finish(state)
        if replan:
            self._stop.request("replan")  # the agent was carrying out a plan that no longer holds
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
            text = files.read_named_plan(self.project_root, named)
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
            # Session-wide limits, or a sandboxed process (Landlock cannot be lifted): carry the plan
            # out in a fresh session, or a fresh process that reopens this one.
            if self.profile.session_meta or self.agent.sandboxed:
                self.agent.replace_session = True
                self._follow_up = prompts.with_note(prompts.CARRY_OUT, decision.note)
                self._stop.request("handoff")
            else:
                asyncio.get_running_loop().call_later(MODE_CONFIRM_TIMEOUT, self._leave_plan_mode_if_stuck)
            return self._answer(options, perm.ALLOW_KINDS)
        if self.ui is None:
            from planview.invocation import planview_command  # the row shows a command that runs as shown

            state.refused = f"waiting for approval: {planview_command()} approve {self.relative(path)}"
        else:
            state.refused = "the plan was not approved; still planning"
        self._translator.finish(state)
        return self._answer(options, perm.REJECT_KINDS)

    def _save_plan(self, text: str) -> Path:
        """The plan text as this session's plan file (the same file again on a revision)."""
        target = (
            self.plan_path
            if self.plan_path is not None and self.plan_path.parent == self.store.plans_dir
            else None
        )
        written = self.store.write(files.plan_title(text), text, target)
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
            self._stop.request("review")
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
            self._follow_up = prompts.feedback(rel, decision.text)
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
            await self.agent.execute_mode()
            self._follow_up = prompts.with_note(
                prompts.written_plan_approved(self.relative(path)), decision.note
            )

    # ------------------------------------------------------------------ files and terminals

    async def on_read(self, path: str, line: int | None, limit: int | None) -> str:
        return await files.read_lines(
            files.inside(self.project_root, path), path, line, limit, self.project_root
        )

    async def on_write(self, path: str, content: str) -> None:
        self._writes += 1
        call_id = f"planview-write-{self._writes}"
        target = files.inside(self.project_root, path)
        rel = self.relative(target)
        if self.mode == "plan":
            if target.suffix == ".md" and perm.in_folder(
                str(target), self.store.plans_dir, self.project_root
            ):
                written = self.store.write(files.plan_title(content), content, target)
                self.note_plan_written(written.path, written.bytes)
                if written.path not in self._plan_files:
                    self._plan_files.append(written.path)
                return
            self._write_row(
                call_id, rel, f"plan mode is read-only: {rel} was not written (only the plan file may be)"
            )
            raise files.plan_mode_write_refusal(rel, self.relative(self.store.plans_dir))
        pinned = self.check_pin()
        if pinned is not None:
            self._write_row(call_id, rel, pinned)
            self._stop.request("replan")
            raise RequestError(-32000, pinned)
        from planview.atomic import atomic_write

        # planview performs the agent's write itself, so the transcript shows it like any tool row.
        self._emit(ToolStarted(call_id, "write", {"path": rel}, f"write {rel}"))
        try:
            await asyncio.to_thread(atomic_write, target, content)
        except OSError as exc:
            failed = f"{rel} was not written: {exc.strerror or exc}"
            self._emit(ToolFinished(call_id, "write", failed, False, None, True))
            raise
        size = len(content.encode("utf-8"))
        self._emit(ToolFinished(call_id, "write", f"wrote {rel} ({size:,} bytes)", False, None, False))

    def _write_row(self, call_id: str, rel: str, reason: str) -> None:
        self._emit(ToolStarted(call_id, "write", {"path": rel}, f"write {rel}"))
        self._emit(ToolFinished(call_id, "write", reason, True, reason, False))

    @property
    def terminals(self) -> Terminals:
        return self._terminals

    async def on_terminal_create(
        self,
        session_id: str,
        command: str,
        args: list[str],
        cwd: str | None,
        env: list[EnvVariable],
        output_byte_limit: int | None,
    ) -> str:
        """terminal/create: planview's gate at the tool boundary, then the command runs (terminals.py)."""
        self._commands += 1
        call_id = f"planview-terminal-{self._commands}"
        line = shell_line(command, args)
        if self._stop.requested:
            raise RequestError(REFUSED, "the turn was stopped; the command was not run")
        workdir = self.project_root
        if cwd and files.inside(self.project_root, cwd) != Path(os.path.realpath(self.project_root)):
            workdir = files.inside(self.project_root, cwd)
        if self.mode == "plan":
            script, run_env = await self._plan_command(call_id, line, workdir)
        else:
            pinned = self.check_pin()
            if pinned is not None:
                self._command_row(call_id, line, pinned)
                self._stop.request("replan")
                raise RequestError(REFUSED, pinned)
            script, run_env = line, {**self.tool_env(), **{e.name: e.value for e in env}}
        sandbox_root = self.project_root if self.mode == "plan" and self.sandboxed else None
        spec = TerminalSpec(
            line, script, workdir, run_env, output_limit(output_byte_limit), self.mode, sandbox_root
        )
        return await self._terminals.create(session_id, spec)

    async def _plan_command(self, call_id: str, line: str, workdir: Path) -> tuple[str, dict[str, str]]:
        """A plan-mode command: the same check (gate.policy.decide on `bash`) and the same git environment as
        planview's own bash tool. The agent's env entries are not applied: the plan-mode environment
        is planview's, as for its own shell (BASH_ENV, GIT_* or LD_PRELOAD from an agent would
        change what the checked line does)."""
        from planview.gate.calls import ToolCall
        from planview.gate.git_env import plan_env, plan_script
        from planview.gate.policy import decide

        if workdir != self.project_root:
            reason = (
                f"Refused in plan mode: commands run in the project root, not {self.relative(workdir)}; "
                "leave cwd out (paths in the command are relative to the root)"
            )
            self._command_row(call_id, line, reason)
            raise RequestError(REFUSED, reason)
        decision = decide(ToolCall("bash", {"command": line}), "plan", self.policy)
        if not decision.allowed:
            reason = self._plan_refusal(decision.reason)
            self._command_row(call_id, line, reason)
            raise RequestError(REFUSED, reason, {"command": line})
        return plan_script(line), await plan_env(self.project_root, self.tool_env())

    def _command_row(self, call_id: str, line: str, reason: str) -> None:
        self._emit(ToolStarted(call_id, "bash", {"command": line}, f"bash {line}"))
        self._emit(ToolFinished(call_id, "bash", reason, True, reason, False))
