"""The todo panel gives way on a narrow screen: it narrows, then collapses to one line opened by a key."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.session import events as ev
from planview.session.events import Todo
from planview.tui.widgets.todos import FULL_WIDTH, TodoPanel, panel_width
from planview.tui.widgets.transcript import Transcript
from tests.tui.test_app_flow import scripted_app

TODOS = (
    Todo("Add a shout parameter to greeting() that upper-cases the greeting", "completed"),
    Todo("Add a --shout flag to the command line and pass it through", "in_progress"),
    Todo("Cover shouting with a test and mention it in the README"),
)


def test_panel_width_gives_way_before_the_transcript() -> None:
    assert panel_width(200) == panel_width(120) == FULL_WIDTH
    widths = [panel_width(w) for w in range(200, 30, -1)]
    sizes = [w for w in widths if w is not None]
    assert sizes == sorted(sizes, reverse=True)  # narrows monotonically
    first_none = widths.index(None)
    assert all(w is None for w in widths[first_none:])  # then stays collapsed
    for screen in range(30, 201):
        width = panel_width(screen)
        assert width is None or screen - width >= 48  # the transcript keeps a readable column


async def show(app, pilot) -> tuple[TodoPanel, Transcript]:
    screen = app.session_screen
    screen.apply_event(ev.TodosChanged(TODOS))
    await pilot.pause()
    return screen.todos, screen.transcript


@pytest.mark.parametrize(("size", "panel"), [((120, 36), FULL_WIDTH), ((80, 24), 26)])
async def test_panel_beside_the_transcript_when_there_is_room(project: Path, size, panel) -> None:
    app, _ = scripted_app(project, [{"text": "hi"}])
    async with app.run_test(size=size) as pilot:
        todos, transcript = await show(app, pilot)
        assert not todos.collapsed and todos.outer_size.width == panel
        assert transcript.outer_size.width == size[0] - panel
        assert todos.region.y == transcript.region.y  # beside it, not under it


async def test_at_40_columns_the_panel_is_one_line_and_ctrl_t_opens_it(project: Path) -> None:
    app, _ = scripted_app(project, [{"text": "hi"}])
    async with app.run_test(size=(40, 20)) as pilot:
        todos, transcript = await show(app, pilot)
        assert todos.collapsed and todos.outer_size.height == 1
        assert transcript.outer_size.width == 40  # the whole width, not 6 columns
        line = todos.render_line(0).text
        assert line.strip().startswith("Todos 1/3") and "^t list" in line and "◧ Add a --shout" in line
        assert todos.region.y >= transcript.region.bottom - 1  # under the transcript

        await pilot.press("ctrl+t")
        await pilot.pause()
        assert todos.opened and todos.outer_size.height > 4
        shown = "\n".join(todos.render_line(y).text for y in range(todos.outer_size.height))
        assert "Todos 1/3" in shown and "◻ Cover shouting" in shown
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert not todos.opened and todos.outer_size.height == 1

        await pilot.resize_terminal(120, 36)
        await pilot.pause()
        assert not todos.collapsed and todos.outer_size.width == FULL_WIDTH


@pytest.mark.parametrize("width", [40, 60, 80, 120])
async def test_the_footer_and_placeholder_fit_without_cut_words(project: Path, width: int) -> None:
    from textual.widgets import Footer

    app, _ = scripted_app(project, [{"text": "hi"}])
    async with app.run_test(size=(width, 20)) as pilot:
        await pilot.pause()
        screen = app.session_screen
        assert len(str(screen.prompt.placeholder)) <= width - 2
        assert screen.query_one(Footer).show_command_palette == (width >= 60)


@pytest.mark.parametrize("width", [30, 38, 40, 80, 120])
async def test_every_footer_hint_is_whole_and_the_plan_key_reads_ctrl_alt_p(
    project: Path, width: int
) -> None:
    # QA §9: at 40 columns `^o expand` was cut to `^`, and the plan key read `alt+^p`.
    from rich.cells import cell_len
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    app, _ = scripted_app(project, [{"text": "hi"}])
    async with app.run_test(size=(width, 20)) as pilot:
        await pilot.pause()
        if width < 38:  # no room for both hints: no footer rather than a cut one
            assert not app.session_screen.query_one(Footer).display
            return
        keys = list(app.session_screen.query(FooterKey))
        for _ in range(100):  # on a busy machine the footer may be laid out a few frames later
            if keys and all(key.region.width for key in keys):
                break
            await pilot.pause(0.02)
            keys = list(app.session_screen.query(FooterKey))
        labels = [key.render().plain.strip() for key in keys]
        assert labels[:2] == ["ctrl+alt+p plan mode (/plan)", "^o expand"], labels
        for key in keys:
            region = key.region
            assert region.right <= width and region.width >= cell_len(key.render().plain.rstrip()), (
                key.render().plain,
                region,
            )
