"""`planview claude install|uninstall|status|plan`: planview's hooks in Claude Code's settings files."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from planview.claude.settings import ClaudeSettingsError, hook_command, install, installed_command, uninstall
from planview.cli import main

OTHER_HOOKS = {
    "permissions": {"allow": ["Bash(npm test:*)"], "deny": ["Read(./.env)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/bin/audit-bash.sh", "timeout": 5}],
            }
        ],
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "ruff format"}]}],
    },
    "model": "opus",
}


def test_install_then_uninstall_gives_back_the_same_bytes(tmp_path: Path) -> None:
    for indent in (2, 4, "\t"):
        path = tmp_path / f"settings-{indent!r}.json"
        original = json.dumps(OTHER_HOOKS, indent=indent) + "\n"
        path.write_text(original)
        change = install(path, "/opt/pv/bin/planview claude hook --timeout 3600")
        data = json.loads(path.read_text())
        assert data["model"] == "opus" and data["permissions"] == OTHER_HOOKS["permissions"]
        pre = data["hooks"]["PreToolUse"]
        assert pre[0] == OTHER_HOOKS["hooks"]["PreToolUse"][0]  # the user's hook is untouched, first
        assert pre[1]["matcher"] == "*"
        assert data["hooks"]["PermissionRequest"][0]["matcher"] == "ExitPlanMode"
        assert change.added == ("PreToolUse (matcher *)", "PermissionRequest (matcher ExitPlanMode)")
        # Installing twice does not add a second copy.
        install(path, "/opt/pv/bin/planview claude hook --timeout 3600")
        assert len(json.loads(path.read_text())["hooks"]["PreToolUse"]) == 2
        uninstall(path)
        assert path.read_text() == original


def test_install_into_a_missing_file_and_uninstall_removes_only_ours(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    install(path, "planview claude hook")
    assert installed_command(path) == "planview claude hook"
    uninstall(path)
    assert json.loads(path.read_text()) == {}
    assert installed_command(path) is None


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[]",
        '{"hooks": []}',
        '{"hooks": {"PreToolUse": {}}}',
        "\xff".encode("latin-1").decode("latin-1"),
    ],
)
def test_a_file_planview_cannot_parse_is_refused_and_left_alone(tmp_path: Path, text: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text, encoding="latin-1")
    before = path.read_bytes()
    with pytest.raises(ClaudeSettingsError):
        install(path, "planview claude hook")
    assert path.read_bytes() == before


def test_hook_command_is_runnable_as_written(project: Path) -> None:
    command = hook_command([sys.executable, "-m", "planview"])
    event = {
        "session_id": "s",
        "cwd": str(project),
        "permission_mode": "plan",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git status"},
    }
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        shlex.split(command), input=json.dumps(event), capture_output=True, text=True, cwd=project, env=env
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_cli_install_status_uninstall(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["claude", "install"]) == 0
    out = capsys.readouterr().out
    settings = project / ".claude" / "settings.json"
    assert str(settings) in out and "PreToolUse (matcher *)" in out
    command = installed_command(settings)
    assert command is not None and command.endswith("claude hook --timeout 3600")
    assert main(["claude", "status"]) == 0
    status = capsys.readouterr().out
    assert "project" in status and "installed" in status and "plan mode: off" in status
    assert main(["claude", "plan", "on"]) == 0
    capsys.readouterr()
    main(["claude", "status"])
    assert "plan mode: on" in capsys.readouterr().out
    assert main(["claude", "uninstall"]) == 0
    assert "removed" in capsys.readouterr().out
    assert installed_command(settings) is None
    assert main(["claude", "uninstall"]) == 0
    assert "nothing changed" in capsys.readouterr().out


def test_cli_refuses_a_broken_settings_file_in_one_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text("{oops")
    assert main(["claude", "install", "--local"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not valid JSON" in err


def test_plan_switch_for_one_session_validates_the_id(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["claude", "plan", "on", "--session", "../../x"]) == 2
    assert main(["claude", "plan", "on", "--session", "abc-123"]) == 0
    assert (project / ".planview" / "claude" / "sessions" / "abc-123.json").exists()


def test_status_calls_a_settings_file_it_cannot_read_unreadable(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # QA §11: a settings file that is not valid JSON was reported as "not installed".
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooks": ')
    assert main(["claude", "status"]) == 1
    (line,) = [line for line in capsys.readouterr().out.splitlines() if line.startswith("project")]
    assert line.startswith(f"project  {settings}: unreadable: ") and "not valid JSON" in line
    assert "not installed" not in line
