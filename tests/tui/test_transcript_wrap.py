"""Paths in tool rows wrap after a separator, never mid-name (QA §9: `…-greet.m` / `d: step 3`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.geometry import Region

from planview.tui.widgets.transcript import ToolRow
from planview.tui.widgets.wrap import SeparatorWrap, break_long_words
from tests.tui.test_app_flow import scripted_app

PLAN = ".planview/plans/2026-12-01-0956-add-a-shout-option-to-greet.md"
RESULT = f"Updated {PLAN}: step 3 completed. Progress: 3/3 steps done."


def lines_at(renderable: object, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines()]


def _broken_inside_the_path(lines: list[str]) -> list[str]:
    """The last words of lines that end inside the plan path (the whole path is followed by ":")."""
    return [line.split()[-1] for line in lines[:-1] if line.split() and line.split()[-1] in PLAN]


@pytest.mark.parametrize("width", [20, 30, 40, 62, 80])
def test_a_long_path_breaks_after_a_separator_and_keeps_its_characters(width: int) -> None:
    lines = lines_at(SeparatorWrap(Text(RESULT)), width)
    assert all(len(line) <= width for line in lines)
    assert "".join("".join(lines).split()) == "".join(RESULT.split())  # nothing lost or added
    assert all(last.endswith(("/", "-")) for last in _broken_inside_the_path(lines)), lines


def test_short_text_and_unbreakable_words_are_left_to_rich() -> None:
    text = Text("fits")
    assert break_long_words(text, 40) is text
    assert lines_at(SeparatorWrap(Text("x" * 25)), 10) == ["x" * 10, "x" * 10, "x" * 5]


def test_styles_survive_the_breaks() -> None:
    text = Text("see ")
    text.append(PLAN, style="bold")
    broken = break_long_words(text, 30)
    assert broken.plain.replace("\n", "") == text.plain
    assert all(span.style == "bold" for span in broken.spans)


@pytest.mark.parametrize("width", [40, 44, 50, 120])
async def test_a_tool_row_breaks_a_plan_path_at_a_folder(project: Path, width: int) -> None:
    app, _ = scripted_app(project, [{"text": "hi"}])
    async with app.run_test(size=(width, 30)) as pilot:
        transcript = app.session_screen.transcript
        transcript.tool_started("c1", "set_plan_steps", "set_plan_steps 3→completed")
        transcript.tool_finished("c1", "set_plan_steps", RESULT, refused=False, reason=None, error=False)
        await pilot.pause()
        row = list(transcript.query(ToolRow))[-1]
        shown = [s.text.rstrip() for s in row.render_lines(Region(0, 0, row.size.width, row.size.height))]
        assert shown[1:] and all(last.endswith(("/", "-")) for last in _broken_inside_the_path(shown[1:])), (
            shown
        )
        assert "".join("".join(shown[1:]).split()) == "".join(RESULT.split())
