"""Where a git command's path words lead: inside the project, or out of it.

Two checks. Lexical (no IO): absolute, from a home folder, or climbing out with `..`. Resolved
(when the gate knows the project root): the path as the OS would open it, symlinks followed,
relative to the project; a committed symlink `ext -> /elsewhere` makes `ext/secret` outside even
though its spelling is not. Git prints what such files hold (`git config -f`, `blame -S` error
lines), so a path-valued option whose value leaves the project is refused, and so is any other
word that names a path leaving it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

__all__ = ["FILE_OPTIONS", "escapes", "file_values", "outside_project"]

_LOG_FAMILY = ("log", "show", "whatchanged", "rev-list", "diff", "diff-tree", "diff-index", "diff-files")

# Options whose value is a file git reads, per subcommand: (short letters, long names).
FILE_OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "grep": ("f", ("--file",)),
    "blame": ("S", ("--ignore-revs-file", "--contents")),
    "ls-files": ("X", ("--exclude-from",)),
    "config": ("f", ("--file",)),
    "rev-parse": ("", ("--resolve-git-dir",)),
    **dict.fromkeys(_LOG_FAMILY, ("O", ("--orderfile",))),
}
# Short options whose stuck argument is the rest of the word (so -Sconfig is -S "config").
STUCK_ARG: dict[str, str] = {
    **dict.fromkeys(_LOG_FAMILY, "nUMBlSGLIXO"),
    "grep": "ABCefm",
    "blame": "LSM",
    "shortlog": "w",
    "tag": "n",
    "ls-files": "xX",
    "config": "f",
}


def outside_project(word: str) -> bool:
    """Whether a path word names something outside the project root by its spelling alone:
    absolute, from a home folder, or climbing out with `..`."""
    if word.startswith(("/", "~", "\\")):
        return True
    depth = 0
    for part in word.replace("\\", "/").split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


@lru_cache(maxsize=64)
def _real_root(root: str) -> str:
    return os.path.realpath(root)


def escapes(word: str, root: Path | str | None, *, follow_last: bool = True) -> bool:
    """Whether `word`, opened as a path from the project root, lands outside it (symlinks followed).

    `follow_last=False` is for pathspecs: git does not follow a symlink it is pointed at (it shows
    the link), only the folders on the way to it count.
    """
    if outside_project(word):
        return True
    if root is None or not word:
        return False
    base = _real_root(os.fspath(root))
    path = os.path.join(base, word)
    if "/" not in word and (not follow_last or not os.path.islink(path)):
        return False  # a plain name in the project root: no folder on the way to resolve
    if not follow_last:
        path = os.path.dirname(path.rstrip("/")) or base
    real = os.path.realpath(path)
    return real != base and not real.startswith(base.rstrip(os.sep) + os.sep)


def file_values(sub: str, args: Sequence[str]) -> list[str]:
    """The values given to `sub`'s file-reading options, in every spelling (=, next word, stuck, cluster)."""
    if sub not in FILE_OPTIONS:
        return []
    short, longs = FILE_OPTIONS[sub]
    found: list[str] = []
    skip = False
    for index, word in enumerate(args):
        after = args[index + 1] if index + 1 < len(args) else ""
        if skip:  # the value of the option before (git grep -e -f: "-f" is the pattern)
            skip = False
            continue
        if word == "--":
            break
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            if len(name) > 3 and any(long.startswith(name) for long in longs):  # abbreviations count
                found.append(value if equals else after)
                skip = not equals
        elif word.startswith("-") and short:
            stuck = STUCK_ARG.get(sub, "")
            for position, letter in enumerate(word[1:], start=2):
                if letter in short:
                    found.append(word[position:] or after)
                    skip = position == len(word)
                    break
                if letter in stuck:
                    skip = position == len(word)
                    break
    return found
