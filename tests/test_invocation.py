"""The command word printed in hints runs this planview from any folder."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from planview import invocation
from planview.invocation import planview_command


def fake_planview(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "planview"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    return program


def test_the_name_on_path_when_it_is_the_running_program(tmp_path: Path) -> None:
    program = fake_planview(tmp_path / "bin")
    assert planview_command(str(program), path=str(tmp_path / "bin")) == "planview"
    assert planview_command("planview", path=str(tmp_path / "bin")) == "planview"


def test_a_venv_program_not_on_path_is_named_by_its_absolute_path(tmp_path: Path, monkeypatch) -> None:
    program = fake_planview(tmp_path / "proj" / ".venv" / "bin")
    monkeypatch.setattr(
        invocation, "_START_DIR", str(tmp_path / "proj")
    )  # where `.venv/bin/planview` was typed
    assert planview_command(".venv/bin/planview", path="") == shlex.quote(str(program))


def test_another_planview_on_path_is_not_taken_for_this_one(tmp_path: Path) -> None:
    mine = fake_planview(tmp_path / "venv" / "bin")
    fake_planview(tmp_path / "elsewhere")
    assert planview_command(str(mine), path=str(tmp_path / "elsewhere")) == str(mine)


def test_a_path_with_spaces_is_quoted(tmp_path: Path) -> None:
    program = fake_planview(tmp_path / "my tools" / "bin")
    assert planview_command(str(program), path="") == shlex.quote(str(program))
    assert " " in str(program) and planview_command(str(program), path="").startswith("'")


def test_python_dash_m_and_unknown_programs_run_the_module() -> None:
    module = f"{shlex.quote(sys.executable)} -m planview"
    assert planview_command(str(Path("planview") / "__main__.py")) == module
    assert planview_command("/usr/bin/pytest") == module
    assert planview_command("", path=os.defpath) == module


def test_here_names_a_program_below_the_current_folder_relatively(tmp_path: Path, monkeypatch) -> None:
    program = fake_planview(tmp_path / "proj" / ".venv" / "bin")
    monkeypatch.chdir(tmp_path / "proj")
    monkeypatch.setattr(invocation, "_START_DIR", str(tmp_path / "proj"))
    assert planview_command(str(program), path="", here=True) == ".venv/bin/planview"
    assert planview_command(str(program), path="") == shlex.quote(str(program))  # after a cd: absolute


def test_a_hint_in_a_message_is_spelled_the_way_this_planview_runs() -> None:
    message = "ledger torn: run `planview audit --repair` (or `planview plans`); planview keeps a backup"
    venv = "/home/ada/proj/.venv/bin/planview"
    assert invocation.spelled_as_run(message, venv) == (
        f"ledger torn: run `{venv} audit --repair` (or `{venv} plans`); planview keeps a backup"
    )
    assert invocation.spelled_as_run(message, "planview") == message  # on PATH: left as written
    assert invocation.spelled_as_run("no hint here", venv) == "no hint here"
    assert invocation.spelled_as_run("start one with `planview`", venv) == f"start one with `{venv}`"
    assert invocation.spelled_as_run("`planviewer x`", venv) == "`planviewer x`"  # another program


def test_the_cli_prints_an_errors_hint_so_it_runs_from_a_venv_off_path(tmp_path: Path) -> None:
    """README installs into .venv and runs `.venv/bin/planview`: a torn ledger's hint said
    `planview audit --repair`, which is "command not found" there. Copy-paste the printed hint."""
    import re
    import subprocess

    venv_planview = Path(sys.executable).with_name("planview")
    if not venv_planview.exists():
        import pytest

        pytest.skip(f"no planview script beside {sys.executable} (the package is not installed in this venv)")
    home = tmp_path / "home"
    (home / "plans").mkdir(parents=True)
    (home / "plans" / "p.md").write_text("# P\n\n## Steps\n- [ ] a\n")
    (home / "ledger.jsonl").write_bytes(b'{"type": "approved", "seq": 1, "at": "2026-')
    env = {**os.environ, "PLANVIEW_HOME": str(home), "PATH": "/usr/bin:/bin"}  # the venv is not on PATH
    done = subprocess.run(
        [str(venv_planview), "approve", str(home / "plans" / "p.md")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2
    hint = re.search(r"run `([^`]+)`", done.stderr)
    assert hint is not None, done.stderr
    assert hint.group(1).endswith("planview audit --repair") and hint.group(1) != "planview audit --repair"
    # exactly as printed, through a shell (a `~/…` spelling is the shell's to expand)
    again = subprocess.run(
        hint.group(1), shell=True, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60
    )
    assert "removed the torn line" in again.stderr, again.stderr


def test_claude_installs_uninstall_hint_runs_as_printed_from_a_venv_off_path(tmp_path: Path) -> None:
    import re
    import subprocess

    import pytest

    venv_planview = Path(sys.executable).with_name("planview")
    if not venv_planview.exists():
        pytest.skip(f"no planview script beside {sys.executable} (the package is not installed in this venv)")
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    env = {
        **os.environ,
        "PLANVIEW_HOME": str(tmp_path / "home"),
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
    }
    done = subprocess.run(
        [str(venv_planview), "claude", "install", "--local"],
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    hint = re.search(r"remove them with `([^`]+)`", done.stdout)
    assert hint is not None and hint.group(1).endswith("planview claude uninstall --local"), done.stdout
    assert hint.group(1) != "planview claude uninstall --local"
    again = subprocess.run(
        hint.group(1), shell=True, capture_output=True, text=True, env=env, cwd=project, timeout=60
    )
    assert again.returncode == 0 and "removed planview's" in again.stdout + again.stderr, again.stderr
