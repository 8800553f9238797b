"""Who is approving: an explicit name, else git's identity, else the OS user."""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

from planview.approval.errors import ApprovalError


def _clean(name: str) -> str:
    return " ".join(name.split())


def _git_config(key: str, cwd: Path | None) -> str:
    try:
        done = subprocess.run(
            ["git", "config", "--get", key],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return _clean(done.stdout) if done.returncode == 0 else ""


def resolve_approver(explicit: str | None = None, cwd: Path | None = None) -> str:
    """`--as NAME` wins; else `user.name <user.email>` from git (either alone if that is all); else the OS user."""
    if explicit is not None:
        name = _clean(explicit)
        if not name or any(ord(ch) < 32 or ord(ch) == 127 for ch in explicit if ch not in " \t"):
            raise ApprovalError("--as needs a printable name, e.g. --as 'Ada Reviewer <ada@example.com>'")
        return name
    user, email = _git_config("user.name", cwd), _git_config("user.email", cwd)
    if user and email:
        return f"{user} <{email}>"
    if user or email:
        return user or email
    try:
        name = _clean(getpass.getuser())
    except (KeyError, OSError):
        name = ""
    if not name:
        raise ApprovalError("cannot tell who is approving; pass --as NAME (or set git's user.name)")
    return name
