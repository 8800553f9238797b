"""A plan's path scope: the `scope:` globs of its front matter, else the whole repository.

    ---
    scope: [src/parser/**, tests/parser/**]      # or: scope: "src/**"
    ---                                           # or a block list:  scope:\n  - src/**

Only that key is read, in those three spellings; anything else under `scope:` is refused (a scope
planview cannot read is not silently the whole repository).
"""

from __future__ import annotations

from planview.team.errors import PolicyError
from planview.team.globs import check_pattern

WHOLE_REPOSITORY = ("**",)


def _unquote(item: str) -> str:
    item = item.strip()
    if len(item) >= 2 and item[0] == item[-1] and item[0] in "\"'":
        return item[1:-1]
    return item


def _front_matter(text: str) -> list[str] | None:
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    for end in range(1, len(lines)):
        if lines[end].rstrip() in ("---", "..."):
            return lines[1:end]
    return None


def _inline(value: str) -> list[str]:
    if value.startswith("["):
        if not value.endswith("]"):
            raise PolicyError(f"plan front matter: scope {value!r} opens a list it does not close")
        return [_unquote(v) for v in value[1:-1].split(",") if v.strip()]
    return [_unquote(value)]


def plan_scope(text: str) -> tuple[str, ...]:
    """The plan's scope globs (checked), or `**` when its front matter names none."""
    front = _front_matter(text)
    if front is None:
        return WHOLE_REPOSITORY
    found: list[str] | None = None
    for index, line in enumerate(front):
        key, sep, value = line.partition(":")
        if not sep or key.strip() != "scope" or line[:1].isspace():
            continue
        value = value.split(" #", 1)[0].strip()
        if value:
            found = _inline(value)
        else:
            found = []
            for item in front[index + 1 :]:
                stripped = item.strip()
                if not stripped or stripped.startswith("#"):
                    continue
                if not item[:1].isspace() and not stripped.startswith("-"):
                    break
                if not stripped.startswith("- "):
                    raise PolicyError(f"plan front matter: scope item {stripped!r} is not `- pattern`")
                found.append(_unquote(stripped[2:].split(" #", 1)[0]))
        break
    if found is None:
        return WHOLE_REPOSITORY
    if not found:
        raise PolicyError("plan front matter: scope is empty; list the paths the plan may change")
    for pattern in found:
        try:
            check_pattern(pattern)
        except PolicyError as exc:
            raise PolicyError(f"plan front matter: scope: {exc}") from None
    return tuple(found)
