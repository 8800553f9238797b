"""Which configured servers planview may start: none named by a config file that came with the repository.

A `[mcp.servers.NAME]` table is a program planview runs when the session starts, before any gate
sees a tool call. `.planview/` ignores itself, so a user's own project config is never tracked; a
config file that *is* tracked by git was committed by whoever wrote the repository, and starting
the programs it names would let a cloned repository run code on the reader's machine. Those
servers are refused with a line naming the fix.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from planview.mcp_config import McpServerConfig

_GIT_TIMEOUT = 10.0


def tracked_by_git(path: Path) -> str | None:
    """`path` relative to its repository's top when git tracks it, else None (git runs with
    planview's plan-mode environment: no hooks, no fsmonitor, no user or system config)."""
    from planview.gate.git_env import base_env

    folder = path.parent
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=folder,
            env=base_env(folder),
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT,
        )
        if top.returncode != 0:
            return None
        root = Path(top.stdout.strip())
        relative = path.resolve().relative_to(root.resolve()).as_posix()
        listed = subprocess.run(
            ["git", "ls-files", "--error-unmatch", "--", relative],
            cwd=root,
            env=base_env(root),
            capture_output=True,
            timeout=_GIT_TIMEOUT,
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return relative if listed.returncode == 0 else None


def refusal(config: McpServerConfig) -> str | None:
    """Why this server is not started, or None when its config file is the user's own."""
    from planview.config import user_config_path

    source = config.source
    if source is None or source == user_config_path():
        return None
    tracked = tracked_by_git(source)
    if tracked is None:
        return None
    return (
        f"MCP server {config.name!r} is not started: {source} is tracked by git, so it came with the "
        "repository, and planview does not run programs a repository names; move "
        f"{config.table} to your user config ({user_config_path()}) or stop tracking the file "
        f"(from the repository's top folder: git rm --cached {tracked})"
    )
