"""The status row: the mode chip on the left, provider/model and project on the right."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static


def chip_text(
    mode: str,
    plan: str | None,
    *,
    approved: bool = False,
    stale: bool = False,
    width: int | None = None,
    lists_only: bool = False,
) -> str:
    """`⋮ plan`, `⋮ plan · <plan>`, `⋮ execute · <plan> ✓`, `⋮ execute · <plan> ✗ stale`.

    Without a plan, execute mode (plan mode off) reads plainly `⋮ execute`. Within `width` cells
    the plan name gives way (ending in `…`), never the mode or the ✓ / ✗ stale that follow it.
    `lists_only`: the kernel offers no sandbox here, so plan mode reads `⋮ plan (lists only)`.
    """
    label = f"{mode} (lists only)" if lists_only and mode == "plan" else mode
    if plan is None:
        return f"⋮ {label}"
    head = f"⋮ {label} · "
    tail = " ✗ stale" if stale else " ✓" if mode == "execute" and approved else ""
    if width is not None:
        room = width - cell_len(head) - cell_len(tail)
        if cell_len(plan) > room:
            plan = set_cell_size(plan, room - 1).rstrip() + "…" if room >= 4 else "…"
    return f"{head}{plan}{tail}"


class ModeChip(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.text = ""
        self._state: tuple[str, str | None, bool, bool] = ("plan", None, False, False)
        self._width: int | None = None
        self.lists_only = False  # the kernel offers no sandbox: plan mode runs on lists alone

    def show(self, mode: str, plan: str | None, *, approved: bool = False, stale: bool = False) -> None:
        self._state = (mode, plan, approved, stale)
        self.set_class(mode == "plan", "-plan")
        self.set_class(mode == "execute", "-execute")
        self.set_class(stale, "-stale")
        self.set_class(approved and not stale, "-approved")
        self._draw()

    def fit(self, width: int) -> None:
        """Keep the chip within `width` cells (its text; the padding is the caller's)."""
        self._width = max(1, width)
        self._draw()

    def _draw(self) -> None:
        mode, plan, approved, stale = self._state
        self.text = chip_text(
            mode, plan, approved=approved, stale=stale, width=self._width, lists_only=self.lists_only
        )
        self.update(Text(self.text, no_wrap=True))


def elide_left(text: str, width: int) -> str:
    """`text` cut from the left to `width` cells with a leading `…` (the end of a path matters most)."""
    if cell_len(text) <= width:
        return text
    if width < 8:
        return ""
    return "…" + text[-(width - 1) :]


def elide_right(text: str, width: int) -> str:
    """`text` within `width` cells, ending in `…` when cut (the start of a name matters most)."""
    if cell_len(text) <= width:
        return text
    if width < 4:
        return ""
    return set_cell_size(text, width - 1).rstrip() + "…"


class StatusBar(Horizontal):
    """One row: chip · provider/model · project folder (shortened from the left to fit)."""

    def __init__(self, *, provider: str, project: str, id: str | None = None) -> None:
        super().__init__(id=id)
        self._provider = provider
        self._project = project

    def compose(self) -> ComposeResult:
        yield ModeChip(id="chip")
        yield Static(Text(self._provider), id="provider")
        yield Static(Text(self._project), id="project")

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        chip = self.query_one(ModeChip)
        chip.fit(self.size.width - 2)  # its padding
        room = self.size.width - (cell_len(chip.text) + 2) - 2  # after the chip and the provider's padding
        provider = elide_right(self._provider, room)
        self.query_one("#provider", Static).update(Text(provider, no_wrap=True))
        used = cell_len(chip.text) + 2 + cell_len(provider) + 2 + 2  # paddings
        self.query_one("#project", Static).update(Text(elide_left(self._project, self.size.width - used)))
