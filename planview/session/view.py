"""What a UI may read and ask of a session: the typed view the TUI holds instead of `Any`.

`SessionBase` (session/base.py) implements it, so planview's own `Session` and the ACP agent's
`AcpSession` both do, and the transcript, chip, todo panel and review flow serve both. Reads are plain properties; the
asks are the person's own actions (send a message, cancel, toggle plan mode, approve a
reviewed plan through the one approval flow).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from planview.session.conversation import Message
from planview.session.events import Mode, Todo

if TYPE_CHECKING:
    from planview.approval.flow import ReviewOutcome
    from planview.plan.decision import Approved
    from planview.plan.store import PlanStore
    from planview.session.restore import ResumeNotice
    from planview.session.todos import MergeResult


class SessionView(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def provider_label(self) -> str: ...

    @property
    def project_root(self) -> Path: ...

    @property
    def store(self) -> PlanStore: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def plan_path(self) -> Path | None: ...

    @property
    def approved(self) -> bool: ...

    @property
    def todos(self) -> tuple[Todo, ...]: ...

    @property
    def conversation(self) -> Sequence[Message]: ...

    @property
    def resume_notice(self) -> ResumeNotice | None: ...

    @property
    def file_notice(self) -> str | None: ...

    @property
    def busy(self) -> bool: ...

    def is_stale(self) -> bool: ...

    def is_current_pin(self, path: Path) -> bool: ...

    async def send(self, text: str) -> None: ...

    def cancel(self) -> None: ...

    def toggle_plan_mode(self) -> None: ...

    def enter_plan_mode(self, note: str = ...) -> None: ...

    def approve_reviewed(self, path: Path, decision: Approved) -> ReviewOutcome: ...

    def seed_steps(self, steps: Sequence[Any], *, emit: bool = True) -> MergeResult: ...
