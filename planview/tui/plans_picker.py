"""`/plans` as a list to pick from: ↑/↓ move, Enter reviews the plan, `a` approves it when it can be
approved (a plan in the plans folder, readable, not already approved as it stands), Esc closes.

The screen only picks; the app reviews or approves through its own paths (the one approval flow), so
the list is one more way to reach them, not a second way to approve.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from planview.plan.store import PlanInfo
from planview.textsafe import sanitize_for_terminal


class PlansPicker(ModalScreen[tuple[str, Path] | None]):
    """The project's plans, newest first; resolves with ("review" | "approve", path) or None."""

    DEFAULT_CSS = """
    PlansPicker { align: center middle; }
    PlansPicker > #plans-box { width: 90%; max-width: 110; height: auto; max-height: 80%;
        border: round $accent; background: $surface; padding: 0 1; }
    PlansPicker OptionList { height: auto; max-height: 20; border: none; }
    PlansPicker #plans-note { color: $text-muted; }
    """
    BINDINGS = [
        Binding("escape", "dismiss_none", "close"),
        Binding("a", "approve", "approve"),
    ]

    def __init__(self, plans: list[PlanInfo], labels: list[str], approvable: list[bool]) -> None:
        super().__init__()
        self.plans, self.labels, self.approvable = plans, labels, approvable

    def compose(self) -> ComposeResult:
        options = [Option(self._row(i), id=str(i)) for i in range(len(self.plans))]
        from textual.containers import Vertical

        with Vertical(id="plans-box"):
            yield Static(Text(f"Plans ({len(self.plans)}), newest first", style="bold"))
            yield OptionList(*options, id="plans-list")
            yield Static("", id="plans-note")
        yield Footer()

    def _row(self, i: int) -> Text:
        info = self.plans[i]
        row = Text(sanitize_for_terminal(self.labels[i]), style="bold")
        row.append("\n  " + sanitize_for_terminal(info.title or ""))
        if info.unreadable is not None:
            row.append(f" · unreadable: {sanitize_for_terminal(info.unreadable)}", style="dim")
        elif info.steps_total:
            row.append(f" · {info.steps_done}/{info.steps_total} steps", style="dim")
        if not self.approvable[i] and info.unreadable is None:
            row.append(" · approved", style="dim green")
        return row

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def _highlighted(self) -> int | None:
        return self.query_one(OptionList).highlighted

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        index = int(event.option.id or 0)
        if self.plans[index].unreadable is not None:
            self._say(f"{self.labels[index]} cannot be read as a plan: {self.plans[index].unreadable}")
            return
        self.dismiss(("review", self.plans[index].path))

    def action_approve(self) -> None:
        index = self._highlighted()
        if index is None:
            return
        if not self.approvable[index]:
            self._say(
                f"{self.labels[index]} cannot be approved from here (it is approved already, or unreadable)"
            )
            return
        self.dismiss(("approve", self.plans[index].path))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    def _say(self, text: str) -> None:
        self.query_one("#plans-note", Static).update(Text(sanitize_for_terminal(text)))
