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
