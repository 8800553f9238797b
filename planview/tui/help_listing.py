"""What `/help` shows: the slash commands beside what they do, then the keys.

Two columns while the transcript is wide enough for both; narrower, each command stands on its
own line with what it does indented under it, so a description never wraps back to the margin
under the command names (where it reads as another command).
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from planview import keymap
from planview.tui import commands as cmd

# The session's keys, from the one key map (planview/keymap.py SESSION).
KEYS = "Keys: " + " · ".join(f"{row.hint_key} {row.description}" for row in keymap.SESSION)
MIN_WHAT_COLUMNS = 30  # narrower than this beside the commands, the descriptions go under them


class HelpListing:
    """The `/help` text as a Rich renderable that lays itself out for the width it is given."""

    def __init__(self, lead: str = "") -> None:
        self.lead = lead  # a line before the listing ("Unknown command /x.")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.lead:
            yield Text(self.lead)
        yield Text("Commands", style="bold")
        usage_width = max(len(usage) for usage, _ in cmd.HELP)
        if options.max_width >= 2 + usage_width + 2 + MIN_WHAT_COLUMNS:
            grid = Table.grid(padding=(0, 2))
            grid.add_column(no_wrap=True, style="bold")
            grid.add_column(ratio=1)
            for usage, what in cmd.HELP:
                grid.add_row(usage, what)
            yield Padding(grid, (0, 0, 0, 2))
        else:
            for usage, what in cmd.HELP:
                yield Padding(Text(usage, style="bold"), (0, 0, 0, 2))
                yield Padding(Text(what), (0, 0, 0, 4))
        yield Text(KEYS, style="dim")
