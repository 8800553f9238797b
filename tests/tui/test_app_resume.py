"""Resume shows the saved conversation; key binding overrides from config apply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planview import cli
from planview.session.conversation import UserMessage
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.widgets.transcript import AssistantRow, NoticeRow, ToolRow, UserRow, _mark


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))


def provider(lines: list[dict]) -> ScriptedProvider:
    return ScriptedProvider(parse_script("\n".join(json.dumps(line) for line in lines)))


async def test_resumed_session_shows_its_conversation(project: Path) -> None:
    first = Session(
        project_root=project,
        provider=provider(
            [
                {"text": "Looking.", "tool_calls": [{"name": "read", "arguments": {"path": "README.md"}}]},
                {"text": "It is a sample project."},
            ]
        ),
    )
    await first.send("what is this?")

    def factory(ui, on_event):
        return Session.resume(None, project_root=project, provider=provider([]), ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=project)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        t = app.session_screen.transcript
        assert [r.render().plain for r in t.query(UserRow)] == ["› what is this?"]
        (tool,) = t.query(ToolRow)
        assert tool.headline == "read README.md" and "sample project" in tool.result
        assert [r.text for r in t.query(AssistantRow)] == ["Looking.", "It is a sample project."]
        assert any(n.render().plain.startswith(f"Resumed session {first.id}") for n in t.query(NoticeRow))


@pytest.mark.usefixtures("a_terminal")
def test_resume_flag_restores_the_newest_session(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    saved = Session(project_root=project, provider=provider([{"text": "hi"}]), plan_mode=True)
    asyncio.run(saved.send("plan something"))
    script = project / "s.jsonl"
    script.write_text("")
    apps: list[PlanviewApp] = []
    monkeypatch.setattr(PlanviewApp, "run", lambda self, *a, **k: apps.append(self))
    assert cli.main(["--resume", "--script", str(script)]) == 0
    (app,) = apps
    assert app.session.id == saved.id
    assert app.session.mode == "plan"


def test_resume_without_sessions_is_one_clear_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = project / "s.jsonl"
    script.write_text("")
    assert cli.main(["--resume", "--script", str(script)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("planview: ") and len(err.splitlines()) == 1


async def test_keymap_overrides_rebind_plan_mode(project: Path) -> None:
    def factory(ui, on_event):
        return Session(project_root=project, provider=provider([]), ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=project, keymap={"plan.toggle": "f2"})
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        assert app.session.mode == "plan"
        await pilot.press("ctrl+alt+p")  # the default key is replaced, not added to
        await pilot.pause()
        assert app.session.mode == "plan"


async def test_outside_approval_is_told_to_the_agent_with_the_next_message(project: Path) -> None:
    plan_text = "# Tidy\n\n## Steps\n\n- [ ] one\n"
    first = Session(
        project_root=project,
        plan_mode=True,
        provider=provider(
            [
                {
                    "tool_calls": [
                        {"name": "write_plan", "arguments": {"title": "Tidy", "content": plan_text}}
                    ]
                },
            ]
        ),
    )
    await first.send("plan it")
    first.approvals.approve(first.plan_path, approver="Ada", channel="test")  # as `planview approve` would

    script = provider([{"text": "on it"}])

    def factory(ui, on_event):
        return Session.resume(None, project_root=project, provider=script, ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=project)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.session_screen
        assert app.session.resume_notice
        assert screen.chip.text.endswith(" ✓")
        assert any("approved outside" in n.render().plain for n in screen.transcript.query(NoticeRow))
        screen.prompt.load_text("go")
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.02)
            if script.position == 1 and not screen.busy:
                break
        sent = [m.content for m in app.session.conversation if isinstance(m, UserMessage) and not m.kind]
        notice = app.session.resume_notice
        assert notice is not None and sent[-1].startswith(notice.for_model) and sent[-1].endswith("\n\ngo")


async def test_theme_from_config_applies_and_an_unknown_one_is_named(project: Path) -> None:
    def factory(ui, on_event):
        return Session(project_root=project, provider=provider([]), ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=project, theme="nord")
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "nord"
    app = PlanviewApp(factory, project_root=project, theme="no-such-theme")
    async with app.run_test() as pilot:
        await pilot.pause()
        assert any("no-such-theme" in str(n.message) for n in app._notifications)


async def test_a_refused_call_replays_as_refused_and_a_changed_plan_is_named(project: Path) -> None:
    # The reported bug: after --resume a refused `write` showed as `✓ write x.txt`.
    from planview.approval.approvals import Approvals
    from planview.plan.store import PlanStore

    plan = PlanStore.for_cwd().write("Hello", "# Hello\n\n## Goal\n\nSay hi.\n\n## Steps\n\n- [ ] a\n").path
    Approvals(project / ".planview", project).approve(plan, channel="test")
    first = Session(
        project_root=project,
        provider=provider(
            [
                {"tool_calls": [{"name": "write", "arguments": {"path": "x.txt", "content": "x"}}]},
                {"text": "refused, as expected"},
            ]
        ),
        plan_mode=True,
    )
    first.note_plan_path(plan)
    await first.send("try a write while planning")
    first.leave_plan_mode()  # the person's toggle: pinned to the current approval
    assert first.approved
    plan.write_text(plan.read_text().replace("Say hi.", "Say hello."))  # a word of the Goal

    def factory(ui, on_event):
        return Session.resume(None, project_root=project, provider=provider([]), ui=ui, on_event=on_event)

    app = PlanviewApp(factory, project_root=project)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        t = app.session_screen.transcript
        (tool,) = t.query(ToolRow)
        assert tool.headline == "write x.txt" and tool.refused and tool.error
        assert _mark(tool.result, tool.refused, tool.error)[0] == "✗"
        notices = [n.render().plain for n in t.query(NoticeRow)]
        assert any("changed sections: Goal" in n and "plan mode" in n for n in notices), notices
        assert app.session.mode == "plan" and not app.session.approved
    revoked = [
        json.loads(line)
        for line in (project / ".planview" / "ledger.jsonl").read_text().splitlines()
        if '"revoked"' in line
    ]
    assert len(revoked) == 1 and revoked[0]["changed_sections"] == ["Goal"]
