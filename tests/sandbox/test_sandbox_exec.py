"""The exec entry point, live: a hostile program run through it writes, reads, connects and signals nothing.

Each hostile case also runs once without the sandbox (`confined=False`) and must then succeed at
everything: that proves the test would fail if the sandbox were switched off.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planview.sandbox import launch
from planview.sandbox import status as sandbox_status
from planview.sandbox.errors import SandboxError
from tests.sandbox.conftest import SECRET, Targets, needs_landlock
from tests.sandbox.probe import PYTHON, report_of, write_probe

EVERYTHING = {
    "write_inside",
    "write_outside",
    "chmod_inside",
    "tcp_connect",
    "unix_connect",
    "udp_send",
    "signal_outside",
}


def run(
    argv: list[str], cwd: Path, confined: bool = True, timeout: float = 60
) -> subprocess.CompletedProcess:
    command = launch.wrap(argv, cwd) if confined else argv
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def settle(targets: Targets) -> set[str]:
    time.sleep(0.5)  # the listeners' threads record what arrived
    return targets.happened()


@pytest.mark.parametrize("confined", [True, False], ids=["sandboxed", "sandbox-off"])
def test_a_hostile_program_achieves_nothing(targets: Targets, confined: bool):
    needs_landlock()
    script, conf = write_probe(targets.project, targets.config)
    done = run([PYTHON, "-I", str(script), str(conf)], targets.project, confined)
    report = report_of(done.stdout)
    seen = settle(targets)
    if confined:
        assert seen == set(), (seen, report)
        assert SECRET not in done.stdout and "home_text" not in report
        assert all(value != "ok" for value in report.values()), report
    else:  # the same probe unconfined reaches everything: the assertions above can fail
        assert seen == EVERYTHING, (seen, report)
        assert report.get("home_text") == SECRET


def test_the_command_runs_normally_and_its_scratch_folder_is_removed(project: Path):
    needs_landlock()
    done = run(
        ["bash", "-c", 'echo "$TMPDIR"; echo hello > "$TMPDIR/x" && cat "$TMPDIR/x"; ls; git --version'],
        project,
    )
    assert done.returncode == 0, done.stderr
    scratch, hello, *rest = done.stdout.splitlines()
    assert hello == "hello"
    assert "README.md" in rest or any("git version" in line for line in rest)
    assert scratch.startswith("/") and "planview-sandbox-" in scratch
    assert not os.path.exists(scratch)


def test_exit_status_and_signals_pass_through(project: Path):
    needs_landlock()
    assert run(["sh", "-c", "exit 7"], project).returncode == 7
    assert run(["sh", "-c", "kill -TERM $$"], project).returncode == -15  # killed by it, as unwrapped
    assert run(["sh", "-c", "kill -USR1 $$"], project).returncode == -10
    missing = run(["no-such-program-here"], project)
    assert missing.returncode == 127 and "no-such-program-here" in missing.stderr


def test_a_wrapper_that_is_terminated_takes_its_command_with_it(project: Path):
    needs_landlock()
    proc = subprocess.Popen(launch.wrap(["sleep", "30"], project), cwd=project)
    time.sleep(1.0)
    start = time.monotonic()
    proc.terminate()
    assert proc.wait(10) == -15
    assert time.monotonic() - start < 5


def test_programs_outside_the_system_folders_do_not_run(project: Path, tmp_path: Path):
    needs_landlock()
    tool = tmp_path / "bin" / "tool"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho ran\n")
    tool.chmod(0o755)
    done = run([str(tool)], project)
    assert done.returncode == 126 and "ran" not in done.stdout


def test_a_relative_path_entry_is_never_searched(project: Path):
    needs_landlock()
    (project / "bin").mkdir()
    fake = project / "bin" / "ls"
    fake.write_text("#!/bin/sh\necho fake\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": "bin:/usr/bin:/bin"}
    done = subprocess.run(launch.wrap(["ls"], project), cwd=project, env=env, capture_output=True, text=True)
    assert "fake" not in done.stdout and "README.md" in done.stdout


def test_the_project_module_cannot_replace_the_entry_point(project: Path):
    """-I -S: a `planview` package in the project folder (the current folder) is never imported."""
    needs_landlock()
    evil = project / "planview" / "sandbox"
    evil.mkdir(parents=True)
    (project / "planview" / "__init__.py").write_text("")
    (evil / "__init__.py").write_text("")
    (evil / "exec.py").write_text("import os\nopen('hijacked', 'w').write('x')\n")
    (evil / "rules.py").write_text("import os\nopen('hijacked', 'w').write('x')\n")
    env = {**os.environ, "PYTHONPATH": str(project), "PYTHONSTARTUP": str(evil / "exec.py")}
    done = subprocess.run(
        launch.wrap(["true"], project), cwd=project, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert not (project / "hijacked").exists()


def test_the_machine_and_home_are_refused_as_projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from planview.sandbox.rules import check_root

    with pytest.raises(SandboxError, match="whole file system"):
        check_root("/")
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    (tmp_path / "me").mkdir()
    with pytest.raises(SandboxError, match="home folder"):
        check_root(str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-I", "-S", launch.EXEC_SCRIPT, "--root", "/", "--", "true"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 126 and "whole file system" in done.stderr and "Traceback" not in done.stderr


def test_bad_options_are_one_line():
    done = subprocess.run(
        [sys.executable, "-I", "-S", launch.EXEC_SCRIPT, "--bogus"], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--bogus" in done.stderr


def test_a_nul_in_the_command_is_refused_before_anything_runs(project: Path):
    with pytest.raises(SandboxError, match="NUL"):
        launch.wrap(["echo", "a\x00b"], project)


def test_the_status_names_what_enforces():
    found = sandbox_status.detect()
    if found.enforcing:
        assert found.summary().startswith(f"landlock ABI {found.abi}")
    else:
        assert found.summary().startswith("lists only: ")
    with sandbox_status.forced(sandbox_status.lists_only("a test said so")) as forced:
        assert sandbox_status.current() is forced
        assert sandbox_status.current().summary() == "lists only: a test said so"
    assert sandbox_status.current() == found


def test_doctor_reports_the_sandbox(capsys):
    from planview.cli import main

    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    found = sandbox_status.detect()
    if found.enforcing:
        assert f"plan mode is enforced by: landlock ABI {found.abi}" in out
    else:
        assert "plan mode is enforced by: lists only" in out
    assert main(["doctor", "--json"]) == 0
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["sandbox"]["mechanism"] == found.mechanism
    if found.enforcing:
        assert data["sandbox"]["live_check"]["ok"] is True


def test_doctor_lists_only_when_the_kernel_has_no_landlock(capsys):
    from planview.cli import main

    with sandbox_status.forced(sandbox_status.lists_only("this kernel has no Landlock system calls")):
        assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "plan mode is enforced by: lists only (this kernel has no Landlock system calls)" in out
    assert "[sandbox] require = true" in out


def test_a_command_name_with_control_characters_is_shown_escaped(tmp_path: Path) -> None:
    """The entry point names a missing command on stderr; the name comes from the model, so an OSC 52
    clipboard write or a screen clear in it must reach the terminal as text, not as a sequence."""
    hostile = "no\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2Jsuch"
    done = subprocess.run(launch.wrap([hostile], tmp_path), capture_output=True, timeout=60)
    assert done.returncode in (126, 127)
    assert b"\x1b" not in done.stderr and b"\x07" not in done.stderr
    if done.returncode == 127:
        assert b"no\\x1b]52;c;" in done.stderr
