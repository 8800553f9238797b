"""`planview run --plan` with a subagent whose scripted child tries to write: nothing changes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from planview.cli import main


def test_plan_mode_subagent_child_cannot_write(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    child = [
        {
            "tool_calls": [
                {"name": "read", "arguments": {"path": "README.md"}},
                {"name": "write", "arguments": {"path": "f", "content": "x"}},
                {"name": "bash", "arguments": {"command": "echo x > f"}},
            ]
        },
        {"text": "It is a sample project."},
    ]
    turn = {"tool_calls": [{"name": "subagent", "arguments": {"task": "what is this?"}, "script": child}]}
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps(turn) + "\n" + json.dumps({"text": "Thanks."}) + "\n")
    assert main(["run", "--plan", "--script", str(script), "explore"]) == 0
    out = capsys.readouterr().out
    assert not (project / "f").exists()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True)
    assert status.stdout == ""  # .planview ignores itself; nothing else changed
    rows = out.splitlines()
    assert "▸ subagent what is this?" in rows
    assert "  │ ▸ write f" in rows and "  │ ▸ bash echo x > f" in rows
    assert sum("unknown tool" in row for row in rows if row.startswith("  │")) == 2
    assert "  ✓ It is a sample project.  (+2 lines)" in rows
    assert "Thanks." in out
