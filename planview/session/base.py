"""What every session is, whoever runs its turns: its state, the plan-mode rules and their record.

Two runtimes run a session's turns: planview's own model loop (session/session.py: a provider
streams, planview runs the tools) and an external ACP agent (agents/session.py: the agent runs its
own loop, planview answers its requests). Both are a `SessionBase`, so the mode (moved only through
`ModeKeeper`, session/mode_keeper.py), the one approval flow, the execute-mode pin, the todo list,
the session file and the events are this one code for both. Tools reach it through the narrow
`ToolHost` protocol (session/protocol.py) and UIs through `SessionView` (session/view.py).

In execute mode under an approval, every mutating call first checks the exact pin (session/pin.py):
the approval this session received must still be the plan's current one. A changed plan, or another
approval appearing, sends the session back to plan mode and refuses the call naming the changed
sections.

A runtime supplies `_turn(text)`; `send` runs it as the one cancellable task of the session.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from planview.approval.channels import REVIEW_SCREEN, TOOL_PROCESS_ENV
from planview.home import planview_home
from planview.plan.decision import Approved, ReviewDecision
from planview.plan.store import PlanStore
from planview.session import mode as modes
from planview.session import todos as todolist
from planview.session.conversation import Message
from planview.session.events import (
    ConfirmationRequested,
    ErrorEvent,
    Event,
    McpNotice,
    Mode,
    ModeChanged,
    PlanWritten,
    ReviewRequested,
    Todo,
    TodosChanged,
    TurnEnded,
)
from planview.session.mode_keeper import ModeKeeper
from planview.session.persistence import SessionLog, SessionState, find_session, read_session
from planview.session.restore import ResumeNotice, restore
from planview.session.turn_task import TurnTask
from planview.session.ui import ReviewRequest, SessionUI

if TYPE_CHECKING:
    from planview.approval.approvals import Approvals
    from planview.approval.flow import ReviewOutcome
    from planview.approval.records import ApprovalRecord


class SessionBase:
    def __init__(
        self,
        *,
        project_root: Path,
        provider: Any,  # a model provider, or an agent's stand-in: label, snapshot(), restore()
        ui: SessionUI | None = None,
        on_event: Callable[[Event], None] | None = None,
        plan_mode: bool = False,
        session_id: str | None = None,
        store: PlanStore | None = None,
        approvals: Approvals | None = None,
        allow_read_only_hint: bool = True,
        persist: bool = True,
        mcp_servers: Sequence[Any] = (),
    ) -> None:
        from planview.approval.approvals import Approvals
        from planview.gate.calls import GatePolicy
        from planview.sandbox import status as sandbox_status

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
            home=self._store.home,  # plan-mode readers may read the plans there (gate.read_scope)
            sandboxed=sandbox_status.current().enforcing,  # the bash tool then runs in the sandbox
        )
        from planview.session.mcp.hub import McpHub

        # The configured MCP servers: planview's own loop starts them; /mcp lists them in any session.
        self.mcp = McpHub(
            mcp_servers,
            project_root=self._project_root,
            log_dir=self._store.home / "mcp",
            on_notice=lambda server, line: self._emit(McpNotice(server, line)),
        )
        self._modes = ModeKeeper(self.approvals, self._store, "plan" if plan_mode else "execute")
        self._todos: tuple[Todo, ...] = ()
        self._deferred: tuple[str, ...] = ()
        self.conversation: list[Message] = []
        self.resume_notice: ResumeNotice | None = None  # what a resume found (told with the next message)
        self.file_notice: str | None = None  # for the user: the session file's torn last line was left out
        self.saved_mode = False  # a restored session file recorded a mode (then --plan does not apply)
        self._turns = TurnTask()
        self.id = session_id or SessionLog.new_id()
        # An MCP server is a tool process too: `planview approve` there refuses.
        self.mcp.env[TOOL_PROCESS_ENV] = self.id
        self._log = SessionLog(self.home, self.id) if persist else None
        if self._log is not None and self._log.exists():
            self._restore()

    @classmethod
    def resume(cls, session_id: str | None = None, **kwargs: Any) -> Self:
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

    async def close(self) -> None:
        """Stop the MCP servers this session started."""
        await self.mcp.close()

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
        return self._modes.state

    @property
    def mode(self) -> Mode:
        return self._modes.state.mode

    @property
    def plan_path(self) -> Path | None:
        return self._modes.state.plan

    @property
    def approval(self) -> ApprovalRecord | None:
        """The approval this session is pinned to (None unless executing an approved plan)."""
        return self._modes.state.pin

    @property
    def approved(self) -> bool:
        return self._modes.state.pin is not None

    @property
    def saved(self) -> bool:
        """Whether this session has a file `--resume` can take up (nothing is written before it is used)."""
        return self._log is not None and self._log.exists()

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
        return self._turns.busy

    def relative(self, path: Path) -> str:
        return self._store.relative(path)

    @property
    def sandboxed(self) -> bool:
        """Plan-mode commands run in the kernel sandbox (decided with the gate policy, once)."""
        return self.policy.sandboxed

    def tool_env(self) -> Mapping[str, str]:
        """The environment of the agent's tool processes: marked, so `planview approve` there refuses;
        while executing, it names the pinned plan, which the team's commit hook writes as a trailer."""
        from planview.team.hooks import PLAN_ENV

        env = {k: v for k, v in os.environ.items() if k != PLAN_ENV}
        pin = self._modes.state.pin
        if pin is not None and self.mode == "execute":
            env[PLAN_ENV] = pin.canonical_sha256
        return {**env, TOOL_PROCESS_ENV: self.id}

    def is_stale(self) -> bool:
        """The plan's text changed after its approval (revoked here, or changed on disk right now)."""
        return self._modes.is_stale()

    def is_current_pin(self, path: Path) -> bool:
        """This session executes `path` under an approval that still holds (re-approving is a no-op)."""
        return self._modes.is_current_pin(path)

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
        state = self._modes.state
        self._log.state(
            SessionState(
                mode=state.mode,
                plan_path=str(state.plan) if state.plan else None,
                approval=state.pin._asdict() if state.pin is not None else None,
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
        self._modes.move(event)
        if note is not None:
            self._announce(note)

    def _announce(self, note: str) -> None:
        state = self._modes.state
        self._save_state()
        self._emit(ModeChanged(state.mode, state.plan, state.pin is not None, self.is_stale(), note))

    def enter_plan_mode(self, note: str = "plan mode on") -> None:
        if self.mode != "plan":
            self._move(modes.EnterPlan(), note)

    def leave_plan_mode(self, note: str = "plan mode off") -> None:
        """The user's own toggle. A plan whose approval is still current pins execute mode again."""
        if self.mode != "execute":
            self._move(modes.LeavePlan(self._modes.current_approval()), note)

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
        plan, broken = self.plan_path, self._modes.broken_pin()
        if broken is None or plan is None:
            return None
        self._move(
            modes.Revoke(broken.sections),
            f"plan changed after approval: {', '.join(broken.sections) or broken.detail}",
        )
        return f"the approved plan {self.relative(plan)} changed after approval ({broken.detail})"

    # ------------------------------------------------------------------ the turn, as a task

    async def send(self, text: str) -> None:
        """Run one user turn to completion (events report progress; errors end the turn, not raise).

        Raises SessionBusyError while another turn runs (session/turn_task.py)."""
        await self._turns.run(lambda: self._turn(text))

    def cancel(self) -> None:
        """Stop the running turn; it ends with TurnEnded("cancelled")."""
        self._turns.cancel()

    async def _turn(self, text: str) -> None:
        """One user turn, start to end: the runtime's own (it ends with `_end`, never raises)."""
        raise NotImplementedError(f"{type(self).__name__} runs no turns; use Session or AcpSession")

    def _end(self, reason: str, message: str = "") -> None:
        self._save_state()  # the turn's last word: todos, mode and the provider's resume point
        self._emit(TurnEnded(reason, message))  # type: ignore[arg-type]

    def _fail(self, message: str) -> None:
        self._emit(ErrorEvent(message))
        self._end("error", message)
