"""The one table of agent profiles: every place reads it, no other module names an agent, and each
entry says where the agent keeps its own state (what the agent sandbox lets it write)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from planview.agents.profiles import BUILTIN, StatePath, VersionRange, builtin_names, resolve_agent

PACKAGE = Path(__file__).resolve().parents[2] / "planview"
TABLE = PACKAGE / "agents" / "profiles.py"


def _agent_words() -> dict[str, str]:
    """Each word that names a built-in agent, with the agent it names: its name, its program and its
    install package. "claude" alone is also planview's Claude Code hook room (planview/claude/, the
    `planview claude` command), so the ACP profile is named there by its program, claude-agent-acp."""
    words: dict[str, str] = {}
    for profile in BUILTIN.values():
        if profile.name != "claude":
            words[profile.name] = profile.name
        words[profile.argv[0]] = profile.name
        package = profile.install.split()[-1] if profile.install.startswith("npm install") else ""
        if package:
            words[package] = profile.name
    return words


def _strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module (docstrings and f-string parts included); comments are not
    code, and say why a behaviour was written the way it was, sometimes naming the agent seen doing it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def naming_offenders(paths: list[Path]) -> list[str]:
    words = _agent_words()
    pattern = re.compile(
        r"(?<![\w@/.-])("
        + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        + r")(?![\w-])"
    )
    found = []
    for path in paths:
        for line, text in _strings(path):
            for match in pattern.finditer(text):
                found.append(f"{path}:{line} names {words[match.group(1)]!r}")
    return found


def test_no_module_but_the_table_names_an_agent() -> None:
    modules = sorted(p for p in PACKAGE.rglob("*.py") if p != TABLE)
    offenders = naming_offenders(modules)
    assert not offenders, "read agent names from planview/agents/profiles.py:\n" + "\n".join(offenders)


def test_the_naming_check_sees_a_hard_coded_name(tmp_path: Path) -> None:
    module = tmp_path / "mod.py"
    module.write_text(
        '"""Runs codex-acp."""\n'
        'HELP = f"a plan mode ({x}, gemini, opencode)"\n'
        'X = "npm install -g opencode-ai"\n'
        "# a comment naming goose is fine\n"
        'Y = "claude settings: .claude/settings.json, gemini-like"\n'
    )
    assert sorted(o.split(" names ")[1] for o in naming_offenders([module])) == [
        "'codex'",
        "'gemini'",
        "'opencode'",
        "'opencode'",
    ]


def test_every_entry_names_its_own_state_folders() -> None:
    home = {"HOME": "/home/u"}
    for profile in BUILTIN.values():
        paths = profile.state_paths(home)
        assert paths, f"{profile.name} lists no state folder: its sandboxed planning could not save anything"
        assert all(p.is_absolute() and str(p).startswith("/home/u/") for p in paths), paths
    assert BUILTIN["claude"].state_paths(home) == (Path("/home/u/.claude"), Path("/home/u/.claude.json"))
    assert BUILTIN["opencode"].state_paths(home) == (
        Path("/home/u/.local/share/opencode"),
        Path("/home/u/.cache/opencode"),
        Path("/home/u/.config/opencode"),
        Path("/home/u/.local/state/opencode"),
    )
    assert BUILTIN["gemini"].state_paths(home) == (Path("/home/u/.gemini"),)
    assert BUILTIN["codex"].state_paths(home) == (Path("/home/u/.codex"),)
    assert Path("/home/u/.config/goose") in BUILTIN["goose"].state_paths(home)


def test_state_paths_follow_the_environment_that_moves_them() -> None:
    env = {"HOME": "/h", "XDG_DATA_HOME": "/x/data", "XDG_CACHE_HOME": "relative/is/ignored"}
    assert BUILTIN["opencode"].state_paths(env)[:2] == (Path("/x/data/opencode"), Path("/h/.cache/opencode"))
    assert BUILTIN["codex"].state_paths({**env, "CODEX_HOME": "/c"}) == (Path("/c"),)
    assert BUILTIN["claude"].state_paths({**env, "CLAUDE_CONFIG_DIR": "/cc"}) == (
        Path("/cc"),
        Path("/cc/.claude.json"),
    )
    # No usable HOME: nothing is granted (rather than a folder relative to wherever the agent runs).
    assert BUILTIN["gemini"].state_paths({"HOME": ""}) == ()
    assert StatePath("home", ".x").resolve({"HOME": "rel"}) is None


def test_a_generic_agent_has_no_state_folders_and_no_tested_range() -> None:
    profile = resolve_agent("python my_agent.py")
    assert profile.state == () and profile.tested is None and not profile.listens


def test_version_ranges() -> None:
    tested = VersionRange("1.18.0", "1.18.9", "plan, review, approve, execute, pin")
    assert tested.holds("1.18.3") and tested.holds("opencode v1.18.9 (abc)")
    assert not tested.holds("1.19.0") and not tested.holds("1.2") and not tested.holds("unknown")


@pytest.mark.parametrize("argv", [["run", "--help"], ["--help"]])
def test_help_lists_the_table(argv: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "planview", *argv],
        capture_output=True,
        text=True,
        env={"COLUMNS": "400", "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert f"drive an ACP agent ({builtin_names()}, or a command line)" in result.stdout


def test_the_plan_mode_refusal_names_only_agents_with_a_known_plan_mode() -> None:
    names = builtin_names(plan_mode=True).split(", ")
    assert set(names) == {p.name for p in BUILTIN.values() if p.plan_mode_known}
    assert "goose" not in names
