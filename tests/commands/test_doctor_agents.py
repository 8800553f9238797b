"""`planview doctor`'s Agents section: each agent found on PATH, the version it prints, and whether the
real-agent tests ran that version (a stand-in program plays the agent here; tests/realagents runs the
real ones)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from planview.agents.installed import probe
from planview.agents.profiles import BUILTIN


def _fake(bin_dir: Path, program: str, version: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / program
    script.write_text(f"#!/bin/sh\necho '{version}'\n")
    script.chmod(0o755)


def test_an_agent_in_and_out_of_the_tested_range(tmp_path: Path) -> None:
    opencode = BUILTIN["opencode"]
    assert opencode.tested is not None
    _fake(tmp_path / "in", opencode.argv[0], opencode.tested.low)
    _fake(tmp_path / "out", opencode.argv[0], "99.0.0")
    inside = probe("opencode", opencode.argv[0], opencode.version_args, opencode.tested, str(tmp_path / "in"))
    outside = probe(
        "opencode", opencode.argv[0], opencode.version_args, opencode.tested, str(tmp_path / "out")
    )
    missing = probe(
        "opencode", opencode.argv[0], opencode.version_args, opencode.tested, str(tmp_path / "none")
    )
    assert (inside.version, inside.in_range) == (opencode.tested.low, True)
    assert (outside.version, outside.in_range) == ("99.0.0", False)
    assert (missing.path, missing.in_range) == (None, None)


def test_doctor_lists_every_agent_with_its_verdict(tmp_path: Path) -> None:
    gemini = BUILTIN["gemini"]
    assert gemini.tested is not None
    _fake(tmp_path / "bin", gemini.argv[0], gemini.tested.high)
    _fake(tmp_path / "bin", "claude", "1.0.0 (Claude Code)")
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}/usr/bin:/bin"}
    text = subprocess.run(
        [sys.executable, "-m", "planview", "doctor"], env=env, capture_output=True, text=True, check=True
    ).stdout
    section = text[text.index("Agents\n") :]
    assert (
        f"gemini: {gemini.tested.high} at {tmp_path / 'bin' / gemini.argv[0]}; tested: {gemini.tested.low}"
        in section
    )
    assert "Claude Code (hooks): 1.0.0 (Claude Code)" in section and "outside the tested range" in section
    assert "codex: not on PATH" in section
    report = json.loads(
        subprocess.run(
            [sys.executable, "-m", "planview", "doctor", "--json"], env=env, capture_output=True, text=True
        ).stdout
    )
    by_name = {agent["name"]: agent for agent in report["agents"]["agents"]}
    assert by_name["gemini"]["in_tested_range"] is True
    assert by_name["Claude Code (hooks)"]["in_tested_range"] is False
    assert set(BUILTIN) <= set(by_name)
