"""The agent session: conversation, mode state, todo list and the model loop.

Every tool call goes through `gate.decide`; a refused call returns the reason to the model
as the tool result, never an exception. In execute mode under an approval, every mutating
call first checks the approved plan's hash (the pin); a changed plan sends the session back
to plan mode and refuses the call naming the changed sections.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from planview.errors import PlanviewError
from planview.plan.canonical import canonical_sha256
from planview.plan.decision import ReviewDecision
from planview.plan.store import PlanStore, planview_home
from planview.session import dispatch, lifecycle
from planview.session import todos as todolist
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
from planview.session.providers.base import ModelRequest, ModelToolCall, Provider, TextChunk, ToolCallChunk
from planview.session.restore import restore
from planview.session.tools import DEFAULT_TOOLS, ToolResult, ToolSet
from planview.session.ui import ReviewRequest, SessionUI

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
        approvals: Any | None = None,
        allow_read_only_hint: bool = True,
        persist: bool = True,
        max_model_requests: int = DEFAULT_MAX_REQUESTS,
        mcp_servers: Sequence[Any] = (),
    ) -> None:
        from planview.approval.approvals import Approvals
        from planview.gate import GatePolicy

        self.project_root = Path(project_root).absolute()
        self.provider = provider
        self.ui = ui
        self.on_event = on_event
        self.store = store or PlanStore(planview_home(self.project_root), project_root=self.project_root)
        self.home = self.store.home
        self.approvals = approvals or Approvals(self.home, self.project_root)
        self.policy = GatePolicy(
            allow_read_only_hint=allow_read_only_hint,
            plans_dir=self.store.plans_dir,
            project_root=self.project_root,
        )
        self.max_model_requests = max_model_requests
        # What this session can run and what it is told: a subagent's child narrows these.
        self.tools: ToolSet = DEFAULT_TOOLS
        self.system_prompt = lifecycle.SYSTEM_PROMPT
        self.plan_notes = True  # the hidden plan-mode note (a read-only child is not planning)
        from planview.session.mcp import McpHub

        self.mcp = McpHub(
            mcp_servers,
            project_root=self.project_root,
            log_dir=self.home / "mcp",
            on_notice=lambda server, line: self._emit(McpNotice(server, line)),
        )
        self.mode: Mode = "plan" if plan_mode else "execute"
        self.plan_path: Path | None = None
        self.approval: Any | None = None  # planview.approval.ApprovalRecord
        self.todos: tuple[Todo, ...] = ()
        self.deferred_steps: tuple[str, ...] = ()
        self.conversation: list[dict[str, Any]] = []
        self.resume_notice: str | None = None  # set when a resume found the plan approved outside
        self.file_notice: str | None = None  # for the user: the session file's torn last line was left out
        self.saved_mode = False  # a restored session file recorded a mode (then --plan does not apply)
        self._packet: dict[str, Any] | None = None
        self._stale: tuple[str, ...] | None = None  # changed sections after a revocation
        self._seen_seq: int | None = None  # newest approval this session pinned
        self._note_pending = self.mode == "plan"
        self._task: asyncio.Task[None] | None = None
        self.id = session_id or SessionLog.new_id()
        self._log = SessionLog(self.home, self.id) if persist else None
        if self._log is not None and self._log.exists():
            saved = read_session(self._log.path)
            if saved.dropped is not None and saved.good_bytes is not None:
                self._log.drop_torn_tail(saved.good_bytes)  # appends must not follow a torn line
                self.file_notice = saved.dropped
            restore(self, saved.state, saved.conversation)

    # ------------------------------------------------------------------ construction helpers

    @classmethod
    def resume(cls, session_id: str | None = None, **kwargs: Any) -> Session:
        """Restore a saved session (the newest when no id): conversation, mode, plan, approval, todos.

        `plan_mode=True` (the --plan flag) applies only when the file saved no mode: a session the
        user left in execute mode stays there (`saved_mode` says which case it was)."""
        store = kwargs.get("store") or PlanStore(
            planview_home(kwargs["project_root"]), project_root=Path(kwargs["project_root"]).absolute()
        )
        kwargs["store"] = store
        path = find_session(store.home, session_id)
        plan_mode = bool(kwargs.pop("plan_mode", False))
        session = cls(session_id=path.stem, **kwargs)
        if plan_mode and not session.saved_mode:
            session.mode, session._note_pending = "plan", True
        return session

    # ------------------------------------------------------------------ MCP servers

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

    # ------------------------------------------------------------------ state queries

    @property
    def provider_label(self) -> str:
        return getattr(self.provider, "label", type(self.provider).__name__)

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def relative(self, path: Path) -> str:
        return self.store.relative(path)

    def is_stale(self) -> bool:
        """The plan's text changed after its approval (revoked here, or changed on disk right now)."""
        if self._stale is not None:
            return True
        if self.plan_path is None:
            return False
        if self.approval is None:  # e.g. resumed after a revocation: the ledger knows
            try:
                return self.approvals.status(self.plan_path).state == "stale"
            except PlanviewError:
                return False
        try:
            return canonical_sha256(self.store.read(self.plan_path)) != self.approval.canonical_sha256
        except PlanviewError:
            return True

    def active_plan(self) -> Path | None:
        return self.plan_path

    # ------------------------------------------------------------------ events and persistence

    def _emit(self, event: Event) -> None:
        if self.on_event is not None:
            self.on_event(event)

    def _append(self, message: dict[str, Any]) -> None:
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
        self._log.state(
            SessionState(
                mode=self.mode,
                plan_path=str(self.plan_path) if self.plan_path else None,
                approval=_record_dict(self.approval),
                todos=self.todos,
                deferred=self.deferred_steps,
                provider=self._provider_snapshot(),
                seen_approval=self._seen_seq,
            )
        )

    def _provider_snapshot(self) -> dict[str, Any] | None:
        snapshot = getattr(self.provider, "snapshot", None)
        return snapshot() if callable(snapshot) else None

    def _mode_changed(self, note: str) -> None:
        self._save_state()
        self._emit(ModeChanged(self.mode, self.plan_path, self.approval is not None, self.is_stale(), note))

    # ------------------------------------------------------------------ mode (the UI's toggles)

    def enter_plan_mode(self, note: str = "plan mode on") -> None:
        if self.mode == "plan":
            return
        self.mode, self.approval, self._packet = "plan", None, None
        self._note_pending = True
        self._mode_changed(note)

    def leave_plan_mode(self, note: str = "plan mode off") -> None:
        """The user's own toggle. A plan whose approval is still current pins execute mode again."""
        if self.mode == "execute":
            return
        self.mode = "execute"
        self._note_pending = False
        if self.plan_path is not None:
            try:
                if self.approvals.is_current(self.plan_path):
                    self._pin(self.approvals.current(self.plan_path))
            except PlanviewError:
                pass
        self._mode_changed(note)

    def toggle_plan_mode(self) -> None:
        if self.mode == "plan":
            self.leave_plan_mode()
        else:
            self.enter_plan_mode()

    def _pin(self, record: Any) -> None:
        packet = self.approvals.packet(record)
        self.mode, self.approval, self._stale = "execute", record, None
        self._seen_seq = max(record.seq, self._seen_seq or 0)
        self._packet = lifecycle.packet_message(packet.to_json(), packet.sha256)
        self._note_pending = False

    # ------------------------------------------------------------------ used by the plan tools

    def note_plan_written(self, path: Path, size: int) -> None:
        self.plan_path = path
        self._emit(PlanWritten(path, size))
        self._mode_changed("plan saved")

    def note_plan_path(self, path: Path) -> None:
        if self.plan_path != path:
            self.plan_path = path
            self._save_state()

    async def ask_confirm(self, title: str, message: str) -> bool | None:
        if self.ui is None:
            return None
        self._emit(ConfirmationRequested(title, message))
        return bool(await self.ui.confirm(title, message))

    async def ask_review(self, path: Path, text: str) -> ReviewDecision:
        assert self.ui is not None
        self._emit(ReviewRequested(path, text, True))
        return await self.ui.review(ReviewRequest(path, text))

    def request_review_without_ui(self, path: Path, text: str) -> None:
        self._emit(ReviewRequested(path, text, False))

    def approve(self, path: Path, expected_sha256: str | None = None, channel: str | None = None) -> Any:
        """Sign, seal and pin: ledger event + artifact + evidence packet, then execute mode.

        `expected_sha256` is the canonical hash of the text the reviewer saw: a plan saved again
        between that check and the seal raises ApprovalError instead of being sealed unseen.
        `channel` (the review's `Approved.channel`) is recorded in the ledger event."""
        record = self.approvals.approve(path, expected_canonical_sha256=expected_sha256, channel=channel)
        self.plan_path = path
        self._pin(record)
        self._mode_changed("plan approved")
        return record

    def seed_steps(self, steps: Sequence[Any], *, emit: bool = True) -> todolist.MergeResult:
        seeds = (todolist.StepSeed.from_step(s) for s in steps)
        merge = todolist.merge_steps(self.todos, seeds)
        self.set_todos(merge.todos, self.deferred_steps + merge.deferred, emit=emit)
        return merge

    def mark_step(self, text: str, status: str) -> None:
        updated, found = todolist.set_status(self.todos, text, status)
        if found and updated != self.todos:
            self.set_todos(updated, self.deferred_steps)

    def set_todos(self, todos: Sequence[Todo], deferred: Sequence[str] = (), *, emit: bool = True) -> None:
        todos, deferred = tuple(todos), tuple(deferred)
        if deferred and len(todos) < todolist.TODO_CAP:  # room freed: deferred steps move up, in order
            refill = todolist.refill(todos, deferred)
            todos, deferred = refill.todos, refill.deferred
        self.todos, self.deferred_steps = todos, deferred
        self._save_state()
        if emit:
            self._emit(TodosChanged(self.todos, self.deferred_steps))

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
            self._append({"role": "user", "content": text})
            for _ in range(self.max_model_requests):
                # Checked before every request, not only before mutating calls: the evidence packet
                # of a plan that changed on disk must not go out as the approved scope.
                why = dispatch.revoke_if_changed(self) if self.mode == "execute" else None
                if self._note_pending and self.mode == "plan" and self.plan_notes:
                    rel = self.relative(self.plan_path) if self.plan_path else None
                    self._append(lifecycle.note_message(rel, why))
                self._note_pending = False
                parts = []
                calls = await self._stream(parts)
                message: dict[str, Any] = {"role": "assistant", "content": "".join(parts)}
                if calls:
                    message["tool_calls"] = [
                        {"id": c.id, "name": c.name, "arguments": dict(c.arguments)} for c in calls
                    ]
                parts = []
                self._append(message)
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
                self._append({"role": "assistant", "content": "".join(parts) + " [cancelled]"})
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
        added = lifecycle.close_dangling_calls(self.conversation, reason)
        if self._log is not None:
            for message in added:  # a cancelled turn's calls are the newest, so these land at the end
                self._log.message(message)

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

    async def _run_calls(self, calls: Sequence[ModelToolCall]) -> str | None:
        stop: str | None = None
        for call in calls:
            if stop is not None:
                self._tool_message(call, "not run: the turn stopped for the plan review")
                continue
            result = await self._run_call(call)
            self._tool_message(call, result.text)
            if result.stop_turn:
                stop = result.text
        return stop

    def _tool_message(self, call: ModelToolCall, text: str) -> None:
        self._append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": text})

    async def _run_call(self, call: ModelToolCall) -> ToolResult:
        return await dispatch.run_call(self, call)

    def _revert_to_plan(self, stale_sections: tuple[str, ...], note: str) -> None:
        """The pin failed: planning again, with the approval dropped and the plan marked stale."""
        self.mode, self.approval, self._packet = "plan", None, None
        self._stale = stale_sections
        self._note_pending = True
        self._mode_changed(note)


def _record_dict(record: Any) -> dict[str, Any] | None:
    if record is None:
        return None
    from dataclasses import asdict

    return asdict(record)
