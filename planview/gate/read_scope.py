"""Where plan mode's readers may look: the project and the plans in planview's home, symlinks resolved.

This is the one home of that rule. The gate applies it to planview's readers (read, grep, find, ls)
before they run, so `planview gate check` gives the verdict a session gives; the readers apply it
again to what they open (a link can change between the two, and a glob can climb out); the Claude
Code hook applies it to Claude's Read / Grep / Glob / LS. Plan mode promises exploration of the
project, and whatever a reader returns goes to the model's provider, so ~/.ssh or a link to it must
not be one `read` away. A path that cannot be resolved (a NUL byte, an unknown ~user) is refused.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from planview.gate.calls import show
from planview.home import HomeLayout

__all__ = ["inside", "locate", "read_roots", "refusal"]

# realpath of a folder, kept while the folder is the same file (device, inode): the gate decides
# many calls against one project root, and os.path.realpath walks every component in Python.
_REAL_FOLDERS: dict[str, tuple[tuple[int, int], Path]] = {}


def locate(root: Path, value: str) -> Path:
    """A path argument as a tool opens it: ~ expanded, relative to the project root."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else root / path


def _real_folder(folder: Path) -> Path:
    key = os.fspath(folder)
    try:
        info = os.stat(key)
    except OSError:
        return Path(os.path.realpath(key))
    identity = (info.st_dev, info.st_ino)
    cached = _REAL_FOLDERS.get(key)
    if cached is not None and cached[0] == identity:
        return cached[1]
    real = Path(os.path.realpath(key))
    if len(_REAL_FOLDERS) > 64:
        _REAL_FOLDERS.clear()
    _REAL_FOLDERS[key] = (identity, real)
    return real


def read_roots(project_root: Path, home: Path | None = None) -> tuple[Path, ...]:
    """The folders (resolved) plan-mode readers may read: the project, and the plans in planview's
    home. Only the plans: outside a repository the home is the per-user folder every such project
    shares, and its sessions and logs hold other projects' conversations. A plans folder that is a
    link leading out of its home is no read root (a repository can ship `.planview/plans -> ~/.ssh`)."""
    if home is None:
        return (_real_folder(project_root),)
    plans = _real_folder(HomeLayout(home).plans)
    if not plans.is_relative_to(_real_folder(Path(home))):  # a link out (planview.home refuses it)
        return (_real_folder(project_root),)
    return (_real_folder(project_root), plans)


def inside(path: Path, roots: Sequence[Path]) -> bool:
    """Whether `path`, symlinks resolved, is one of `roots` or inside one; False when it cannot be resolved."""
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError):  # a NUL byte
        return False
    return any(real.is_relative_to(root) for root in roots)


def _plainly_under(root: Path, relative: str) -> bool:
    """Whether root/relative stays under root (resolved) because no part of it is `..` or a
    symlink (then realpath only joins the parts: the common case, decided with one lstat a part)."""
    parts = relative.split("/")
    if ".." in parts:
        return False
    current = ""
    for part in parts:
        if part in ("", "."):
            continue
        current = os.path.join(current or os.fspath(_real_folder(root)), part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return False
        except OSError:
            return True  # as realpath: a part that does not exist is not a link, nor is any below it
    return True


def refusal(value: str, project_root: Path, home: Path | None = None) -> str | None:
    """Why a reader may not open the path argument `value` in plan mode, or None when it may."""
    if "\x00" in value:
        path = None
    elif not value.startswith(("/", "~")) and _plainly_under(project_root, value):
        return None
    else:
        try:
            path = locate(project_root, value)
        except (RuntimeError, ValueError):  # ~nosuchuser, or no home folder to expand ~ to
            path = None
    if path is None:
        return (
            f"{show(value, 200)} cannot be resolved to a file in the project folder {project_root}; "
            "plan mode reads only the project"
        )
    if inside(path, read_roots(project_root, home)):
        return None
    return (
        f"{show(value, 200)} is outside the project folder {project_root} (symlinks resolved); "
        "plan mode reads only the project"
    )
