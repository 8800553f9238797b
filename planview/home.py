"""Where planview keeps its state, and the name of every file in it (the ground floor: no planview imports
but `errors` and `atomic`).

The home is `$PLANVIEW_HOME`, else `<git toplevel>/.planview`, else the per-user data folder; it is
created with a `.gitignore` of `*` so nothing in it ever shows as untracked. `HomeLayout` is the one
place that names what lives inside it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from planview.atomic import atomic_write
from planview.errors import PlanviewError

__all__ = [
    "CONFIG_NAME",
    "HOME_ENV",
    "HomeError",
    "HomeLayout",
    "default_home",
    "ensure_home",
    "find_project_root",
    "planview_home",
]

HOME_ENV = "PLANVIEW_HOME"
CONFIG_NAME = "config.toml"  # the same name in the user config dir and in the home


class HomeError(PlanviewError):
    """The planview home cannot be created or used; the message names the folder and the fix."""


@dataclass(frozen=True)
class HomeLayout:
    """Every file and folder planview keeps under one home (`<repo>/.planview` or the user data dir)."""

    root: Path

    @property
    def gitignore(self) -> Path:  # `*`: the home ignores itself
        return self.root / ".gitignore"

    @property
    def plans(self) -> Path:  # YYYY-MM-DD-HHmm-slug.md
        return self.root / "plans"

    @property
    def artifacts(self) -> Path:  # <uuid>.md sealed approved plans, <uuid>.packet.json evidence
        return self.root / "artifacts"

    @property
    def ledger(self) -> Path:  # append-only, hash-chained approval events
        return self.root / "ledger.jsonl"

    @property
    def reviews(self) -> Path:  # what each plan looked like at its last review
        return self.root / "reviews"

    @property
    def sessions(self) -> Path:  # <id>.jsonl conversation, mode, approval, todos
        return self.root / "sessions"

    @property
    def config(self) -> Path:  # project config (the user config lives in the platform config dir)
        return self.root / CONFIG_NAME

    def session(self, session_id: str) -> Path:
        return self.sessions / f"{session_id}.jsonl"

    @property
    def logs(self) -> Path:  # <session id>.agent.log: an ACP agent's stderr (planview.agents)
        return self.root / "logs"

    def agent_log(self, session_id: str) -> Path:
        return self.logs / f"{session_id}.agent.log"


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
        ignore = HomeLayout(home).gitignore
        if not os.path.lexists(ignore):
            atomic_write(ignore, "*\n")
    except OSError as exc:
        raise HomeError(
            f"cannot create the planview folder {home}: {exc.strerror or exc}; "
            f"make it writable or set {HOME_ENV} to a writable folder"
        ) from exc


def planview_home(start: Path | None = None) -> Path:
    """$PLANVIEW_HOME, else <git toplevel>/.planview, else the user data dir; created with its .gitignore."""
    home = default_home(None if os.environ.get(HOME_ENV, "").strip() else find_project_root(start))
    ensure_home(home)
    return home
