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
def test_demo_closing_commands_run_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
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
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    commands = [line.split(" #")[0].strip() for line in out.splitlines()[1:]]
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
