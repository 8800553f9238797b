"""What the demo tells the user: the welcome (what to try, in order) and the commands printed on quit."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text


def welcome(root: Path) -> tuple[Group]:
    """One notice; each key's line wraps under its own text, not under the key."""
    intro = Text()
    intro.append("planview demo", style="bold")
    intro.append(" — a scripted agent (offline, no API key) works in a fresh copy of a small project:")
    rows: list[RenderableType] = [intro, Padding(Text(str(root), style="bold"), (0, 0, 0, 2))]
    rows.append(
        Text(
            "It explores read-only, tries a write and a git commit (both refused by the plan-mode gate), "
            "writes a plan and opens it for your review. In the review, try:"
        )
    )
    table = Table.grid(padding=(0, 2), pad_edge=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(ratio=1)
    table.add_row("n / p", "move to the next / previous section (j/k, Ctrl+D/U and g/G scroll)")
    table.add_row(
        "r",
        "type a note, say “what about --times 0?”, and press Enter: the agent revises two sections "
        "and the plan comes back with them marked as changed",
    )
    table.add_row("d", "after a refinement: the words it changed, marked in the changed sections")
    table.add_row("a Enter", "approve (with an optional note): the agent edits the files and ticks each step")
    rows.append(Padding(table, (0, 0, 0, 2)))
    end = Text("Press Enter to send the task below.", style="bold")
    end.append("  Ctrl+Q quits; the project stays on disk for you to inspect.", style="not bold dim")
    rows.append(end)
    return (Group(*rows),)


def closing(root: Path, planview: str, columns: int | None = None) -> str:
    """The commands printed after the demo; `planview` is how to run this planview (planview.invocation).

    The comments line up when every line fits the terminal (`columns`, default: its width); else
    each comment follows its command, or goes on the line above it, so nothing wraps into a line
    of padding (a long planview path at 40 columns did)."""
    if columns is None:
        columns = shutil.get_terminal_size().columns
    rows = (
        ("git diff", "the agent's edits"),
        (f"{planview} plans", "the plan it wrote"),
        (f"{planview} audit", "the approval in the ledger"),
    )
    width = max(len(command) for command, _ in rows) + 2
    lines = [f"planview demo: the sample project is at {root}", f"  cd {shlex.quote(str(root))}"]
    aligned = [f"  {command.ljust(width)} # {what}" for command, what in rows]
    if all(len(line) <= columns for line in aligned):
        return "\n".join(lines + aligned)
    for command, what in rows:
        line = f"  {command}  # {what}"
        lines += [line] if len(line) <= columns else [f"  # {what}", f"  {command}"]
    return "\n".join(lines)
