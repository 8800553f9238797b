"""Session-screen widgets on their own: transcript rows and pruning, prompt keys, chip, todos."""

from __future__ import annotations

from textual.app import App, ComposeResult

from planview.session.events import Todo
from planview.tui.messages import CancelRequested, PromptSubmitted
from planview.tui.widgets.chip import chip_text
from planview.tui.widgets.prompt import PromptInput
from planview.tui.widgets.todos import TodoPanel, render_todos
from planview.tui.widgets.transcript import (
    AssistantRow,
    ToolRow,
    Transcript,
    UserRow,
    render_tool,
)


class TranscriptApp(App):
    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")


class PromptApp(App):
    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[str] = []
        self.cancels = 0

    def compose(self) -> ComposeResult:
        yield PromptInput(id="prompt")

    def on_prompt_submitted(self, message: PromptSubmitted) -> None:
        self.submitted.append(message.text)

    def on_cancel_requested(self, _: CancelRequested) -> None:
        self.cancels += 1


# -- chip -------------------------------------------------------------------------------------
def test_chip_text_for_every_state() -> None:
    assert chip_text("plan", None) == "⋮ plan"
    assert chip_text("plan", "p.md") == "⋮ plan · p.md"
    assert chip_text("execute", "p.md", approved=True) == "⋮ execute · p.md ✓"
    assert chip_text("execute", "p.md", approved=True, stale=True) == "⋮ execute · p.md ✗ stale"
    assert chip_text("execute", None) == "⋮ execute"
    # execute without an approval is not marked approved
    assert chip_text("execute", "p.md") == "⋮ execute · p.md"


# -- tool rows --------------------------------------------------------------------------------
def test_tool_row_collapses_long_results_and_expands() -> None:
    result = "\n".join(f"line {i}" for i in range(20))
    collapsed = render_tool("read big.txt", result).plain
    assert collapsed.splitlines()[0] == "✓ read big.txt"
    assert "  line 3" in collapsed and "line 4" not in collapsed
    assert "… 16 more lines (ctrl+o to expand)" in collapsed
    expanded = render_tool("read big.txt", result, expanded=True).plain
    assert "  line 19" in expanded and "more lines" not in expanded


def test_refused_row_shows_the_gate_reason() -> None:
    text = render_tool(
        "write greet.py", "refused", refused=True, reason="plan mode is read-only; call exit_plan_mode"
    )
    assert text.plain.startswith("✗ write greet.py")
    assert "refused: plan mode is read-only; call exit_plan_mode" in text.plain
    # styled as refused (red), unlike a normal result
    assert any("red" in str(span.style) for span in text.spans)


def test_running_row_has_no_body() -> None:
    assert render_tool("bash git status", None).plain == "… bash git status"


def test_rows_use_the_one_sanitiser() -> None:
    assert render_tool("a\x1b[31mred\x1b[0m\x07b", "c\r\nd").plain == "✓ aredb\n  c\n  d"


# -- todos ------------------------------------------------------------------------------------
def test_todo_rendering_and_progress() -> None:
    todos = (Todo("one", "completed"), Todo("two", "in_progress"), Todo("three"))
    text = render_todos(todos).plain.splitlines()
    assert text == ["Todos 1/3", "◼ one", "◧ two", "◻ three"]


async def test_todo_panel_hidden_until_there_are_todos() -> None:
    class A(App):
        def compose(self):
            yield TodoPanel(id="todos")

    app = A()
    async with app.run_test() as pilot:
        panel = app.query_one(TodoPanel)
        assert panel.display is False
        panel.set_todos([Todo("a"), Todo("b", "completed")])
        await pilot.pause()
        assert panel.display is True and panel.progress == (1, 2)


# -- transcript -------------------------------------------------------------------------------
async def test_transcript_streams_text_into_one_message_per_reply() -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        t = app.query_one(Transcript)
        t.add_user("hi")
        for piece in ("Hello ", "**wor", "ld**"):
            t.append_text(piece)
        t.tool_started("c1", "read", "read a.txt")
        t.append_text("second reply")
        t.end_message()
        await pilot.pause()
        kinds = [type(w) for w in t.children]
        assert kinds == [UserRow, AssistantRow, ToolRow, AssistantRow]
        assert t.children[1].text == "Hello **world**"


async def test_tool_finished_updates_its_started_row() -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        t = app.query_one(Transcript)
        t.tool_started("c1", "write", "write a.txt")
        t.tool_finished("c1", "write", "refused", refused=True, reason="read-only", error=False)
        await pilot.pause()
        (row,) = t.query(ToolRow)
        assert row.refused and row.has_class("-refused") and not row.has_class("-running")


async def test_ctrl_o_toggle_expands_every_tool_row() -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        t = app.query_one(Transcript)
        t.tool_started("c1", "read", "read a")
        t.tool_finished("c1", "read", "\n".join("x" * 10), refused=False, reason=None, error=False)
        await pilot.pause()
        row = t.query_one(ToolRow)
        assert row.collapsible and not row.expanded
        assert t.toggle_expanded() is True
        assert row.expanded
        t.tool_started("c2", "read", "read b")  # new rows follow the current setting
        assert t.query(ToolRow)[-1].expanded


async def test_transcript_prunes_to_a_bounded_widget_count_after_1000_rows() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        t = app.query_one(Transcript)
        for i in range(1000):
            if i % 3 == 0:
                t.add_user(f"prompt {i}")
            elif i % 3 == 1:
                t.tool_started(f"c{i}", "read", f"read file{i}.txt")
                t.tool_finished(f"c{i}", "read", "a\nb\nc\nd\ne\nf", refused=False, reason=None, error=False)
            else:
                t.append_text(f"reply {i}")
                t.end_message()
            if i % 250 == 249:
                await pilot.pause()
                assert len(t.children) <= t.max_rows + 1
        await pilot.pause()
        assert t.rows_added == 1000
        assert len(t.children) <= t.max_rows
        # the newest rows are the ones kept
        assert isinstance(t.children[-1], UserRow) and "prompt 999" in str(t.children[-1].render())
        # and it still scrolls end to end
        t.scroll_home(animate=False)
        await pilot.pause()
        assert t.scroll_y == 0
        t.scroll_end(animate=False)
        await pilot.pause()
        assert t.scroll_y == t.max_scroll_y > 0


# -- prompt -----------------------------------------------------------------------------------
async def test_enter_sends_and_ctrl_j_inserts_a_newline() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await pilot.press("h", "i", "ctrl+j", "y", "o", "enter")
        await pilot.pause()
        assert app.submitted == ["hi\nyo"]
        assert app.query_one(PromptInput).text == ""


async def test_empty_enter_sends_nothing() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await pilot.press("enter", "space", "enter")
        await pilot.pause()
        assert app.submitted == []


async def test_up_recalls_history_when_empty_and_down_walks_back() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("a", "enter", "b", "enter")
        await pilot.press("up")
        assert prompt.text == "b"
        await pilot.press("up")
        assert prompt.text == "a"
        await pilot.press("up")  # stays at the oldest
        assert prompt.text == "a"
        await pilot.press("down")
        assert prompt.text == "b"
        await pilot.press("down")
        assert prompt.text == ""
        # with text typed, ↑ is a cursor move, not a recall
        await pilot.press("x", "up")
        assert prompt.text == "x"


async def test_escape_asks_to_cancel() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await pilot.pause()
        assert app.cancels == 1


def test_elide_left_keeps_the_end_of_a_path() -> None:
    from planview.tui.widgets.chip import elide_left

    assert elide_left("/tmp/demo/greet", 40) == "/tmp/demo/greet"
    assert elide_left("/tmp/planview-demo-abc/greet", 12) == "…o-abc/greet"
    assert elide_left("/tmp/planview-demo-abc/greet", 5) == ""


async def test_transcript_follows_new_rows_until_the_user_scrolls_up() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        t = app.query_one(Transcript)
        for i in range(40):
            t.add_user(f"prompt {i}")
        await pilot.pause()
        assert t.scroll_y == t.max_scroll_y > 0
        t.scroll_relative(y=-10, animate=False)  # the user reads something older
        await pilot.pause()
        where = t.scroll_y
        t.add_user("newest")
        await pilot.pause()
        assert t.scroll_y == where < t.max_scroll_y
        t.scroll_end(animate=False)  # back at the bottom: following again
        await pilot.pause()
        t.add_user("after")
        await pilot.pause()
        assert t.scroll_y == t.max_scroll_y


def test_chip_text_shortens_the_plan_name_not_the_state() -> None:
    plan = "2026-11-30-1229-add-a-shout-option-to-greet.md"
    text = chip_text("execute", plan, approved=True, stale=True, width=38)
    assert text.startswith("⋮ execute · 2026-") and text.endswith("… ✗ stale") and len(text) == 38
    assert chip_text("plan", plan, width=100) == f"⋮ plan · {plan}"
    assert chip_text("execute", plan, approved=True, width=14) == "⋮ execute · … ✓"


async def test_status_bar_keeps_the_stale_mark_on_a_narrow_terminal() -> None:
    from textual.app import App

    from planview.tui.widgets.chip import ModeChip, StatusBar

    class Bar(App[None]):
        def compose(self):
            yield StatusBar(provider="scripted demo agent", project="/tmp/project")

    app = Bar()
    async with app.run_test(size=(40, 5)) as pilot:
        chip = app.query_one(ModeChip)
        chip.show("execute", "2026-11-30-1229-add-a-shout-option-to-greet.md", approved=True, stale=True)
        app.query_one(StatusBar).fit()
        await pilot.pause()
        assert chip.text.endswith("✗ stale")
        assert chip.size.width <= 40
        drawn = "".join(s.text for s in chip.render_lines(chip.content_region.reset_offset))
        assert "✗ stale" in drawn


async def test_status_bar_cuts_the_provider_with_an_ellipsis() -> None:
    # At 80 columns the demo's row read "scripted demo age": cut with no mark.
    from textual.app import App

    from planview.tui.widgets.chip import ModeChip, StatusBar

    class Bar(App[None]):
        def compose(self):
            yield StatusBar(provider="scripted demo agent", project="/tmp/planview-demo-x/greet")

    app = Bar()
    async with app.run_test(size=(80, 5)) as pilot:
        chip = app.query_one(ModeChip)
        chip.show("execute", "2026-12-01-0904-add-a-shout-option-to-greet.md", approved=True)
        app.query_one(StatusBar).fit()
        await pilot.pause()
        provider = app.query_one("#provider")
        drawn = "".join(s.text for s in provider.render_lines(provider.content_region.reset_offset)).strip()
        assert drawn.endswith("…") and drawn.startswith("scripted"), drawn
