"""`/help` in the session app reads as a list at every width (Pilot, the rendered lines)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region

from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.commands import HELP
from planview.tui.widgets.transcript import NoticeRow


async def _help_lines(tmp_path: Path, size: tuple[int, int], line: str = "/help") -> list[str]:
    def factory(ui, on_event):
        return Session(
            project_root=tmp_path, provider=ScriptedProvider(parse_script("")), ui=ui, on_event=on_event
        )

    app = PlanviewApp(factory, project_root=tmp_path)
    async with app.run_test(size=size) as pilot:
        screen = app.session_screen
        screen.prompt.load_text(line)
        screen.prompt.focus()
        await pilot.press("enter")
        await pilot.pause()
        row = list(screen.transcript.query(NoticeRow))[-1]
        return [s.text.rstrip() for s in row.render_lines(Region(0, 0, row.size.width, row.size.height))]


async def test_at_40_columns_each_command_has_its_description_indented_under_it(tmp_path: Path) -> None:
    """It used to pad the commands to one column and wrap each description back to the margin,
    where it read as another command."""
    lines = await _help_lines(tmp_path, (40, 20))
    for usage, what in HELP:
        at = lines.index(f"  {usage}")
        assert lines[at + 1].startswith("    " + what.split()[0]), lines[at : at + 2]
    listing = lines[1 : lines.index(f"  {HELP[-1][0]}") + 2]
    assert all(line.startswith("  ") for line in listing)  # nothing wraps back to the margin


@pytest.mark.parametrize("width", [80, 120])
async def test_wide_enough_the_descriptions_stand_beside_the_commands(tmp_path: Path, width: int) -> None:
    lines = await _help_lines(tmp_path, (width, 30))
    row = next(line for line in lines if line.lstrip().startswith("/plans "))
    assert row.split(None, 1)[1] == dict(HELP)["/plans"]
    assert "PgUp/PgDn scroll the transcript" in " ".join(line.strip() for line in lines)


async def test_an_unknown_command_says_so_before_the_listing(tmp_path: Path) -> None:
    lines = await _help_lines(tmp_path, (80, 30), "/nosuch")
    assert lines[0] == "Unknown command /nosuch." and lines[1] == "Commands"
