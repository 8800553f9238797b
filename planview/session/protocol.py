"""The narrow protocol a tool receives: what a tool may ask of the session, and nothing more.

A tool runs as `await tool.run(ToolContext(project_root, host), args)`. `host` satisfies `ToolHost`;
the `Session` is one implementation, a test's fake or another runtime (an MCP server's, a
subagent's) can be another. A tool never sees the session object, its conversation, its provider,
its ledger handle or its mode machinery: it reads the mode, the working plan and the todo list, and
asks for the few changes below. Everything it asks goes through the session's own rules (mode
transitions, the one approval flow, persistence, events).

What a tool may ask, by concern:

- where it runs: `project_root`, `home`, `store` (the plan store: containment + atomic writes),
  `relative(path)` for display, `tool_env()` (the environment its subprocesses get: it marks them
  as a session's tools, so an approval attempted from one is refused);
- the mode and plan: `mode`, `plan_path`, `note_plan_written(path, size)`, `note_plan_path(path)`,
  `enter_plan_mode(note)` (after the person confirmed);
- the person: `has_ui`, `ask_confirm(title, message)`, `review(path, text)` (the UI's decision),
  `approve_reviewed(path, decision)` (the one approval flow with the UI's channel; pins the session),
  `request_review_without_ui(path, text)`;
- the todo list: `todos`, `deferred_steps`, `set_todos(...)`, `seed_steps(steps)`,
  `mark_step(text, status)`;
- delegation: `spawn_child(call_id, read_only=..., plan_tools=..., execute_tools=..., ...)` (the
  `subagent` tool): a child session with its own conversation and tool set, sharing the parent's
  exact pin when it may write; `revoke_if_changed()` re-checks the pin after the child's work.

The gate and the hash pin are not tools' business: `dispatch.run_call` decides every call before a
tool runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from planview.session.events import Event, Mode, Todo

if TYPE_CHECKING:
    from planview.approval.flow import ReviewOutcome
    from planview.plan.decision import Approved, ReviewDecision
    from planview.plan.store import PlanStore
    from planview.session.mode import ModeState
    from planview.session.todos import MergeResult


class ToolHost(Protocol):
    @property
    def project_root(self) -> Path: ...

    @property
    def home(self) -> Path: ...

    @property
    def store(self) -> PlanStore: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def plan_path(self) -> Path | None: ...

    @property
    def todos(self) -> tuple[Todo, ...]: ...

    @property
    def deferred_steps(self) -> tuple[str, ...]: ...

    @property
    def has_ui(self) -> bool: ...

    def relative(self, path: Path) -> str: ...

    def tool_env(self) -> Mapping[str, str]: ...

    @property
    def sandboxed(self) -> bool: ...

    def note_plan_written(self, path: Path, size: int) -> None: ...

    def note_plan_path(self, path: Path) -> None: ...

    def active_plan(self) -> Path | None: ...

    def enter_plan_mode(self, note: str = ...) -> None: ...

    async def ask_confirm(self, title: str, message: str) -> bool | None: ...

    async def review(self, path: Path, text: str) -> ReviewDecision: ...

    def approve_reviewed(self, path: Path, decision: Approved) -> ReviewOutcome: ...

    def request_review_without_ui(self, path: Path, text: str) -> None: ...

    def set_todos(
        self, todos: Sequence[Todo], deferred: Sequence[str] = (), *, emit: bool = True
    ) -> None: ...

    def seed_steps(self, steps: Sequence[Any], *, emit: bool = True) -> MergeResult: ...

    def mark_step(self, text: str, status: str) -> None: ...

    def revoke_if_changed(self) -> str | None: ...

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
    ) -> ChildSession: ...


class ChildSession(Protocol):
    """A subagent's session, as the `subagent` tool drives it."""

    @property
    def mode(self) -> Mode: ...

    @property
    def mode_state(self) -> ModeState: ...

    async def send(self, text: str) -> None: ...

    def final_answer(self) -> str: ...
