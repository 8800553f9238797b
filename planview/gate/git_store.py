"""Whether the project's repository reads objects from a store outside the project.

`objects/info/alternates` lists object stores git reads as its own (`git clone --reference` and
`--shared` write it; a hostile repository can write it by hand), and `objects` itself can be a
symlink. Read-only git then shows that store's commits and files: `git show <id>` prints one, and
`git cat-file --batch-all-objects --batch` prints all of them, though no ref of the project reaches
them (verified with git 2.39, tests/gate/test_gate_object_store.py). Git has no setting that
ignores alternates, and every command that takes a revision can reach them (an ambiguous short id
even lists candidates), so plan mode runs no git in such a repository; the readers still work.

A store is the repository's own when it lies inside the project or inside the repository's common
git folder (a linked worktree's objects live in the main repository, outside the worktree). git
follows an alternate's own alternates to depth 5, and so does this check. Only files are read: the
gate stays free of processes.
"""

from __future__ import annotations

import codecs
import os
import stat

from planview.fileguard import NotAFileError, TooLargeError, kind_of, read_regular

__all__ = ["borrowed_store", "common_dir"]

_CAP = 1024 * 1024
_MAX_DEPTH = 5  # git's own limit on nested alternates


def _small(path: str) -> bytes | None:
    """A git file's bytes; None when it does not exist."""
    try:
        return read_regular(path, _CAP, "git file")
    except (FileNotFoundError, NotADirectoryError):
        return None


def common_dir(root: str, seen: list[str] | None = None) -> str | None:
    """The repository's common git folder for the project at `root`, None when there is no repository.
    `seen` collects the files the answer was read from."""
    dot = os.path.join(root, ".git")
    if seen is not None:
        seen.append(dot)
    try:
        mode = os.stat(dot).st_mode
    except OSError:
        if seen is not None:
            seen.append(os.path.join(root, "objects"))
        # A bare repository as the project: git takes the folder itself.
        bare = all(os.path.exists(os.path.join(root, name)) for name in ("HEAD", "objects", "refs"))
        return root if bare else None
    if stat.S_ISDIR(mode):
        gitdir = dot
    else:
        try:
            line = (_small(dot) or b"").rstrip(b"\r\n")
        except (NotAFileError, TooLargeError, OSError):
            return None  # git cannot use it either
        if not line.startswith(b"gitdir: "):
            return None
        gitdir = os.path.join(root, os.fsdecode(line[len(b"gitdir: ") :]))
    if seen is not None:
        seen.append(os.path.join(gitdir, "commondir"))
    try:
        pointer = _small(os.path.join(gitdir, "commondir"))
    except (NotAFileError, TooLargeError, OSError):
        pointer = None
    if pointer is not None and pointer.strip():
        return os.path.join(gitdir, os.fsdecode(pointer.strip()))
    return gitdir


def _within(path: str, folders: tuple[str, ...]) -> bool:
    real = os.path.realpath(path)
    return any(real == folder or real.startswith(folder.rstrip(os.sep) + os.sep) for folder in folders)


def _entries(data: bytes) -> list[str]:
    """The stores an alternates file names, as git parses them: one a line, `#` comments and
    blank lines skipped, a line starting with `"` C-unquoted, a trailing slash dropped."""
    found: list[str] = []
    for line in data.split(b"\n"):
        if not line or line.startswith(b"#"):
            continue
        if line.startswith(b'"') and line.endswith(b'"') and len(line) > 1:
            line = codecs.escape_decode(line[1:-1])[0]
        found.append(os.fsdecode(line.rstrip(b"/") or b"/"))
    return found


def _reason(store: str, listed_in: str) -> str:
    return (
        f"this repository borrows objects from {store} (listed in {listed_in}), outside the project: "
        "plan-mode git would show that store's commits and files, so it does not run here. Look at files "
        "with the read / grep / find / ls tools; the user can make the repository self-contained by "
        f"running `git repack -a -d` in it and then deleting {listed_in}"
    )


def _kind(path: str) -> str:
    try:
        return kind_of(os.stat(path).st_mode)
    except OSError:
        return "not a regular file"


def _walk(objects: str, own: tuple[str, ...], depth: int, seen: list[str]) -> str | None:
    listed_in = os.path.join(objects, "info", "alternates")
    seen += [objects, listed_in]
    try:
        data = _small(listed_in)
    except NotAFileError:
        return (
            f"{listed_in} is {_kind(listed_in)}, so the object stores it lists cannot be checked; plan-mode "
            "git does not run here. Look at files with the read / grep / find / ls tools, and move the "
            "file aside if git should run"
        )
    except (TooLargeError, OSError) as exc:
        return (
            f"{listed_in} cannot be checked ({exc}); plan-mode git does not run here. Look at files with "
            "the read / grep / find / ls tools"
        )
    if data is None:
        return None
    for entry in _entries(data):
        store = entry if os.path.isabs(entry) else os.path.join(objects, entry)
        if not _within(store, own):
            return _reason(os.path.normpath(store), listed_in)
        if depth < _MAX_DEPTH:
            nested = _walk(store, own, depth + 1, seen)
            if nested is not None:
                return nested
    return None


def _signature(path: str) -> _Signature | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
    )  # ctime: utime cannot restore it


# The verdict per project root, with the files it was read from and their lstat: the gate decides
# every plan-mode git command against one root, and the realpaths cost ~0.1 ms a decision.
_Signature = tuple[int, int, int, int, int]
_VERDICTS: dict[str, tuple[tuple[tuple[str, _Signature | None], ...], str | None]] = {}


def borrowed_store(project_root: os.PathLike[str] | str) -> str | None:
    """Why plan-mode git may not run in the project's repository (its objects come from a store
    outside the project, or that cannot be checked), or None when its object store is its own.
    Answered again from the files only when one of them changed."""
    root = os.path.abspath(os.fspath(project_root))
    cached = _VERDICTS.get(root)
    if cached is not None and all(_signature(path) == sig for path, sig in cached[0]):
        return cached[1]
    seen: list[str] = []
    verdict = _borrowed(root, seen)
    if len(_VERDICTS) > 64:
        _VERDICTS.clear()
    _VERDICTS[root] = (tuple((path, _signature(path)) for path in dict.fromkeys(seen)), verdict)
    return verdict


def _borrowed(root: str, seen: list[str]) -> str | None:
    common = common_dir(root, seen)
    if common is None:
        return None
    own = (os.path.realpath(root), os.path.realpath(common))
    objects = os.path.join(common, "objects")
    if not _within(objects, own):
        return (
            f"this repository's object folder {objects} leads to {os.path.realpath(objects)}, outside the "
            "project: plan-mode git would show that store's commits and files, so it does not run here. "
            "Look at files with the read / grep / find / ls tools"
        )
    return _walk(objects, own, 0, seen)
