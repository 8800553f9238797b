"""Where planview keeps its state: `$PLANVIEW_HOME`, else `<git toplevel>/.planview`, else the
per-user data folder; created with a `.gitignore` of `*` so nothing in it ever shows as untracked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from planview.atomic import atomic_write
from planview.plan.errors import PlanStoreError

__all__ = ["HOME_ENV", "default_home", "ensure_home", "find_project_root", "planview_home"]

HOME_ENV = "PLANVIEW_HOME"


def find_project_root(start: Path | None = None) -> Path | None:
    """The git toplevel containing `start` (default: the current folder), else None."""
    here = Path(start) if start is not None else Path.cwd()
    here = here.absolute()
    while not here.is_dir() and here != here.parent:  # a file, or a path not created yet
        here = here.parent
    git = shutil.which("git")
    if git is None:  # no git binary: recognise a checkout by its .git entry
        for folder in (here, *here.parents):
            if (folder / ".git").exists():
                return folder
        return None
    try:
        done = subprocess.run(
            [git, "rev-parse", "--show-toplevel"],
            cwd=here,
            capture_output=True,
            timeout=15,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    top = os.fsdecode(done.stdout).rstrip("\r\n")
    if done.returncode != 0 or not top:
        return None
    return Path(top)


def default_home(root: Path | None) -> Path:
    override = os.environ.get(HOME_ENV, "").strip()
    if override:
        return Path(override).expanduser().absolute()
    if root is not None:
        return root / ".planview"
    import platformdirs  # only needed outside a repository

    return Path(platformdirs.user_data_path("planview", appauthor=False)).absolute()


def ensure_home(home: Path) -> None:
    """Create the home with its self-ignoring .gitignore (left alone when it already exists)."""
    try:
        home.mkdir(parents=True, exist_ok=True)
        ignore = home / ".gitignore"
        if not os.path.lexists(ignore):
            atomic_write(ignore, "*\n")
    except OSError as exc:
        raise PlanStoreError(
            f"cannot create the planview folder {home}: {exc.strerror or exc}; "
            f"make it writable or set {HOME_ENV} to a writable folder"
        ) from exc


def planview_home(start: Path | None = None) -> Path:
    """$PLANVIEW_HOME, else <git toplevel>/.planview, else the user data dir; created with its .gitignore."""
    home = default_home(None if os.environ.get(HOME_ENV, "").strip() else find_project_root(start))
    ensure_home(home)
    return home
