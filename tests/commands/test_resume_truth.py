"""A resumed session tells the truth about its approval (the reported "resume forgets why").

Approve, execute a step, change one word of the plan's Goal, then `planview run --resume`: one
`revoked` event naming the changed section, the transcript says so, the session is in plan mode and
the model's next refused write names the section. A refused call replays as refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planview.cli import main

PLAN = "# Hello\n\n## Goal\n\nSay hello.\n\n## Steps\n\n- [ ] Create hello.txt\n- [ ] Create bye.txt\n"


def script(path: Path, *turns: dict) -> Path:
    path.write_text("\n".join(json.dumps(t) for t in turns) + "\n")
    return path


def write(name: str, content: str = "x\n") -> dict:
    return {"name": "write", "arguments": {"path": name, "content": content}}


def ledger(project: Path) -> list[dict]:
    return [json.loads(x) for x in (project / ".planview" / "ledger.jsonl").read_text().splitlines()]


def planned_approved_and_one_step_done(project: Path, tmp_path: Path, capsys) -> tuple[Path, Path]:
    demo = script(
        tmp_path / "demo.jsonl",
        {"tool_calls": [{"name": "write_plan", "arguments": {"title": "Hello", "content": PLAN}}]},
        {"tool_calls": [{"name": "exit_plan_mode", "arguments": {}}]},
        {
            "tool_calls": [
                write("hello.txt"),
                {"name": "set_plan_steps", "arguments": {"updates": [{"step": 1, "status": "completed"}]}},
            ]
        },
        {"text": "Step one done."},
        {"tool_calls": [write("bye.txt")]},  # after the resume: refused, naming the section
        {"text": "Understood, planning again."},
    )
    assert main(["run", "--plan", "--script", str(demo), "say hello"]) == 0
    plan = next((project / ".planview" / "plans").glob("*.md"))
    assert main(["approve", str(plan)]) == 0
    assert main(["run", "--resume", "--script", str(demo)]) == 0
    capsys.readouterr()
    assert (project / "hello.txt").exists() and "- [x] Create hello.txt" in plan.read_text()
    return plan, demo


def test_resume_after_the_goal_changed_revokes_once_and_names_the_section(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, demo = planned_approved_and_one_step_done(project, tmp_path, capsys)
    plan.write_text(plan.read_text().replace("Say hello.", "Say hello loudly."))
    assert [e["type"] for e in ledger(project)] == ["approved"]

    assert main(["run", "--resume", "--script", str(demo)]) == 0
    out = capsys.readouterr().out
    revoked = [e for e in ledger(project) if e["type"] == "revoked"]
    assert len(revoked) == 1 and revoked[0]["changed_sections"] == ["Goal"]
    assert revoked[0]["channel"] == "session pin check"
    lines = out.splitlines()
    assert "plan mode" in lines[0]  # the run starts planning, and says why right away
    assert any("changed after its approval (changed sections: Goal)" in line for line in lines[:3])
    refusal = next(line for line in lines if "✗" in line)
    assert "changed sections: Goal" in refusal and not (project / "bye.txt").exists()

    # A second resume does not revoke again (one event), and status names the change.
    assert main(["status", str(plan)]) == 1
    status = capsys.readouterr().out
    assert status.startswith("stale:") and "Goal" in status
    assert len([e for e in ledger(project) if e["type"] == "revoked"]) == 1


def test_resume_with_json_reports_the_revocation(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, demo = planned_approved_and_one_step_done(project, tmp_path, capsys)
    plan.write_text(plan.read_text().replace("Say hello.", "Say goodbye."))
    assert main(["run", "--resume", "--json", "--script", str(demo)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    resumed = next(r for r in records if r["type"] == "resumed")
    assert resumed["kind"] == "revoked" and "Goal" in resumed["notice"]
    finished = [r for r in records if r["type"] == "tool_finished" and r["name"] == "write"]
    assert finished and finished[0]["refused"] and "Goal" in finished[0]["result"]
