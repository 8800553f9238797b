"""`planview review PATH [--json]`: exit codes and the JSON line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview import cli
from planview.commands import review as review_cmd
from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved, Keep, Refine
from planview.tui.review.app import ReviewApp

PLAN = "# Ship it\n\n## Steps\n\n- [ ] one\n- [x] two\n"


@pytest.fixture
def plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLANVIEW_HOME", str(tmp_path / "home"))
    path = tmp_path / "home" / "plans" / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_text(PLAN, encoding="utf-8")
    return path


def run_with(monkeypatch: pytest.MonkeyPatch, decision, argv: list[str], offered: list | None = None) -> int:
    """Run the CLI with the screen replaced by `decision`; `offered` collects `not_approvable`."""
    seen: list[Path] = []

    def fake_open(path: Path, home: Path | None, *, not_approvable: str | None = None):
        seen.append(path)
        if offered is not None:
            offered.append(not_approvable)
        return decision(path) if callable(decision) else decision

    monkeypatch.setattr(review_cmd, "open_review", fake_open)
    code = cli.main(argv)
    assert seen, "the review app was not opened"
    return code


def test_approved_exits_0_and_prints_json(plan: Path, monkeypatch, capsys) -> None:
    code = run_with(
        monkeypatch, lambda p: Approved(p, canonical_sha256(PLAN)), ["review", str(plan), "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    approval = out.pop("approval")
    assert out == {
        "decision": "approve",
        "feedback": None,
        "plan": str(plan.resolve()),
        "sha256": canonical_sha256(PLAN),
        "note": None,
    }
    assert approval["channel"] == "review screen (planview review)" and approval["seq"] == 1
    assert approval["canonical_sha256"] == canonical_sha256(PLAN)


def test_the_approval_note_reaches_the_json_and_the_ledger_event(plan: Path, monkeypatch, capsys) -> None:
    note = "ship it behind the flag first"
    code = run_with(
        monkeypatch, lambda p: Approved(p, canonical_sha256(PLAN), note=note), ["review", str(plan), "--json"]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out)["note"] == note
    ledger = [json.loads(line) for line in (plan.parent.parent / "ledger.jsonl").read_text().splitlines()]
    assert ledger[-1]["type"] == "approved" and ledger[-1]["note"] == note


def test_approve_records_exactly_as_planview_approve_does(plan: Path, monkeypatch, capsys) -> None:
    # The reported bug: `a` exited 0, printed nothing and recorded nothing; status said "not approved".
    code = run_with(monkeypatch, lambda p: Approved(p, canonical_sha256(PLAN)), ["review", str(plan)])
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("artifact:") and lines[1].startswith("sha256:")
    assert "channel:review screen (planview review)" in lines
    assert cli.main(["status", str(plan)]) == 0
    status = capsys.readouterr().out
    assert status.startswith("approved:") and "via review screen (planview review)" in status
    ledger = [json.loads(line) for line in (plan.parent.parent / "ledger.jsonl").read_text().splitlines()]
    assert [(e["type"], e["channel"]) for e in ledger] == [("approved", "review screen (planview review)")]
    # Reviewing and approving the same text again records nothing new and says so.
    assert run_with(monkeypatch, lambda p: Approved(p, canonical_sha256(PLAN)), ["review", str(plan)]) == 0
    assert "already approved" in capsys.readouterr().err
    assert len((plan.parent.parent / "ledger.jsonl").read_text().splitlines()) == 1


def test_approving_a_plan_changed_since_it_was_shown_records_nothing(plan: Path, monkeypatch, capsys) -> None:
    shown = canonical_sha256(PLAN)

    def edit_while_open(p: Path) -> Approved:
        p.write_text(PLAN.replace("one", "one, and delete prod"), encoding="utf-8")
        return Approved(p, shown)

    assert run_with(monkeypatch, edit_while_open, ["review", str(plan)]) == 2
    assert "changed after it was shown" in capsys.readouterr().err
    assert not (plan.parent.parent / "ledger.jsonl").exists()


def test_approving_a_plan_outside_the_plans_folder_is_a_clear_error(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    monkeypatch.setenv("PLANVIEW_HOME", str(tmp_path / "home"))
    loose = tmp_path / "loose.md"
    loose.write_text(PLAN, encoding="utf-8")
    offered: list = []
    decision = lambda p: Approved(p, canonical_sha256(PLAN))  # noqa: E731
    assert run_with(monkeypatch, decision, ["review", str(loose)], offered) == 2
    assert "only plans saved in the plans folder can be approved" in capsys.readouterr().err
    # the screen was told, so it never offered the approval that could only fail
    assert offered[0] is not None and "copy it into" in offered[0] and "approve the copy" in offered[0]
    offered.clear()
    inside = tmp_path / "home" / "plans" / "inside.md"
    inside.parent.mkdir(parents=True)
    inside.write_text(PLAN, encoding="utf-8")
    assert run_with(monkeypatch, Keep(), ["review", str(inside)], offered) == 1
    assert offered == [None]


async def test_the_screen_does_not_offer_an_approval_that_can_only_fail(tmp_path: Path, monkeypatch) -> None:
    """`planview review plans/<sample>.md` (the help's own example): `a` used to close the screen and
    exit 2 with the refusal; now the footer has no `a`, `a` says why and the screen stays open."""
    urls: list[str] = []
    monkeypatch.setattr("planview.web.launch.open_in_browser", lambda url: urls.append(url) or True)
    loose = tmp_path / "loose.md"
    loose.write_text(PLAN, encoding="utf-8")
    why = "plan path must be inside .planview/plans; only plans saved in the plans folder can be approved"
    app = ReviewApp(loose, home=tmp_path / "home", watch=False, not_approvable=why)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.review
        assert "approve" not in screen.hints_text and "Esc keep" in screen.hints_text
        await pilot.press("a")
        await pilot.pause()
        assert app.return_value is None  # still open
        assert screen.notice_text.startswith("Cannot approve here: plan path must be inside")
        await pilot.press("w")  # the browser page is comment-only too
        for _ in range(300):
            if screen._web is not None:
                break
            await pilot.pause(0.02)
        assert screen._web is not None and screen._web.approve is False
        await pilot.press("escape")
        for _ in range(300):
            if app.return_value is not None:
                break
            await pilot.pause(0.02)
    assert app.return_value == Keep()


def test_refine_exits_1_with_feedback(plan: Path, monkeypatch, capsys) -> None:
    code = run_with(monkeypatch, Refine("split step one"), ["review", str(plan), "--json"])
    assert code == 1
    out = json.loads(capsys.readouterr().out)
    assert out["decision"] == "refine" and out["feedback"] == "split step one"
    assert out["sha256"] == canonical_sha256(PLAN) and out["plan"] == str(plan.resolve())


def test_keep_exits_1_and_says_what_was_decided(plan: Path, monkeypatch, capsys) -> None:
    assert run_with(monkeypatch, Keep(), ["review", str(plan)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("keep:") and "not approved; nothing recorded" in out
    assert not (plan.parent.parent / "ledger.jsonl").exists()


def test_refine_without_json_prints_the_feedback(plan: Path, monkeypatch, capsys) -> None:
    # The reported bug: refine without --json exited 1 and the feedback was printed nowhere.
    assert run_with(monkeypatch, Refine("split step one\x1b[2J"), ["review", str(plan)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("refine:") and "split step one" in out and "\x1b" not in out


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("missing.md", None, "not found"),
        ("notes.txt", "# x\n", "not a Markdown plan"),
        ("binary.md", b"\xff\xfe\x00", "UTF-8"),
        ("folder.md", "dir", "folder"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, monkeypatch, capsys, name, content, needle) -> None:
    path = tmp_path / name
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    monkeypatch.setattr(review_cmd, "open_review", lambda *a: pytest.fail("opened the app on bad input"))
    assert cli.main(["review", str(path)]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_file_in_a_real_process(tmp_path: Path) -> None:
    env = {**os.environ, "PLANVIEW_HOME": str(tmp_path / "home")}
    result = subprocess.run(
        [sys.executable, "-m", "planview", "review", str(tmp_path / "gone.md"), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert (
        result.stderr.count("\n") == 1 and "not found" in result.stderr and "Traceback" not in result.stderr
    )


def test_not_importing_textual_for_bad_input(tmp_path: Path) -> None:
    code = (
        "import sys; from planview import cli\n"
        f"rc = cli.main(['review', {str(tmp_path / 'x.txt')!r}])\n"
        "print(rc, 'textual' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["2", "False"]


async def test_review_app_headless_decides_for_the_cli(plan: Path, tmp_path: Path) -> None:
    """The real app the handler runs: approving returns the decision `run()` hands back."""
    app = ReviewApp(plan, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("a", "enter")
        await pilot.pause()
    assert app.return_value == Approved(plan.resolve(), canonical_sha256(PLAN))
    assert review_cmd.decision_json(app.return_value, plan.resolve())["decision"] == "approve"


def test_the_collector_waits_for_the_first_frame_and_always_comes_back(
    plan: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`open_review` pauses the cyclic collector for start-up; it runs again after the first frame, and
    also when the screen ends before one (here: the app fails)."""
    import gc

    import planview.tui.review.app as review_app

    seen: dict[str, object] = {}

    class FailingApp:
        def __init__(
            self, path: Path, *, home: Path | None, on_first_frame, not_approvable=None, keymap=None
        ) -> None:
            seen["on_first_frame"] = on_first_frame

        def run(self) -> None:
            seen["collecting"] = gc.isenabled()
            raise RuntimeError("the screen failed")

    monkeypatch.setattr(review_app, "ReviewApp", FailingApp)
    monkeypatch.setattr(review_cmd, "require_terminal", lambda *args, **kwargs: None)
    try:
        with pytest.raises(RuntimeError, match="the screen failed"):
            review_cmd.open_review(plan, None)
        assert seen["collecting"] is False and gc.isenabled()
        gc.disable()
        seen["on_first_frame"]()  # what the app calls after its first frame
        assert gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_w_approve_whose_recording_fails_leaves_the_plan_as_it_was(plan: Path, monkeypatch, capsys) -> None:
    """The real screen (Pilot): `w`, Approve on the page with a comment; `planview review` then cannot
    record it (sealing fails, past the page's own check). It exits non-zero naming the cause, and the
    comment is gone again."""
    import asyncio
    import hashlib

    urls: list[str] = []
    monkeypatch.setattr("planview.web.launch.open_in_browser", lambda url: urls.append(url) or True)
    original = plan.read_bytes()
    (plan.parent.parent / "artifacts").write_text("a file where the sealed plans go\n")  # sealing fails

    async def review_in_pilot(path: Path, home: Path | None):
        app = ReviewApp(path, home=home, watch=False)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("w")
            for _ in range(500):
                if urls:
                    break
                await pilot.pause(0.02)
            body = {
                "base_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
                "comments": [{"anchor_line": 1, "text": "which one first?"}],
            }
            from review_link import apost, link_in

            assert (await apost(link_in(urls[0]), "/api/approve", body))[0] == 200
            for _ in range(500):
                if app.return_value is not None:
                    break
                await pilot.pause(0.02)
        assert b"which one first?" in path.read_bytes()  # the page's save, before the recording
        return app.return_value

    code = run_with(monkeypatch, lambda p: asyncio.run(review_in_pilot(p, None)), ["review", str(plan)])
    err = capsys.readouterr().err
    assert code != 0
    assert "cannot seal the plan" in err
    assert "the comments saved with the approval were taken out of the plan again" in err
    assert ".;" not in err  # one sentence: the cause, then what became of the comments
    assert plan.read_bytes() == original
