"""Whether the repository's own config includes a file outside the project (include.path, includeIf).

Inside the kernel sandbox git cannot read such a file: it stops with "unable to access …: Permission
denied" and "fatal: bad config line N", a message that names no fix. The sandboxed plan shell asks
this first and refuses git with a sentence instead (the other read-only commands still run). The
config is read as git writes it (`[include]` / `[includeIf "…"]` sections, `path = …` lines,
quoted or not); only the repository's own config file is read, never the included ones.
"""

from __future__ import annotations

import os
import re

from planview.fileguard import NotAFileError, TooLargeError, read_regular
from planview.gate.git_store import common_dir
from planview.lazy_regex import LazyPattern

__all__ = ["outside_include"]

_CAP = 1024 * 1024
_SECTION = LazyPattern(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]\s*(.*)$')
_PATH = LazyPattern(r"(?i)^\s*path\s*=\s*(.*?)\s*$")


def _value(raw: str) -> str:
    raw = re.sub(r"\s[#;].*$", "", raw) if '"' not in raw else raw
    if raw.startswith('"') and '"' in raw[1:]:
        return raw[1 : raw.index('"', 1)]
    return raw.strip()


def included_paths(config_text: str) -> list[str]:
    """The `path` values of the include sections, in order."""
    found: list[str] = []
    section = ""
    for line in config_text.splitlines():
        header = _SECTION.match(line)
        if header is not None:
            section = header.group(1).lower()
            line = header.group(2)
            if not line.strip():
                continue
        if section in ("include", "includeif"):
            match = _PATH.match(line)
            if match is not None:
                found.append(_value(match.group(1)))
    return found


def outside_include(root: str | os.PathLike[str]) -> str | None:
    """The refusal when the project's repository config includes a file outside the project."""
    base = os.path.realpath(os.fspath(root))
    common = common_dir(base)
    if common is None:
        return None
    config = os.path.join(common, "config")
    try:
        text = read_regular(config, _CAP, "git config").decode("utf-8", "replace")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (NotAFileError, TooLargeError, OSError):
        return None  # git cannot use it either; it says so itself
    for value in included_paths(text):
        if not value:
            continue
        path = os.path.expanduser(value) if value.startswith("~") else value
        path = os.path.realpath(os.path.join(common, path))
        inside = [base, os.path.realpath(common)]
        if not any(path == top or path.startswith(top.rstrip("/") + "/") for top in inside):
            return (
                f"the repository's config includes {value} (include.path), a file outside the project that "
                "plan mode's sandbox does not let git read, so git cannot run here while planning; the other "
                "read-only commands (rg, grep, ls, cat, …) still do, or remove the include from .git/config"
            )
    return None
