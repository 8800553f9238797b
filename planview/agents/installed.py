"""Which agents are on PATH, which version each reports, and whether planview's real-agent tests ran
that version (the profile table's `tested` range). `planview doctor` shows it."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass

from planview.agents.profiles import BUILTIN, AgentProfile, VersionRange

__all__ = ["FoundAgent", "found_agents", "probe"]

VERSION_TIMEOUT = 20.0  # seconds: a Node-based agent can take several to print its version


@dataclass(frozen=True)
class FoundAgent:
    """One agent planview knows: where it is on PATH (or not), the version it printed, the tested range."""

    name: str
    program: str
    path: str | None
    version: str | None  # its first line of `--version` output; None when absent or it failed
    tested: str | None  # "low–high: what was run", None when never run for real
    in_range: bool | None  # None when not installed or never tested

    def as_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "program": self.program,
            "path": self.path,
            "version": self.version,
            "tested": self.tested,
            "in_tested_range": self.in_range,
        }


def _range_text(tested: VersionRange | None) -> str | None:
    if tested is None:
        return None
    span = tested.low if tested.low == tested.high else f"{tested.low}–{tested.high}"
    return f"{span} ({tested.checked})"


def probe(
    name: str,
    program: str,
    version_args: tuple[str, ...],
    tested: VersionRange | None,
    path: str | None = None,
) -> FoundAgent:
    """Look `program` up on PATH and ask it for its version (never raises)."""
    found = shutil.which(program, path=path if path is not None else os.environ.get("PATH"))
    version: str | None = None
    if found is not None:
        try:
            done = subprocess.run(
                [found, *version_args],
                capture_output=True,
                text=True,
                timeout=VERSION_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )
            lines = (done.stdout or done.stderr).strip().splitlines()
            version = lines[0].strip()[:120] if lines and done.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired):
            version = None
    in_range = tested.holds(version) if (tested is not None and version is not None) else None
    return FoundAgent(name, program, found, version, _range_text(tested), in_range)


def _profile_probe(profile: AgentProfile, path: str | None) -> FoundAgent:
    return probe(profile.name, profile.argv[0], profile.version_args, profile.tested, path)


def found_agents(path: str | None = None) -> tuple[FoundAgent, ...]:
    """Every built-in ACP agent profile, probed."""
    return tuple(_profile_probe(profile, path) for profile in BUILTIN.values())
