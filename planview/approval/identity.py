"""Who is approving: an explicit name, else git's identity, else the OS user."""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

from planview.approval.errors import ApprovalError


def _clean(name: str) -> str:
    """Whitespace runs as one space, and no character a terminal would act on (ESC, C1, bidi controls):
    the name goes into the ledger and is printed by status and audit."""
    kept = (ch if ch.isprintable() or ch.isspace() else "" for ch in name)
    return " ".join("".join(kept).split())


def _git_config(key: str, cwd: Path | None) -> str:
    try:
        done = subprocess.run(
            ["git", "config", "--get", key],
            cwd=cwd,
            capture_output=True,
            text=True,
            errors="replace",  # a name in another encoding is still a name, not a crash
            timeout=10,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return _clean(done.stdout) if done.returncode == 0 else ""


def resolve_approver(explicit: str | None = None, cwd: Path | None = None) -> str:
    """`--as NAME` wins; else `user.name <user.email>` from git (either alone if that is all); else the OS user."""
    if explicit is not None:
        name = _clean(explicit)
        if not name or not all(ch.isprintable() or ch == "\t" for ch in explicit):
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
