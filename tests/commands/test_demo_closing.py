"""`planview demo` ends with commands that run exactly as printed, from the folder they name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview import cli
from planview.tui.app import PlanviewApp


@pytest.mark.usefixtures("a_terminal")
@pytest.mark.parametrize("columns", ["40", "200"])
def test_demo_closing_commands_run_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], columns: str
) -> None:
    program = Path(sys.executable).parent / "planview"  # the console script of this install (.venv/bin)
    if not program.is_file():
        pytest.skip(f"no planview console script beside {sys.executable} (not installed with pip install -e)")
    bin_dir = str(program.parent)
    # README's user: planview is in .venv/bin, which is not on PATH.
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != bin_dir)
    monkeypatch.setenv("PATH", path)
    monkeypatch.setattr(sys, "argv", [str(program), "demo"])
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(PlanviewApp, "run", lambda self, *a, **k: None)
    monkeypatch.setenv("COLUMNS", columns)  # the closing lines are laid out for the terminal's width
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    lines = [line.strip() for line in out.splitlines()[1:]]
    commands = [line.split(" #")[0].strip() for line in lines if not line.startswith("#")]
    assert commands[0].startswith("cd ") and len(commands) == 4
    assert all("planview" not in c.split()[0] or c.split()[0] == str(program) for c in commands[2:])
    for command in commands[1:]:
        # each line as a user pastes it, after the printed cd, from a different folder
        run = subprocess.run(
            ["bash", "-c", f"{commands[0]} && {command}"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={**os.environ, "PATH": path},
            timeout=60,
        )
        assert run.returncode == 0, f"{command!r} failed: {run.stderr}"
        assert "not found" not in run.stderr


@pytest.mark.parametrize("columns", [40, 80, 120])
def test_the_closing_lines_fit_the_terminal_without_a_line_of_padding(columns: int) -> None:
    # QA §9: `git diff` was padded to the width of the long planview path, which at 40 columns
    # wrapped into `git diff`, a line of spaces, and `# the agent's edits`.
    from planview.demo.guide import closing

    planview = "/tmp/tmp.x9f0PLt4/pv/.venv/bin/planview"
    text = closing(Path("/tmp/planview-demo-abcd1234/greet"), planview, columns)
    lines = text.splitlines()
    for line in lines[2:]:
        if "#" in line:  # a comment never pushes a line past the edge (a bare command may be wider)
            assert len(line) <= columns, (columns, line)
    assert ("  git diff  # the agent's edits" in lines) == (columns == 40)
    assert [line.split(" #")[0].strip() for line in lines[2:] if not line.strip().startswith("#")] == [
        "git diff",
        f"{planview} plans",
        f"{planview} audit",
    ]
