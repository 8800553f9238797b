"""The demo's sample project: `project/` copied to a fresh temporary folder and made a git repository.

One commit, so plan mode's read-only git commands have history to read and the edits the demo agent
makes afterwards show up in `git diff`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from planview.errors import PlanviewError

PROJECT_TEMPLATE = Path(__file__).resolve().parent / "project"


class DemoSetupError(PlanviewError):
    """The demo project could not be prepared (usually: git is not installed)."""


def _git(root: Path, *args: str) -> None:
    env = {
        **os.environ,
        # The user's own git config (hooks, signing, templates) must not affect the sample repo.
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
        "GIT_AUTHOR_NAME": "planview demo",
        "GIT_AUTHOR_EMAIL": "demo@planview.invalid",
        "GIT_COMMITTER_NAME": "planview demo",
        "GIT_COMMITTER_EMAIL": "demo@planview.invalid",
    }
    try:
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True)
    except FileNotFoundError as exc:
        raise DemoSetupError("the demo needs git on PATH; install git and run `planview demo` again") from exc
    except subprocess.CalledProcessError as exc:
        detail = (exc.stderr or exc.stdout or "").strip().splitlines()
        raise DemoSetupError(
            f"`git {' '.join(args)}` failed in {root}: {detail[-1] if detail else exc}; "
            "check that git works and run `planview demo` again"
        ) from exc


def prepare_demo_project(parent: Path | None = None) -> Path:
    """Copy the sample project into a new temporary folder, `git init` it with one commit.

    Returns the new project root. The folder is left behind on purpose so the user can
    inspect the agent's edits after quitting.
    """
    base = Path(tempfile.mkdtemp(prefix="planview-demo-", dir=parent))
    root = base / "greet"
    shutil.copytree(
        PROJECT_TEMPLATE, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".planview")
    )
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "greet: a tiny greeting CLI")
    return root
