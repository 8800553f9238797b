"""Helpers of the team tests: a scratch team with real git and real ssh-keygen: a bare remote, clones, three ed25519 keys
(alice and bob are members, carol is an outsider), all in temp folders; ~/.ssh is never touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

POLICY = """\
[groups]
maintainers = ["alice@example.com", "bob@example.com"]

[[rules]]
paths = ["**"]
approvals = 1

[[rules]]
paths = ["src/secure/**"]
approvals = 2

[[rules]]
paths = [".planview/allowed_signers", ".planview/policy.toml"]
approvals = 1
group = "maintainers"
exclude_author = true
"""

PLAN = """\
---
scope: [src/**, .planview/allowed_signers, .planview/policy.toml]
---
# Add the parser

## Goal
Parse the config.

## Steps
- [ ] write src/parser.py
- [ ] write src/secure/keys.py
"""


def clean_env(base: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "SSH_", "PLANVIEW_")) and k not in ("CLAUDECODE",)
    }
    env.update(
        HOME=str(base / "home"),
        XDG_CONFIG_HOME=str(base / "home" / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=str(base / "home" / ".gitconfig"),
        GIT_AUTHOR_DATE="2026-01-01T00:00:00Z",
        GIT_COMMITTER_DATE="2026-01-01T00:00:00Z",
    )
    return env


@dataclass
class Team:
    """The scratch team: where everything lives and how to run git and planview there."""

    base: Path
    remote: Path
    keys: dict[str, Path]
    env: dict[str, str]

    def git(self, cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, env={**self.env, **(env or {})}
        )
        if check and done.returncode != 0:
            raise AssertionError(f"git {args}: {done.stderr}")
        return done.stdout.strip()

    def pv(
        self, cwd: Path, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "planview", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            env={**self.env, **(env or {})},
            timeout=120,
        )

    def clone(self, name: str, who: str | None = None) -> Path:
        path = self.base / name
        self.git(self.base, "clone", "-q", str(self.remote), str(path))
        if who is not None:
            self.as_member(path, who)
        return path

    def as_member(self, path: Path, who: str) -> None:
        self.git(path, "config", "user.name", who.title())
        self.git(path, "config", "user.email", f"{who}@example.com")
        self.git(path, "config", "gpg.format", "ssh")
        self.git(path, "config", "user.signingkey", str(self.keys[who]))

    def signer_line(self, who: str) -> str:
        public = Path(f"{self.keys[who]}.pub").read_text().split()
        return f'{who}@example.com namespaces="planview-approval-v1" {public[0]} {public[1]}\n'

    def write_plan(self, clone: Path, text: str = PLAN, name: str = "2026-01-01-0000-parser.md") -> Path:
        plans = clone / ".planview" / "plans"
        plans.mkdir(parents=True, exist_ok=True)
        (plans / name).write_text(text)
        return plans / name

    def approve(self, clone: Path, plan: Path) -> subprocess.CompletedProcess[str]:
        done = self.pv(clone, "approve", str(plan), "--sign")
        assert done.returncode == 0, done.stderr
        return done

    def commit(
        self, clone: Path, files: dict[str, str], message: str, *, env: dict[str, str] | None = None
    ) -> str:
        for name, text in files.items():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            (clone / name).write_text(text)
            self.git(clone, "add", "-f", "--", name)
        self.git(clone, "commit", "-q", "-m", message, env=env)
        return self.git(clone, "rev-parse", "HEAD")


def make_keys(base: Path) -> dict[str, Path]:
    keys = {}
    for who in ("alice", "bob", "carol"):
        path = base / "keys" / who
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", who, "-f", str(path)],
            check=True,
            capture_output=True,
        )
        keys[who] = path
    return keys


def third_clone(team: Team, name: str) -> Path:
    """A fresh clone that fetches the notes the way docs/ci/ says, on the feature branch."""
    clone = team.clone(name)
    team.git(clone, "config", "user.email", "ci@example.com")
    team.git(clone, "config", "user.name", "CI")
    team.git(clone, "fetch", "-q", "origin", "refs/notes/planview/approvals:refs/notes/planview/approvals")
    team.git(clone, "checkout", "-q", "feature")
    return clone


def verify(team: Team, clone: Path, *extra: str) -> tuple[int, dict]:
    done = team.pv(clone, "verify", "--base", "origin/main", "--json", *extra)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def reasons(report: dict) -> str:
    return "\n".join(f"{f['commit']} {f['path']}: {f['reason']}" for f in report["findings"])
