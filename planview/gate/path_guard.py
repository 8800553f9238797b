"""The path backstop: does a tool's input name a file or folder anywhere?

`readOnlyHint` is only a claim made by the tool's author, so in plan mode a hinted tool that takes a
path is refused unless it is one of planview's own readers. The scan is recursive (objects and arrays,
to a bounded depth and size) and looks at both keys (`filePaths`, `output_dir`, `srcFolder`, ...) and
values shaped like paths (`./x`, `../x`, `~/x`, `/etc/x`, `C:\\x`, `a/b.ext`). URLs are not paths,
except `file:` URLs, which are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from planview.gate.calls import show

__all__ = ["MAX_DEPTH", "MAX_NODES", "is_path_key", "is_path_value", "takes_path"]

MAX_DEPTH = 24
MAX_NODES = 5000

# Whole words (after splitting camelCase / snake_case / kebab-case) that make a key path-taking.
# "src" and "dst" count: they are the usual short spellings of source and destination.
_KEY_WORDS = frozenset(
    "path file dir folder root cwd glob dest source target include exclude src dst output out "
    "directory directories destination filename pathname dirname basename".split()
)
# Compounds written as one lowercase word: workdir, filepath, webroot, logfile, subfolder, ...
_KEY_SUFFIXES = (
    "dir",
    "dirs",
    "path",
    "paths",
    "file",
    "files",
    "folder",
    "folders",
    "root",
    "roots",
    "glob",
    "globs",
)
_NOT_PATH_WORDS = frozenset({"profile", "profiles"})

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NON_ALNUM = re.compile(r"[^A-Za-z0-9]+")

_PATH_VALUE = re.compile(
    r"""^(?:
        \.{1,2}(?:[\\/]|$)                      # . .. ./x ../x .\x
      | ~[\w.-]*(?:[\\/]|$)                     # ~ ~/x ~user/x
      | /(?:$|[\w.@+~-]+(?:[\\/]|$))            # / /etc /etc/x (not "/* comment" or "/plan review")
      | \\\\                                    # \\server\share
      | [A-Za-z]:[\\/]                          # C:\x  C:/x
      | file:                                   # file:///etc/passwd
      | [^\s:*?"<>|]*[\\/][^\s:*?"<>|\\/]*\.[A-Za-z0-9_]{1,16}$   # a/b.ext  a\b.ext
    )""",
    re.X | re.I,
)


def _words(key: str) -> list[str]:
    return [word.lower() for word in _NON_ALNUM.split(_CAMEL.sub(" ", key)) if word]


def is_path_key(key: str) -> bool:
    """Whether a key's words include path, file, dir, folder, root, ... (any case, plurals, compounds)."""
    for word in _words(key):
        if word in _NOT_PATH_WORDS:
            continue
        if word in _KEY_WORDS:
            return True
        if word.endswith("s") and (
            word[:-1] in _KEY_WORDS or (word.endswith("es") and word[:-2] in _KEY_WORDS)
        ):
            return True
        if word.endswith(_KEY_SUFFIXES):
            return True
    return False


def is_path_value(text: str) -> bool:
    """Whether a string is shaped like a file path (URLs other than file: are not)."""
    # Servers commonly strip their arguments: " /etc/passwd\n" reaches them as /etc/passwd.
    text = text.strip()
    if not text or len(text) > 4096 or "\n" in text:
        return False
    if _PATH_VALUE.match(text) is None:
        return False
    # A URL is not a path, but a file: URL names one.
    return "://" not in text.lower().split("file:", 1)[0]


def _where(trail: tuple[str | int, ...]) -> str:
    out = ""
    for step in trail:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out or "input"


def takes_path(value: Mapping[str, Any]) -> str | None:
    """A short description of the first path-taking key or path-shaped value, or None.

    Input nested deeper than MAX_DEPTH, or larger than MAX_NODES values, counts as path-taking:
    what cannot be checked is refused.
    """
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    nodes = 0
    while stack:
        node, trail = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return f"an input of more than {MAX_NODES} values, too large to check for paths"
        if len(trail) > MAX_DEPTH:
            return f"an input nested deeper than {MAX_DEPTH} levels, too deep to check for paths"
        if isinstance(node, str):
            if is_path_value(node):
                return f"the path-shaped value {show(node)} at {_where(trail)}"
        elif isinstance(node, Mapping):
            children: list[tuple[Any, tuple[str | int, ...]]] = []
            for key, child in node.items():
                name = key if isinstance(key, str) else str(key)
                if is_path_key(name):
                    return f"the path argument {show(name)} at {_where((*trail, name))}"
                children.append((child, (*trail, name)))
            stack.extend(reversed(children))
        elif isinstance(node, list | tuple):
            for index in range(len(node) - 1, -1, -1):
                stack.append((node[index], (*trail, index)))
    return None
