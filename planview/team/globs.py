"""The path patterns of policy rules and plan scopes: a deliberately tiny language.

A pattern matches a whole repository path (POSIX, relative, as git prints it), segment by segment:
- `*` matches any run of characters inside one segment (never a `/`), `?` one such character;
- a segment that is exactly `**` matches zero or more whole segments (`docs/**` is docs and everything under
  docs/, `**/*.py` every .py file at any depth, `**` every path);
- every other character matches itself.

Nothing else: no `[...]` classes, no `{a,b}`, no `!` negation, no `\\` escapes, no leading `/`, no
empty, `.` or `..` segments, no `**` inside a segment (`a**`). Such a pattern is refused as malformed
rather than read some other way: rules are where policy bugs live, so there is one meaning or none.
"""

from __future__ import annotations

import re
from functools import lru_cache

from planview.team.errors import PolicyError

_FORBIDDEN = set("[]{}!\\\0\n\r")
MAX_PATTERN = 400


def check_pattern(pattern: str) -> str:
    """`pattern` when it is well formed, else PolicyError saying what is wrong with it."""
    if not isinstance(pattern, str) or not pattern:
        raise PolicyError(f'{pattern!r} is not a path pattern; write one such as "src/**"')
    if len(pattern) > MAX_PATTERN:
        raise PolicyError(f"path pattern longer than {MAX_PATTERN} characters: {pattern[:40]!r}…")
    bad = sorted(set(pattern) & _FORBIDDEN)
    if bad:
        raise PolicyError(
            f"path pattern {pattern!r} uses {''.join(bad)!r}; only *, ? and ** segments are special "
            "(no classes, braces, negation or escapes)"
        )
    if pattern.startswith("/"):
        raise PolicyError(f"path pattern {pattern!r} starts with /; patterns are relative to the repository")
    for segment in pattern.split("/"):
        if segment in ("", ".", ".."):
            raise PolicyError(f"path pattern {pattern!r} has an empty, . or .. segment")
        if "**" in segment and segment != "**":
            raise PolicyError(
                f"path pattern {pattern!r}: ** must be a whole segment (write a/**/b, not a**b)"
            )
    return pattern


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    check_pattern(pattern)
    segments: list[str] = []
    for segment in pattern.split("/"):
        if not (segment == "**" and segments[-1:] == ["**"]):  # `**/**` means `**`
            segments.append(segment)
    out = ""
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment != "**":
            out += "".join("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch) for ch in segment)
            out += "" if last else "/"
        elif not last:
            out += "(?:[^/]+/)*"  # zero or more whole segments, each with its separator
        elif index == 0:
            out += "[^/]+(?:/[^/]+)*"  # `**` alone: every path
        else:
            out = out[:-1] + "(?:/[^/]+)*"  # `a/**` is a and everything under it
    return re.compile(out)


def matches(pattern: str, path: str) -> bool:
    """Does `pattern` match the whole of `path`? (PolicyError for a malformed pattern.)"""
    return _compiled(pattern).fullmatch(path) is not None


def matches_any(patterns: tuple[str, ...], path: str) -> bool:
    return any(matches(p, path) for p in patterns)
