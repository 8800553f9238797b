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
    assert "installed in .claude/settings.json" in out and "PreToolUse (matcher *)" in out
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


PLANVIEW = Path(sys.executable).with_name("planview")


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(project.parent / "home"), "COLUMNS": "200"}
    env.pop("PLANVIEW_HOME", None)
    return subprocess.run(
        [str(PLANVIEW), "claude", *args], cwd=project, env=env, capture_output=True, text=True, timeout=60
    )


def test_install_says_what_it_wrote_why_and_what_to_do_next(project: Path) -> None:
    done = _cli(project, "install")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "installed in .claude/settings.json" in out
    assert "absolute path" in out and "own PATH" in out
    assert "Shift+Tab" in out and "review" in out
    # The shared file gets a machine-specific path: the fix is offered as a command that runs as printed.
    quoted = out.split("`")[1::2]
    at = next(i for i, part in enumerate(quoted) if part.endswith("claude install --local"))
    assert quoted[at - 1].endswith("claude uninstall"), out
    ran = subprocess.run(
        ["bash", "-c", f"{quoted[at - 1]} && {quoted[at]}"],
        cwd=project,
        env={**os.environ, "HOME": str(project.parent / "home")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert not (project / ".claude" / "settings.json").exists(), "the shared file planview created is gone"
    assert installed_command(project / ".claude" / "settings.local.json") is not None


def test_uninstall_of_a_file_install_created_removes_it_and_planviews_claude_state(project: Path) -> None:
    assert _cli(project, "install").returncode == 0
    assert _cli(project, "plan", "on").returncode == 0
    assert "plan mode: on" in _cli(project, "status").stdout
    done = _cli(project, "uninstall")
    assert done.returncode == 0, done.stderr
    assert "removed the file planview had created" in done.stdout
    assert not (project / ".claude" / "settings.json").exists(), "no {} is left behind"
    assert "plan mode: off" in _cli(project, "status").stdout, "the switch did not survive the uninstall"
    assert not (project / ".planview" / "claude").exists()


@pytest.mark.parametrize(
    "original",
    [
        b'{"model":"opus"}',  # compact, no newline: a JSON re-dump would change its bytes
        b'{\n  "model": "opus",   "env": {"A": "1"}\n}\n',
        b"",  # an empty file the user made
    ],
)
def test_uninstall_gives_back_the_users_file_byte_for_byte(project: Path, original: bytes) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(original)
    assert _cli(project, "install").returncode == 0
    assert settings.read_bytes() != original
    assert _cli(project, "uninstall").returncode == 0
    assert settings.read_bytes() == original


def test_a_file_edited_after_install_keeps_the_users_edit(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    assert _cli(project, "install").returncode == 0
    data = json.loads(settings.read_text())
    data["model"] = "opus"
    settings.write_text(json.dumps(data, indent=2) + "\n")
    assert _cli(project, "uninstall").returncode == 0
    assert json.loads(settings.read_text()) == {"model": "opus"}
