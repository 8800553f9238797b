"""`w` on the review screen: the browser page and the terminal review decide once, together."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pytest
from review_link import apost, link_in

from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved, Keep, Refine
from planview.session.conversation import UserMessage
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.review.app import ReviewApp
from planview.tui.review.screen import ReviewScreen

PLAN = "# Cache\n\n## Goal\n\nFaster reads.\n\n## Steps\n\n- [ ] add it\n- [ ] wire it\n"


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The URLs the screen asked the browser to open (no browser is started)."""
    urls: list[str] = []

    def fake_open(target) -> bool:
        urls.append(link_in(target) if isinstance(target, Path) else target)  # what the browser would load
        return True

    monkeypatch.setattr("planview.web.launch.open_in_browser", fake_open)
    return urls


async def wait_for(pilot, predicate: Callable[[], bool], what: str, limit: int = 500) -> None:
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def post(url: str, route: str, body: dict) -> int:
    return (await apost(url, route, body))[0]


def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "2026-01-01-1200-cache.md"
    path.write_text(PLAN, encoding="utf-8")
    return path


def base(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def test_w_then_approve_on_the_page_closes_the_screen_with_the_same_decision(tmp_path, opened):
    (tmp_path / "home" / "plans").mkdir(parents=True)
    path = plan_file(tmp_path / "home" / "plans")  # approvable: the page checks before it says approved
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(opened), "the browser to be asked")
        screen = app.review
        assert "Reviewing in the browser" in screen.notice_text
        assert opened[0] not in screen.notice_text  # the browser's link is shown nowhere (it works once)
        await pilot.press("w")  # asked again: a link of its own, for another browser
        assert "?ticket=" in screen.notice_text and opened[0] not in screen.notice_text
        assert await post(opened[0], "/api/approve", {"base_sha256": base(path), "comments": []}) == 200
        await wait_for(pilot, lambda: app.return_value is not None, "the screen to close")
    assert app.return_value == Approved(path.resolve(), canonical_sha256(PLAN), channel="browser review")
    assert not (tmp_path / "home" / "ledger.jsonl").exists()  # the screen's caller records, not the page


async def test_w_then_save_returns_the_comments_as_a_refinement(tmp_path, opened):
    path = plan_file(tmp_path)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(opened), "the browser to be asked")
        body = {"base_sha256": base(path), "comments": [{"anchor_line": 5, "text": "How much faster?"}]}
        assert await post(opened[0], "/api/feedback", body) == 200
        await wait_for(pilot, lambda: app.return_value is not None, "the screen to close")
    assert isinstance(app.return_value, Refine) and "How much faster?" in app.return_value.text
    assert "Faster reads.\n> [!REVIEW] How much faster?\n" in path.read_text(encoding="utf-8")


async def test_deciding_in_the_terminal_closes_the_page_and_refuses_it(tmp_path, opened):
    path = plan_file(tmp_path)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(opened), "the browser to be asked")
        server = app.review._web
        assert server is not None
        await pilot.press("escape")  # keep planning, in the terminal
        await wait_for(pilot, lambda: app.return_value is not None, "the screen to close")
        decision = await server.wait()
        assert decision.outcome == "closed" and decision.reason == "decided in the terminal"
        try:
            status = await post(opened[0], "/api/approve", {"base_sha256": base(path), "comments": []})
        except aiohttp.ClientConnectionError:
            status = None  # the server is gone: nothing can approve any more
        assert status in (None, 410)
    assert app.return_value == Keep()


async def test_back_on_the_page_keeps_the_terminal_review_open(tmp_path, opened):
    path = plan_file(tmp_path)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(opened), "the browser to be asked")
        screen = app.review
        assert await post(opened[0], "/api/cancel", {}) == 200
        await wait_for(pilot, lambda: screen._web is None, "the page to settle")
        await pilot.pause()
        assert app.return_value is None and isinstance(app.screen, ReviewScreen)
        assert "browser review closed" in screen.notice_text
        await pilot.press("w")  # a second page reuses the same origin (port)
        await wait_for(pilot, lambda: len(opened) == 2, "the second page")
        assert opened[1].split("/?")[0] == opened[0].split("/?")[0]
        assert opened[1] != opened[0]  # with a fresh one-time ticket
        await pilot.press("a", "enter")
        await wait_for(pilot, lambda: app.return_value is not None, "the screen to close")
    assert app.return_value == Approved(path.resolve(), canonical_sha256(PLAN))


async def test_exit_plan_mode_w_and_approve_on_the_page_records_the_browser_channel(project: Path, opened):
    lines = [
        {"tool_calls": [{"name": "write_plan", "arguments": {"title": "Cache", "content": PLAN}}]},
        {"tool_calls": [{"name": "exit_plan_mode", "arguments": {}}]},
        {"text": "carrying it out"},
    ]
    provider = ScriptedProvider(parse_script("\n".join(json.dumps(line) for line in lines)))

    def factory(ui, on_event):
        return Session(project_root=project, provider=provider, ui=ui, on_event=on_event, plan_mode=True)

    app = PlanviewApp(factory, project_root=project)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = app.session_screen
        prompt = screen.prompt
        prompt.load_text("plan a cache")
        prompt.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        plan = app.session.plan_path
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(opened), "the browser to be asked")
        assert await post(opened[0], "/api/approve", {"base_sha256": base(plan), "comments": []}) == 200
        await wait_for(pilot, lambda: app.screen is screen and not screen.busy, "the approved turn")
        assert app.session.mode == "execute"
    events = [json.loads(line) for line in (project / ".planview" / "ledger.jsonl").read_text().splitlines()]
    approved = [e for e in events if e["type"] == "approved"]
    assert len(approved) == 1  # decided once
    assert approved[0]["channel"] == "browser review"
    assert approved[0]["canonical_sha256"] == canonical_sha256(PLAN)


@pytest.mark.parametrize(
    "line, parsed",
    [
        ("/plan review --web", ("review", None, True)),
        ("/plan review --web plans/x.md", ("review", "plans/x.md", True)),
        ("/plan review plans/x.md", ("review", "plans/x.md", False)),
        ("/plan review --website redesign", ("task", None, False)),
    ],
)
def test_plan_review_web_parses(line, parsed):
    from planview.tui.commands import PlanTask, ReviewPlan, parse_command

    command = parse_command(line)
    kind, path, web = parsed
    if kind == "task":
        assert isinstance(command, PlanTask)
    else:
        assert command == ReviewPlan(path, web=web)


async def test_plan_review_web_is_comment_only_and_sends_saved_comments(project: Path, opened):
    lines = [
        {"tool_calls": [{"name": "write_plan", "arguments": {"title": "Cache", "content": PLAN}}]},
        {"text": "written"},
        {"text": "revising"},
    ]
    provider = ScriptedProvider(parse_script("\n".join(json.dumps(line) for line in lines)))

    def factory(ui, on_event):
        return Session(project_root=project, provider=provider, ui=ui, on_event=on_event, plan_mode=True)

    app = PlanviewApp(factory, project_root=project)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = app.session_screen
        for text in ("plan a cache", "/plan review --web"):
            screen.prompt.load_text(text)
            screen.prompt.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: not screen.busy, "the turn")
        await wait_for(pilot, lambda: bool(opened), "the browser to be asked")
        plan = app.session.plan_path
        assert await post(opened[0], "/api/approve", {"base_sha256": base(plan), "comments": []}) == 403
        body = {"base_sha256": base(plan), "comments": [{"anchor_line": 5, "text": "Say how much"}]}
        assert await post(opened[0], "/api/feedback", body) == 200
        await wait_for(pilot, lambda: provider.position == 3 and not screen.busy, "the feedback turn")
        sent = [m.content for m in app.session.conversation if isinstance(m, UserMessage) and not m.kind]
        assert "Say how much" in sent[-1]
        assert app.session.mode == "plan"
    assert "> [!REVIEW] Say how much" in plan.read_text(encoding="utf-8")


TORN = b'{"type": "approved", "seq": 1, "at": "2026-'  # a ledger line cut short (a crash mid-append)


def block_sealing(project: Path) -> None:
    """A file where the sealed artifacts go: the page's check passes, the seal itself then fails
    (as a full disk would), after the page already said approved."""
    artifacts = project / ".planview" / "artifacts"
    if artifacts.is_dir():
        artifacts.rmdir()
    artifacts.write_text("not a folder\n")


async def post_json(url: str, route: str, body: dict) -> tuple[int, dict]:
    return await apost(url, route, body)


async def test_w_approve_on_a_torn_ledger_is_refused_on_the_page_and_the_review_stays(tmp_path, opened):
    """The page used to answer approved (the terminal records later) and the terminal then failed:
    the page now checks first, says why (with the fix), takes its comments back out, and the
    terminal review stays open for another decision."""
    home = tmp_path / "home"
    (home / "plans").mkdir(parents=True)
    path = plan_file(home / "plans")
    before = path.read_bytes()
    (home / "ledger.jsonl").write_bytes(TORN)
    app = ReviewApp(path, home=home, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(opened), "the browser to be asked")
        body = {"base_sha256": base(path), "comments": [{"anchor_line": 5, "text": "How much faster?"}]}
        status, answer = await post_json(opened[0], "/api/approve", body)
        assert status == 422
        from planview.invocation import planview_command

        assert "torn last line" in answer["error"]
        assert f"`{planview_command()} audit --repair`" in answer["error"]  # the fix, as it runs here
        assert "the comments saved with the approval were taken out of the plan again" in answer["error"]
        assert path.read_bytes() == before
        await pilot.pause()
        assert app.return_value is None and app.review._web is not None  # nothing decided; the page is live
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.return_value is not None, "the screen to close")
    assert app.return_value == Keep()


async def test_exit_plan_mode_w_approve_whose_recording_fails_puts_the_plan_back(project: Path, opened):
    """The page saved its comments, then the session could not record the approval (sealing
    failed): nothing was approved, so the comments go too, as on the page's own approve route."""
    lines = [
        {"tool_calls": [{"name": "write_plan", "arguments": {"title": "Cache", "content": PLAN}}]},
        {"tool_calls": [{"name": "exit_plan_mode", "arguments": {}}]},
        {"text": "stopped"},
    ]
    provider = ScriptedProvider(parse_script("\n".join(json.dumps(line) for line in lines)))

    def factory(ui, on_event):
        return Session(project_root=project, provider=provider, ui=ui, on_event=on_event, plan_mode=True)

    app = PlanviewApp(factory, project_root=project)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = app.session_screen
        screen.prompt.load_text("plan a cache")
        screen.prompt.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        plan = app.session.plan_path
        before = plan.read_bytes()
        block_sealing(project)
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(opened), "the browser to be asked")
        body = {"base_sha256": base(plan), "comments": [{"anchor_line": 5, "text": "How much faster?"}]}
        assert await post(opened[0], "/api/approve", body) == 200  # the page's part is done: it hands over
        await wait_for(pilot, lambda: app.screen is screen and not screen.busy, "the turn to end")
        assert app.session.mode == "plan"
        shown = transcript_text(screen)
        assert plan.read_bytes() == before
        assert "the comments saved with the approval were taken out of the plan again" in shown, shown


async def test_plan_review_w_approve_whose_recording_fails_puts_the_plan_back(project: Path, opened):
    """`/plan review`, then `w` and Approve on the page with a comment, and sealing fails: the app
    says the approval was not recorded and the plan holds its bytes from before the page's save."""
    lines = [
        {"tool_calls": [{"name": "write_plan", "arguments": {"title": "Cache", "content": PLAN}}]},
        {"text": "written"},
    ]
    provider = ScriptedProvider(parse_script("\n".join(json.dumps(line) for line in lines)))

    def factory(ui, on_event):
        return Session(project_root=project, provider=provider, ui=ui, on_event=on_event, plan_mode=True)

    app = PlanviewApp(factory, project_root=project)
    async with app.run_test(size=(110, 34)) as pilot:
        screen = app.session_screen
        screen.prompt.load_text("plan a cache")
        screen.prompt.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: not screen.busy and app.session.plan_path is not None, "the plan")
        plan = app.session.plan_path
        before = plan.read_bytes()
        block_sealing(project)
        screen.prompt.load_text("/plan review")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review screen")
        await pilot.press("w")
        await wait_for(pilot, lambda: bool(opened), "the browser to be asked")
        body = {"base_sha256": base(plan), "comments": [{"anchor_line": 5, "text": "How much faster?"}]}
        assert await post(opened[0], "/api/approve", body) == 200
        await wait_for(pilot, lambda: "Could not approve" in transcript_text(screen), "the refusal")
        shown = transcript_text(screen)
        assert plan.read_bytes() == before
        assert "cannot seal the plan" in shown  # the cause
        assert "the comments saved with the approval were taken out of the plan again" in shown
        assert app.session.mode == "plan"


def transcript_text(screen) -> str:
    """What the transcript says: its notices and the tools' results."""
    from planview.tui.widgets.transcript import NoticeRow, ToolRow

    notices = [row.render().plain for row in screen.transcript.query(NoticeRow)]
    results = [row.result or "" for row in screen.transcript.query(ToolRow)]
    return "\n".join(notices + results)
