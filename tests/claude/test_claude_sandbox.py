"""Claude's plan-mode Bash through the kernel sandbox: the hook's updatedInput names the sandbox's
entry point by absolute path, quotes the original command as one word, and runs it confined.

- the issue's commands (`rg`, `grep -rn`, `find . -name '*.py'`, `ls -la src`, `cat README.md | head`)
  are allowed and wrapped, and print their normal output when run the way Claude's shell runs them;
- strings aimed at breaking out of the wrapper (quotes, substitutions, newlines, separators, option
  look-alikes) stay one argument of `bash -c` inside the sandbox: what they try to do fails there.
  The same strings run bare do it (they are real attacks), and with a wrapper that does not quote
  they do it too (the test fails when the quoting is switched off);
- with the kernel sandbox off (forced, in process) the same commands are refused: git only.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from planview.claude.git_wrap import neutralised_command
from planview.claude.hook import run
from planview.sandbox import launch
from planview.sandbox import status as sandbox_status
from tests.sandbox.conftest import needs_landlock

ISSUE_COMMANDS = {
    "rg greet": "def greet",
    "grep -rn greet .": "src/app.py",
    "find . -name '*.py'": "./src/app.py",
    "ls -la src": "app.py",
    "cat README.md | head": "# demo",
}


@pytest.fixture
def repo(project: Path) -> Path:
    (project / "src").mkdir(exist_ok=True)
    (project / "src" / "app.py").write_text("def greet():\n    return 'hi'\n")
    (project / "README.md").write_text("# demo\n\nSome text.\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", "add", "."], cwd=project, env=env, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", "app"], cwd=project, env=env, check=True, capture_output=True)
    return project


def _hook(root: Path, command: str, cwd: Path | None = None) -> dict:
    raw = json.dumps(
        {
            "session_id": "s",
            "cwd": str(cwd or root),
            "permission_mode": "plan",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "look"},
        }
    ).encode()
    answer = run(raw)
    return answer.payload["hookSpecificOutput"] if answer.payload else {"stderr": answer.stderr}  # type: ignore[index]


def _claude_runs(command: str, root: Path) -> subprocess.CompletedProcess[str]:
    """As Claude Code's Bash does: the line handed to a shell (here through eval, as Claude's does)."""
    return subprocess.run(
        ["bash", "-c", 'eval "$1" < /dev/null', "claude-shell", command],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("command", sorted(ISSUE_COMMANDS))
def test_planning_commands_are_allowed_wrapped_and_answer(repo: Path, command: str, monkeypatch):
    needs_landlock()
    monkeypatch.setenv("PLANVIEW_HOME", str(repo.parent / "pv-home"))
    out = _hook(repo, command)
    assert out["permissionDecision"] == "allow", out
    wrapped = out["updatedInput"]["command"]
    words = shlex.split(wrapped)
    assert words[0] == sys.executable and os.path.isabs(words[0])
    assert words[1:4] == ["-I", "-S", launch.EXEC_SCRIPT] and os.path.isabs(words[3])
    assert words[words.index("--root") + 1] == os.path.realpath(repo)
    assert words[-2] == "-c" and words[-1].endswith(command)  # the checked command, unchanged, last
    done = _claude_runs(wrapped, repo)
    assert done.returncode == 0, done.stderr
    assert ISSUE_COMMANDS[command] in done.stdout


def test_without_the_sandbox_they_are_refused(repo: Path, monkeypatch):
    monkeypatch.setenv("PLANVIEW_HOME", str(repo.parent / "pv-home"))
    with sandbox_status.forced(sandbox_status.lists_only("switched off for this test")):
        for command in ISSUE_COMMANDS:
            out = _hook(repo, command)
            assert out["permissionDecision"] == "deny", (command, out)
        out = _hook(repo, "git status")
        assert out["permissionDecision"] == "allow"
        assert not shlex.split(out["updatedInput"]["command"])[0].endswith("python3"), "not wrapped"


def test_require_refuses_bash_when_there_is_no_sandbox(repo: Path, monkeypatch, tmp_path: Path):
    home = repo.parent / "pv-home"
    monkeypatch.setenv("PLANVIEW_HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text("[sandbox]\nrequire = true\n")
    with sandbox_status.forced(sandbox_status.lists_only("this kernel has no Landlock system calls")):
        out = _hook(repo, "git status")
    text = json.dumps(out)
    assert "require = true" in text and "no Landlock" in text and '"allow"' not in text


# Strings aimed at the wrapper: each tries to create OUT (outside the project) from Claude's shell.
def _breakouts(out: Path) -> list[str]:
    o = str(out)
    return [
        f"'; touch {o}; '",
        f'"; touch {o}; "',
        f"$(touch {o})",
        f"`touch {o}`",
        f"true\ntouch {o}",
        f"true; touch {o}",
        f"true && touch {o}",
        f"true || touch {o}; false || touch {o}",
        f"true | touch {o}",
        f"true -- ; touch {o}",
        f"true --root / --check -- ; touch {o}",
        f"\\'; touch {o} #",
        f"$'\\x27'; touch {o}",
        f"é'; touch {o}; 'ü",
        f"{'a' * 20000}'; touch {o}; '",
        f"true %s %n {{}}; touch {o}",
        f"true > {o}",
        f"echo x >> {o}",
    ]


def test_strings_aimed_at_the_wrapper_stay_inside_it(repo: Path, tmp_path: Path):
    needs_landlock()
    out = tmp_path / "OUT"
    for attack in _breakouts(out):
        # a real attack: run bare, or inside a wrapper that quotes naively, it creates OUT
        for naive in (attack, f"bash -c '{attack}'", f'bash -c "{attack}"'):
            subprocess.run(["bash", "-c", naive], cwd=repo, capture_output=True, timeout=30)
        assert out.exists(), f"not an attack: {attack[:80]!r}"
        out.unlink()
        wrapped = neutralised_command(attack, repo, sandboxed=True)
        words = shlex.split(wrapped)
        assert words[:4] == [sys.executable, "-I", "-S", launch.EXEC_SCRIPT]
        assert words[-3:-1] == [words[-3], "-c"] and words[-1].endswith(attack), attack[:80]
        _claude_runs(wrapped, repo)
        assert not out.exists(), f"broke out of the wrapper: {attack[:80]!r}"


def test_a_wrapper_that_did_not_quote_would_be_broken_out_of(repo: Path, tmp_path: Path, monkeypatch):
    """The check above can fail: with the quoting switched off, the first attack escapes."""
    needs_landlock()
    out = tmp_path / "OUT"
    monkeypatch.setattr(
        "planview.sandbox.launch.shell_command",
        lambda argv, root, profile="command": " ".join(launch.wrap(argv, root)),
    )
    _claude_runs(neutralised_command(f"true; touch {out}", repo, sandboxed=True), repo)
    assert out.exists()


def test_the_wrapped_command_runs_the_same_from_a_folder_below_the_root(repo: Path, monkeypatch):
    needs_landlock()
    monkeypatch.setenv("PLANVIEW_HOME", str(repo.parent / "pv-home"))
    out = _hook(repo, "ls -la", cwd=repo / "src")
    assert out["permissionDecision"] == "allow", out
    done = subprocess.run(
        ["bash", "-c", out["updatedInput"]["command"]], cwd=repo / "src", capture_output=True, text=True
    )
    assert "app.py" in done.stdout, done.stderr
