"""The git plumbing the team layer needs, each call bounded and with a message that names the fix."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from planview.team.errors import TeamError

GIT_TIMEOUT = 120  # a push or fetch to a slow remote; local plumbing takes milliseconds


def _env() -> dict[str, str]:
    # No pager, no prompt for credentials in the middle of a CI run, messages in English (parsed below).
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}


def run_git(
    root: Path, args: Sequence[str], *, input: bytes | None = None, check: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """`git -C root ARGS`; a failure (with check) is a TeamError naming the command and git's words."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            input=input,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            env=_env(),
            stdin=None if input is not None else subprocess.DEVNULL,
            check=False,
        )
    except FileNotFoundError as exc:
        raise TeamError("git is not installed; install git (team approvals live in git notes)") from exc
    except subprocess.TimeoutExpired as exc:
        raise TeamError(f"git {' '.join(args[:3])} took over {GIT_TIMEOUT} s; check the remote") from exc
    if check and done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace")
        said = text.strip().splitlines()
        fix = ""
        if "auto-detect email" in text or "tell me who you are" in text:
            fix = "; notes are commits: set `git config user.email` and `git config user.name` here"
        raise TeamError(f"git {' '.join(args[:4])} failed: {said[-1] if said else done.returncode}{fix}")
    return done


def git_text(root: Path, args: Sequence[str]) -> str:
    return run_git(root, args).stdout.decode("utf-8", "replace").strip()


def repo_root(start: Path) -> Path:
    done = run_git(start, ["rev-parse", "--show-toplevel"], check=False)
    if done.returncode != 0:
        raise TeamError(f"{start} is not inside a git repository; team approvals live in git (git init)")
    return Path(done.stdout.decode().strip())


def resolve_commit(root: Path, ref: str) -> str | None:
    """The commit `ref` names, or None (an option-like ref is refused, never passed to git as one)."""
    if not ref or ref.startswith("-"):
        return None
    done = run_git(
        root, ["rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}"], check=False
    )
    sha = done.stdout.decode().strip()
    return sha if done.returncode == 0 and sha else None


def head_commit(root: Path) -> str | None:
    return resolve_commit(root, "HEAD")


def merge_base(root: Path, a: str, b: str) -> str | None:
    done = run_git(root, ["merge-base", a, b], check=False)
    sha = done.stdout.decode().strip()
    return sha if done.returncode == 0 and sha else None


def file_at(root: Path, commit: str, path: str) -> bytes | None:
    """The bytes of `path` in `commit`'s tree (None when it is not there): never the working tree."""
    done = run_git(root, ["cat-file", "blob", f"{commit}:{path}"], check=False)
    return done.stdout if done.returncode == 0 else None


def config_get(root: Path, key: str) -> str:
    done = run_git(root, ["config", "--get", key], check=False)
    return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else ""


def git_path(root: Path, name: str) -> Path:
    """`git rev-parse --git-path NAME` (honours core.hooksPath and worktrees), absolute."""
    found = Path(git_text(root, ["rev-parse", "--git-path", name]))
    return found if found.is_absolute() else root / found
