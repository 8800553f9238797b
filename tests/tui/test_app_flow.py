"""The session app end to end with real scripted sessions (Pilot; assert state, not pixels)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from planview.demo.agent import DEMO_TASK, NOT_APPROVED, demo_provider
from planview.demo.sample_project import prepare_demo_project
from planview.session.conversation import UserMessage
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.confirm import ConfirmScreen
from planview.tui.review.screen import ReviewScreen
from planview.tui.widgets.transcript import NoticeRow, ToolRow, UserRow

SIZE = (110, 34)


async def wait_for(pilot, predicate: Callable[[], bool], what: str, limit: int = 400) -> None:
    """Let the app run until `predicate` holds (bounded by a number of pauses, not by wall time)."""
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def scripted_app(root: Path, lines: list[dict], **session_kwargs) -> tuple[PlanviewApp, ScriptedProvider]:
    provider = ScriptedProvider(parse_script("\n".join(json.dumps(line) for line in lines)))

    def factory(ui, on_event):
        return Session(project_root=root, provider=provider, ui=ui, on_event=on_event, **session_kwargs)

    return PlanviewApp(factory, project_root=root), provider


def user_texts(app: PlanviewApp) -> list[str]:
    """What the user sent the model (the runtime's hidden plan-mode notes are left out)."""
    return [m.content for m in app.session.conversation if isinstance(m, UserMessage) and not m.kind]


async def submit(pilot, app: PlanviewApp, text: str) -> None:
    prompt = app.session_screen.prompt
    prompt.load_text(text)
    prompt.focus()
    await pilot.press("enter")


@pytest.fixture(autouse=True)
def _no_planview_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)


# -- the whole demo -----------------------------------------------------------------------------
async def test_demo_flow_plan_refuse_review_approve_execute(tmp_path: Path) -> None:
    root = prepare_demo_project(tmp_path)
    # the demo's pacing delays are for people; the test replays the same turns without them
    provider = demo_provider(paced=False)
    assert len(provider.turns) == 11 and not any(t.delay for t in provider.turns)

    def factory(ui, on_event):
        return Session(project_root=root, provider=provider, ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=root, prompt_text=DEMO_TASK)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        assert screen.prompt.text == DEMO_TASK
        assert screen.chip.text == "⋮ execute"
        await pilot.press("enter")  # "/plan add a --shout option…": plan mode on, task sent

        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        # while planning: the chip names the plan, the write and the commit were refused, visibly
        assert screen.chip.text.startswith("⋮ plan · ") and screen.chip.text.endswith(
            "-add-a-shout-option-to-greet.md"
        )
        rows = list(screen.transcript.query(ToolRow))
        refused = {r.headline: r for r in rows if r.refused}
        assert set(refused) == {"write greet.py", "bash git commit -am 'Add --shout'"}
        assert all(r.reason for r in refused.values())
        assert "plan" in refused["write greet.py"].reason.lower()
        assert not (root / "greet.py").read_text().startswith("# shout")
        assert screen.todos.todos == ()

        await pilot.press("a", "enter")  # approve & run (Enter confirms)
        await wait_for(pilot, lambda: app.screen is screen and not screen.busy, "the steps to run")
        await pilot.pause()

        # approved: the chip flips, todos are seeded and ticked, the plan file mirrors them
        plan = app.session.plan_path
        assert screen.chip.text == f"⋮ execute · {plan.name} ✓"
        assert screen.chip.has_class("-approved")
        assert screen.todos.progress == (3, 3)
        assert plan.read_text().count("- [x]") == 3
        # real edits in the temporary project
        assert "shout" in (root / "greet.py").read_text()
        out = subprocess.run(
            ["python3", "greet.py", "Ada", "--shout"], cwd=root, capture_output=True, text=True
        )
        assert out.stdout.strip() == "HELLO, ADA!"
        diff = subprocess.run(["git", "diff", "--stat"], cwd=root, capture_output=True, text=True).stdout
        assert "greet.py" in diff and "README.md" in diff and "tests/test_greet.py" in diff
        t = screen.transcript  # it followed the work to the newest row, even while the review was open
        assert t.max_scroll_y > 0 and t.scroll_y == t.max_scroll_y
        executed = list(screen.transcript.query(ToolRow))[len(rows) :]
        assert [r.tool_name for r in executed].count("set_plan_steps") == 3
        assert not [r.headline for r in executed if r.error or r.refused]

        # a word of the plan changes after approval: the chip says the approval is stale
        plan.write_text(plan.read_text().replace("prints", "outputs", 1))
        screen._check_stale()
        await pilot.pause()
        assert screen.chip.text == f"⋮ execute · {plan.name} ✗ stale"
        assert screen.chip.has_class("-stale")


@pytest.mark.usefixtures("a_terminal")
async def test_demo_command_prepares_a_project_and_suggests_the_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from planview import cli

    apps: list[PlanviewApp] = []
    monkeypatch.setattr(PlanviewApp, "run", lambda self, *a, **k: apps.append(self))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)  # run_demo changes directory; restored after the test
    assert cli.main(["demo"]) == 0
    (app,) = apps
    root = app.project_root
    assert (root / "greet.py").is_file() and (root / ".git").is_dir()
    assert app.prompt_text == DEMO_TASK
    from rich.console import Console

    console = Console(width=200, record=True)
    console.print(*app.welcome)
    shown = console.export_text()
    assert str(root) in shown  # the project path is on screen
    assert all(key in shown for key in ("n / p", "r ", "a "))  # what to try in the review
    assert app.session.mode == "execute" and app.session.project_root == root


@pytest.mark.usefixtures("a_terminal")
def test_root_flags_start_in_plan_mode_with_a_script(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from planview import cli

    script = project / "s.jsonl"
    script.write_text('{"text": "hi"}\n')
    apps: list[PlanviewApp] = []
    monkeypatch.setattr(PlanviewApp, "run", lambda self, *a, **k: apps.append(self))
    assert cli.main(["--plan", "--script", str(script)]) == 0
    (app,) = apps
    assert app.session.mode == "plan"
    assert "scripted" in app.session.provider_label


# -- /plan and Ctrl+Alt+P -----------------------------------------------------------------------
async def test_slash_plan_toggles_and_plan_task_never_turns_it_off(project: Path) -> None:
    app, provider = scripted_app(project, [{"text": "first"}, {"text": "second"}])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await submit(pilot, app, "/plan")
        await pilot.pause()
        assert app.session.mode == "plan" and screen.chip.text == "⋮ plan"
        await submit(pilot, app, "/plan")
        await pilot.pause()
        assert app.session.mode == "execute" and screen.chip.text == "⋮ execute"

        # /plan <task> enters plan mode and sends the task
        await submit(pilot, app, "/plan add rate limiting")
        await wait_for(pilot, lambda: not screen.busy and provider.position == 1, "the first turn")
        assert app.session.mode == "plan"
        assert user_texts(app)[-1] == "add rate limiting"
        # ... and when plan mode is already on, it stays on
        await submit(pilot, app, "/plan review the auth flow")
        await wait_for(pilot, lambda: not screen.busy and provider.position == 2, "the second turn")
        assert app.session.mode == "plan"
        assert user_texts(app)[-1] == "review the auth flow"
        assert (
            [r for r in screen.transcript.query(UserRow)][-1]
            .render()
            .plain.endswith("/plan review the auth flow")
        )


async def test_ctrl_alt_p_toggles_plan_mode(project: Path) -> None:
    app, _ = scripted_app(project, [])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+alt+p")
        await pilot.pause()
        assert app.session.mode == "plan" and app.session_screen.chip.text == "⋮ plan"
        await pilot.press("ctrl+alt+p")
        await pilot.pause()
        assert app.session.mode == "execute"
        # the same chord as a kitty-protocol terminal reports it (modifiers sorted)
        await pilot.press("alt+ctrl+p")
        await pilot.pause()
        assert app.session.mode == "plan"


async def test_palette_toggles_plan_mode(project: Path) -> None:
    app, _ = scripted_app(project, [])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"toggle plan")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.mode == "plan", "plan mode from the palette")
        assert app.session_screen.chip.text == "⋮ plan"


async def test_plans_and_plan_review_without_a_plan(project: Path) -> None:
    app, _ = scripted_app(project, [])
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, app, "/plan review")
        await pilot.pause()
        notices = [n.render().plain for n in app.session_screen.transcript.query(NoticeRow)]
        assert any("No plan yet" in n for n in notices)
        await submit(pilot, app, "/plans")
        await pilot.pause()
        notices = [n.render().plain for n in app.session_screen.transcript.query(NoticeRow)]
        assert sum("No plan" in n for n in notices) == 2


def picked_listing(app: PlanviewApp) -> str:
    """What /plans's list shows: its heading and every plan's row."""
    from textual.widgets import OptionList, Static

    from planview.tui.plans_picker import PlansPicker

    picker = app.screen
    assert isinstance(picker, PlansPicker), picker
    heading = str(picker.query(Static).first().render())
    return "\n".join([heading, *(str(o.prompt) for o in picker.query_one(OptionList).options)])


async def test_plans_lists_and_review_opens_the_newest(project: Path) -> None:
    plan_text = "# Tidy\n\n## Steps\n\n- [ ] one\n- [x] two\n"
    app, _ = scripted_app(
        project,
        [{"tool_calls": [{"name": "write_plan", "arguments": {"title": "Tidy", "content": plan_text}}]}],
        plan_mode=True,
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await submit(pilot, app, "plan it")
        await wait_for(pilot, lambda: not screen.busy and app.session.plan_path is not None, "the plan")
        await submit(pilot, app, "/plans")
        await pilot.pause()
        listing = picked_listing(app)
        assert "Plans (1)" in listing and "Tidy" in listing and "1/2 steps" in listing
        await pilot.press("escape")  # the list closes; nothing was picked
        await pilot.pause()
        await submit(pilot, app, "/plan review")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        assert app.screen.plan_path == app.session.plan_path
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back to the session")
        assert app.session.mode == "plan"


async def test_plans_marks_a_plan_it_cannot_read(project: Path) -> None:
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    (plans / "2026-01-01-0000-bin.md").write_bytes(b"# T\n\xff\n")
    app, _ = scripted_app(project, [])
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, app, "/plans")
        await pilot.pause()
        listing = picked_listing(app)
        assert "unreadable: not UTF-8 text (byte 0xff at offset 4)" in listing


async def test_plans_lists_a_link_and_a_fifo_without_opening_them(project: Path, tmp_path: Path) -> None:
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    (plans / "2026-01-01-0000-link.md").symlink_to(tmp_path / "elsewhere.md")
    os.mkfifo(plans / "2026-01-01-0001-pipe.md")  # read blocking, /plans would hang the app
    app, _ = scripted_app(project, [])
    async with app.run_test(size=(200, 30)) as pilot:
        await submit(pilot, app, "/plans")
        await pilot.pause()
        listing = picked_listing(app)
        assert "Plans (2)" in listing
        assert "unreadable: a FIFO (named pipe), not a plan file; move it aside" in listing
        assert "which does not exist; remove the link" in listing
        # named as the link in the plans folder (as the pipe is), not by where it points
        assert ".planview/plans/2026-01-01-0000-link.md" in listing
        assert ".planview/plans/2026-01-01-0001-pipe.md" in listing


# -- enter_plan_mode confirmation -----------------------------------------------------------------
@pytest.mark.parametrize(("key", "mode"), [("y", "plan"), ("n", "execute")])
async def test_enter_plan_mode_asks_the_user(project: Path, key: str, mode: str) -> None:
    app, _ = scripted_app(project, [{"tool_calls": [{"name": "enter_plan_mode"}]}, {"text": "ok"}])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await submit(pilot, app, "big refactor")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        await pilot.press(key)
        await wait_for(pilot, lambda: not screen.busy, "the turn to end")
        await pilot.pause()
        assert app.session.mode == mode
        assert screen.chip.text == f"⋮ {mode}"
        (row,) = [r for r in screen.transcript.query(ToolRow) if r.tool_name == "enter_plan_mode"]
        assert row.result is not None


# -- cancel ---------------------------------------------------------------------------------------
async def test_escape_cancels_the_running_turn(project: Path) -> None:
    app, provider = scripted_app(project, [{"delay": 60, "text": "never shown"}, {"text": "after"}])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await submit(pilot, app, "do something slow")
        await wait_for(pilot, lambda: screen.busy, "the turn to start")
        assert screen.query_one("#busy").busy
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the cancel")
        await pilot.pause()
        notices = [n.render().plain for n in screen.transcript.query(NoticeRow)]
        assert "Turn cancelled." in notices
        assert not app.session.busy
        # the session is usable again
        await submit(pilot, app, "again")
        await wait_for(pilot, lambda: not screen.busy and provider.position == 2, "the next turn")
        assert "after" in app.session_screen.transcript.children[-1].text


async def test_prompt_while_busy_is_kept_not_lost(project: Path) -> None:
    app, _ = scripted_app(project, [{"delay": 60, "text": "slow"}])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await submit(pilot, app, "slow one")
        await wait_for(pilot, lambda: screen.busy, "the turn to start")
        await submit(pilot, app, "second thought")
        await pilot.pause()
        assert screen.prompt.text == "second thought"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, "the cancel")


async def test_approve_from_plan_review_hands_over_to_the_agent(project: Path) -> None:
    plan_text = "# Tidy\n\n## Steps\n\n- [ ] one\n- [ ] two\n"
    app, provider = scripted_app(
        project,
        [
            {"tool_calls": [{"name": "write_plan", "arguments": {"title": "Tidy", "content": plan_text}}]},
            {"text": "written"},
            {"text": "on it"},
        ],
        plan_mode=True,
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await submit(pilot, app, "plan it")
        await wait_for(pilot, lambda: not screen.busy and provider.position == 2, "the plan")
        await submit(pilot, app, "/plan review")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        await pilot.press("a", "enter")
        await wait_for(
            pilot,
            lambda: app.screen is screen and provider.position == 3 and not screen.busy,
            "the hand-over turn",
        )
        assert app.session.mode == "execute" and app.session.approval is not None
        assert screen.chip.text.endswith(" ✓")
        assert [t.text for t in screen.todos.todos] == ["one", "two"]
        assert "is approved" in user_texts(app)[-1]
        # Pressing `a` again on the same, unchanged plan says so instead of a new "carry it out" turn.
        sent, seq = len(user_texts(app)), app.session.approval.seq
        await submit(pilot, app, "/plan review")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen again")
        await pilot.press("a", "enter")
        await wait_for(pilot, lambda: app.screen is screen, "back on the session screen")
        await pilot.pause()
        assert len(user_texts(app)) == sent and provider.position == 3 and not screen.busy
        assert app.session.approval.seq == seq
        notices = [n.render().plain for n in screen.transcript.query(NoticeRow)]
        assert any("already approved and unchanged" in n for n in notices), notices
        ledger = (project / ".planview" / "ledger.jsonl").read_text().splitlines()
        assert [json.loads(line)["channel"] for line in ledger] == ["review screen"]


async def test_ctrl_c_clears_the_prompt_then_quits(project: Path) -> None:
    app, _ = scripted_app(project, [])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await pilot.press("h", "i")
        assert screen.prompt.text == "hi"
        await pilot.press("ctrl+c")
        assert screen.prompt.text == ""
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_demo_keep_planning_brings_the_same_plan_back(tmp_path: Path) -> None:
    root = prepare_demo_project(tmp_path)
    provider = demo_provider(paced=False)

    def factory(ui, on_event):
        return Session(project_root=root, provider=provider, ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=root, prompt_text=DEMO_TASK)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        await pilot.press("escape")  # keep planning
        await wait_for(pilot, lambda: app.screen is screen and not screen.busy, "the turn to end")
        await pilot.pause()
        assert app.session.mode == "plan"
        assert screen.transcript.children[-1].text == NOT_APPROVED
        assert "shout" not in (root / "greet.py").read_text()

        await submit(pilot, app, "ok, show it again")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review, again")
        await pilot.press("a", "enter")
        await wait_for(pilot, lambda: app.screen is screen and not screen.busy, "the steps to run")
        await pilot.pause()
        assert screen.todos.progress == (3, 3)
        assert "shout" in (root / "greet.py").read_text()


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (200, 50)])
async def test_demo_review_scrolls_and_a_refinement_marks_two_sections(tmp_path: Path, size) -> None:
    root = prepare_demo_project(tmp_path)
    provider = demo_provider(paced=False)

    def factory(ui, on_event):
        return Session(project_root=root, provider=provider, ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=root, prompt_text=DEMO_TASK)
    async with app.run_test(size=size) as pilot:
        screen = app.session_screen
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        review = app.screen
        await pilot.pause()
        assert review.body.overflowing, "the demo plan must be long enough to scroll"
        assert review.summary_text == ""  # a first review marks nothing
        await pilot.press("n", "n")
        assert review.current_section_index == 2  # the cursor, shown (scrolled to only if need be)
        start, _end = review.body.section_line_range(2)
        assert review.body.top_line <= start < review.body.top_line + review.body.viewport_height

        await pilot.press("r")
        for key in "what about --times 0?":
            await pilot.press({" ": "space", "?": "question_mark", "-": "minus"}.get(key, key))
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ReviewScreen) and app.screen is not review, "re-review"
        )
        again = app.screen
        await pilot.pause()
        titles = [s.title for s in again.document.sections]
        changed = sorted(titles[i] for i in again.body.changed)
        assert changed == ["Approach", "Verification"]
        assert again.summary_text == f"2 of {len(titles)} sections changed since your last review"
        assert app.session.mode == "plan" and app.session.plan_path == review.plan_path  # the same file
        feedback = [m for m in app.session.conversation if getattr(m, "name", None) == "exit_plan_mode"][
            0
        ].content
        assert "what about --times 0?" in feedback
        # The re-review opens at its first changed section.
        assert titles[again.current_section_index] == "Approach"

        await pilot.press("a", "enter")
        await wait_for(pilot, lambda: app.screen is screen and not screen.busy, "the steps to run")
        await pilot.pause()
        assert screen.todos.progress == (3, 3)
        assert "--times 0" in app.session.plan_path.read_text()


async def test_demo_second_refinement_is_declined_and_the_plan_comes_back(tmp_path: Path) -> None:
    root = prepare_demo_project(tmp_path)
    provider = demo_provider(paced=False)

    def factory(ui, on_event):
        return Session(project_root=root, provider=provider, ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=root, prompt_text=DEMO_TASK)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await pilot.press("enter")
        for round in range(2):
            await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), f"review {round + 1}")
            await pilot.press("r", "x", "enter")
        await wait_for(pilot, lambda: app.screen is screen and not screen.busy, "the turn to end")
        assert screen.transcript.children[-1].text == NOT_APPROVED
        revised = app.session.plan_path.read_text()
        await submit(pilot, app, "show it again")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review, again")
        assert app.screen.text == revised
        await pilot.press("a", "enter")
        await wait_for(pilot, lambda: app.screen is screen and not screen.busy, "the steps to run")
        await pilot.pause()
        assert screen.todos.progress == (3, 3)


async def test_quitting_mid_turn_is_clean(project: Path) -> None:
    app, _ = scripted_app(
        project, [{"text": "partial", "tool_calls": [{"name": "ls"}]}, {"delay": 60, "text": "x"}]
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await submit(pilot, app, "work")
        await wait_for(pilot, lambda: screen.busy and app.session.busy, "the turn to start")
        await pilot.press("ctrl+q")
        await pilot.pause()
    # run_test re-raises any exception from the app; reaching here means the exit was clean
    assert app.return_code == 0
    assert not app.session.busy


async def test_toggle_adds_one_note_and_palette_lists_plans(project: Path) -> None:
    app, _ = scripted_app(project, [])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.session_screen
        await pilot.press("ctrl+alt+p")
        await pilot.pause()
        notes = [n.render().plain for n in screen.transcript.query(NoticeRow)]
        assert notes == ["⋮ plan mode on — the agent can only read; the one thing it may write is its plan"]
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"list plans")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(screen.transcript.query(NoticeRow)) == 2, "the plan listing")
        assert "No plans yet" in screen.transcript.query(NoticeRow)[-1].render().plain


async def test_a_provider_error_is_shown_once(tmp_path: Path) -> None:
    from planview.session.providers.base import ProviderError

    class Unreachable(ScriptedProvider):
        async def stream(self, request):  # type: ignore[override]
            raise ProviderError("cannot reach http://127.0.0.1:9/v1 (connection refused); start the server")
            yield  # pragma: no cover - an async generator

    provider = Unreachable(())

    def factory(ui, on_event):
        return Session(project_root=tmp_path, provider=provider, ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, app, "hello")

        def errors() -> list[str]:
            rows = app.session_screen.transcript.query(NoticeRow)
            texts = [str(getattr(r, "content", None) or getattr(r, "renderable", "")) for r in rows]
            return [text for text in texts if "cannot reach" in text]

        await wait_for(pilot, lambda: bool(errors()), "the error notice")
        await pilot.pause(0.1)
        assert len(errors()) == 1
