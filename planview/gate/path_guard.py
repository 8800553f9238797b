"""The path backstop: does a tool's input name a file or folder anywhere?

`readOnlyHint` is only a claim made by the tool's author, so in plan mode a hinted tool that takes a
path is refused unless it is one of planview's own readers. The scan is recursive (objects and arrays,
to a bounded depth and size) and looks at both keys (`filePaths`, `output_dir`, `srcFolder`, ...) and
string values. A value counts as a path when any word of it is one an OS would open: a slash or
backslash anywhere (any number of leading slashes, `etc/passwd`), `~`, `$VAR` / `${VAR}`, `.`, `..`,
a dotfile name (`.env`), a `file:` URL; after NFKC normalisation (full-width and look-alike slashes),
percent-decoding and removal of zero-width characters, with the words of a command, JSON or SQL
string split at blanks, quotes and punctuation. Values longer than MAX_VALUE are refused unread.
URLs with another scheme (https://...) are not paths, and neither is a repository slug (`owner/name`
under a key that names a repository, or after GitHub's `repo:` qualifier) that names no file from the
project root, `/`, the home folder or the current folder (`is_slug`). The rule errs towards refusing:
a hinted tool that is refused can still be used after approval.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from planview.gate.calls import show

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_VALUE",
    "is_path_key",
    "is_path_value",
    "schema_takes_path",
    "takes_path",
]

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

MAX_VALUE = 4096  # a string longer than this is not checked but refused

# Spellings an OS (or a server that decodes its input) would open as a path, once the value is
# normalised: NFKC (full-width ／ becomes /), look-alike slashes mapped, percent-encoding decoded,
# zero-width characters removed. A value is path-shaped when any of its words is; the words of a
# command, a JSON or an SQL string are split at blanks, quotes and punctuation.
_LOOKALIKE_SLASHES = str.maketrans(
    dict.fromkeys("\u2215\u2044\u29f8\u2571\u01c0\u2afd\u3033\u27cb\u29f5", "/")
)
_ZERO_WIDTH = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad\u180e\u202a-\u202e\u2066-\u2069]")
_WORD_SPLIT = re.compile(r"""[\s'"`(),;<>|&{}\[\]=]+""")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_PATH_WORD = re.compile(
    r"""(?:
        [/\\]                                   # a slash (or backslash) anywhere: /etc, //etc, etc/passwd
      | ^~                                      # ~ ~/x ~user
      | \$\{?[A-Za-z_]                           # $HOME/x ${HOME}/x
      | ^\.{1,2}$                               # . ..
      | ^\.[A-Za-z0-9_][\w.-]*$                  # a dotfile name: .env .bashrc .git
      | ^file:                                  # file:relative.txt file:///etc/passwd
    )""",
    re.X | re.I,
)


# Keys (lowercase, separators dropped; plurals too) whose value is conventionally a repository slug:
# GitHub and GitLab `owner/name`, Hugging Face `org/model`.
_SLUG_KEYS = frozenset(
    "repo repository reponame repositoryname fullname namewithowner slug reposlug repoid "
    "modelid datasetid spaceid".split()
)
# GitHub's shapes: an owner of letters, digits and single hyphens; a name of letters, digits, `-`,
# `_` and `.` that does not start with a dot (so neither `.` / `..` nor a dotfile).
_SLUG = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")
_REPO_QUALIFIER = "repo:"


def _slug_key(trail: tuple[str | int, ...]) -> bool:
    """Whether the nearest key above a value (through arrays) names a repository."""
    for step in reversed(trail):
        if isinstance(step, str):
            name = _NON_ALNUM.sub("", step).lower()
            return name in _SLUG_KEYS or (name.endswith("s") and name[:-1] in _SLUG_KEYS)
    return False


def _names_nothing(text: str, bases: Sequence[os.PathLike[str] | str]) -> bool:
    """Whether `text`, opened as a relative path from any of `bases`, `/`, the home folder or the
    current folder (where a server could resolve it), names nothing on disk."""
    folders = [os.fspath(base) for base in bases]
    folders += [os.sep, os.path.expanduser("~")]
    try:
        folders.append(os.getcwd())
    except OSError:  # the current folder was removed
        pass
    return not any(os.path.lexists(os.path.join(folder, text)) for folder in folders)


def is_slug(text: str, bases: Sequence[os.PathLike[str] | str] = ()) -> bool:
    """Whether `text` is exactly one `owner/name` slug that names nothing on disk (`bases` are the
    project root: `etc/passwd`, or `ext/secret` through a symlink in the project, are paths)."""
    return _SLUG.fullmatch(text) is not None and _names_nothing(text, bases)


def _slug_words(text: str, bases: Sequence[os.PathLike[str] | str]) -> str:
    """`text` without its `repo:owner/name` words that are slugs, so the rest is judged alone."""
    if _REPO_QUALIFIER not in text:
        return text
    kept = [
        word
        for word in text.split(" ")
        if not (
            word.startswith(_REPO_QUALIFIER)
            and is_slug(word[len(_REPO_QUALIFIER) :], bases)
            and _names_nothing(word, bases)
        )
    ]
    return " ".join(kept)


def _normalise(text: str) -> str:
    if text.isascii() and "%" not in text:
        return text
    text = unicodedata.normalize("NFKC", text).translate(_LOOKALIKE_SLASHES)
    text = _ZERO_WIDTH.sub("", text)
    for _ in range(3):  # %2F, %252F, ...: what a server decoding its input would open
        if "%" not in text:
            break
        decoded = unquote(text)
        if decoded == text:
            break
        text = unicodedata.normalize("NFKC", decoded).translate(_LOOKALIKE_SLASHES)
    return text


def _path_word(word: str) -> bool:
    if not word or _PATH_WORD.search(word) is None:
        return False
    if _URL.match(word) is not None:
        return word.lower().startswith("file:")  # a URL is not a path, but a file: URL names one
    if re.fullmatch(r"\.?\d+(?:\.\d+)*", word):
        return False  # a number such as .5 or 1.2.3
    return True


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


def is_path_value(text: str, bases: Sequence[os.PathLike[str] | str] = ()) -> bool:
    """Whether a string holds anything an OS would open as a path (URLs other than file: are not,
    nor `repo:owner/name` search qualifiers that are slugs, see is_slug).

    Strings longer than MAX_VALUE count as paths: what cannot be checked is refused.
    """
    if len(text) > MAX_VALUE:
        return True
    text = _slug_words(text, bases)
    text = _normalise(text)
    return any(_path_word(word) for word in _WORD_SPLIT.split(text))


def _where(trail: tuple[str | int, ...]) -> str:
    out = ""
    for step in trail:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out or "input"


def takes_path(value: Mapping[str, Any], bases: Sequence[os.PathLike[str] | str] = ()) -> str | None:
    """A short description of the first path-taking key or path-shaped value, or None.

    A slug under a repository key is no path (is_slug); `bases` are the folders, besides `/`, the
    home folder and the current one, where it must name nothing (the project root).

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
            if len(node) > MAX_VALUE:
                return f"a value of {len(node):,} characters at {_where(trail)}, too long to check for paths"
            if _slug_key(trail) and is_slug(node, bases):
                continue
            if is_path_value(node, bases):
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


# Schema keywords whose values the server may use when the model leaves an argument out.
_SCHEMA_VALUES = ("default", "const", "enum", "examples")


def schema_takes_path(schema: Mapping[str, Any] | None) -> str | None:
    """Like takes_path, for what a tool's input schema declares: a path-named property, or a default
    (const, enum, example) that is path-shaped. A call that leaves such an argument out still lets
    the server open a path of its choosing, so the schema is judged as well as the call."""
    if schema is None:
        return None
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(schema, ())]
    nodes = 0
    while stack:
        node, trail = stack.pop()
        nodes += 1
        if nodes > MAX_NODES or len(trail) > MAX_DEPTH:
            return "an input schema too large or too deep to check for paths"
        if not isinstance(node, Mapping):
            continue
        values = {key: node[key] for key in _SCHEMA_VALUES if key in node}
        if values:
            found = takes_path(values)
            if found is not None:
                return f"the schema's {found.removeprefix('the ')}"
        for keyword in ("properties", "patternProperties", "$defs", "definitions"):
            children = node.get(keyword)
            if not isinstance(children, Mapping):
                continue
            for name, child in children.items():
                key = name if isinstance(name, str) else str(name)
                if keyword == "properties" and is_path_key(key):
                    return f"the schema's path argument {show(key)} at {_where((*trail, key))}"
                stack.append((child, (*trail, key)))
        for keyword in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            child = node.get(keyword)
            if isinstance(child, Mapping):
                stack.append((child, trail))
            elif isinstance(child, list):
                stack.extend((entry, trail) for entry in child)
    return None
