"""A resumed session talks to the model it ran with: `planview run --resume` needs no repeated flags."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_session_run_cli import PLAN, script

from planview.cli import main
from planview.session.providers.factory import saved_provider_args


def test_saved_script_is_used_when_no_provider_is_given() -> None:
    snap = {"kind": "scripted", "digest": "d", "position": 3, "path": "/x/demo.jsonl"}
    assert saved_provider_args(snap, None, None, None) == ("scripted", None, "/x/demo.jsonl")


def test_what_the_user_passes_wins_over_the_saved_provider() -> None:
    snap = {"kind": "scripted", "path": "/x/demo.jsonl"}
    assert saved_provider_args(snap, "openai", "gpt-4o", None) == ("openai", "gpt-4o", None)
    assert saved_provider_args(snap, None, None, "/y/other.jsonl") == (None, None, "/y/other.jsonl")


def test_saved_sdk_provider_keeps_its_model_unless_overridden() -> None:
    snap = {"kind": "anthropic", "model": "claude-x"}
    assert saved_provider_args(snap, None, None, None) == ("anthropic", "claude-x", None)
    assert saved_provider_args(snap, None, "claude-y", None) == ("anthropic", "claude-y", None)


def test_nothing_saved_changes_nothing() -> None:
    assert saved_provider_args(None, None, None, None) == (None, None, None)
    assert saved_provider_args({"kind": "scripted"}, None, None, None) == (None, None, None)  # no path


def test_run_resume_without_flags_continues_the_same_script(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = script(
        tmp_path / "demo.jsonl",
        {"tool_calls": [{"name": "write_plan", "arguments": {"title": "Hello", "content": PLAN}}]},
        {"tool_calls": [{"name": "exit_plan_mode", "arguments": {}}]},
        {"tool_calls": [{"name": "write", "arguments": {"path": "hello.txt", "content": "hello\n"}}]},
        {"text": "All done."},
    )
    assert main(["run", "--plan", "--script", str(demo), "say hello"]) == 0
    capsys.readouterr()
    plan = next((project / ".planview" / "plans").glob("*.md"))
    from planview.approval.approvals import Approvals

    Approvals(project / ".planview", project).approve(plan, channel="test")
    assert main(["run", "--resume"]) == 0, capsys.readouterr().err  # no --script: the saved one
    out = capsys.readouterr().out
    assert (project / "hello.txt").read_text() == "hello\n"
    assert "All done." in out
