"""What a tool is: a schema the model sees, an async function the session runs, a headline."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from planview.errors import PlanviewError
from planview.gate.read_scope import locate

if TYPE_CHECKING:
    from planview.session.protocol import ToolHost


class ToolError(PlanviewError):
    """A tool ran and failed for a reason the model can fix (the message says how)."""


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns: the text the model sees, whether it failed, and whether the turn stops."""

    text: str
    error: bool = False
    # "review": end the turn after this call (exit_plan_mode with no UI attached)
    stop_turn: str | None = None


@dataclass(frozen=True)
class ToolContext:
    """What a tool runs with: the project root and the narrow session protocol (session/protocol.py)."""

    project_root: Path
    host: ToolHost
    call_id: str = ""  # the model's id for this call (a subagent tags its child's events with it)


ToolFn = Callable[[ToolContext, Mapping[str, Any]], Awaitable[ToolResult]]


@dataclass(frozen=True)
class ToolDef:
    """A tool the session offers: its schema, the function that runs it and its headline."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    run: ToolFn
    headline: Callable[[Mapping[str, Any]], str]
    mutating: bool = False  # changes the project: pinned to the approved plan's hash in execute mode


def string_arg(description: str) -> dict[str, str]:
    """One string argument's JSON schema."""
    return {"type": "string", "description": description}


def integer_arg(description: str) -> dict[str, str]:
    return {"type": "integer", "description": description}


def schema(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


def resolve(root: Path, value: Any, *, name: str = "path") -> Path:
    """A path argument relative to the project root (absolute paths are taken as they are)."""
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"`{name}` must be a non-empty path string")
    return locate(root, value)


def display(root: Path, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve())) or "."
    except ValueError:
        return str(path)


def validate(params: Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
    """A small check of the arguments against the tool's schema: required keys, unknown keys, basic types."""
    props = params.get("properties", {})
    for key in params.get("required", ()):
        if key not in args:
            return f"missing required argument `{key}`"
    if params.get("additionalProperties") is False:
        extra = sorted(set(args) - set(props))
        if extra:
            return f"unknown argument(s) {', '.join(extra)}; this tool takes {', '.join(props) or 'no arguments'}"
    types: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "integer": int,
        "boolean": bool,
        "array": list,
        "object": dict,
        "number": (int, float),
    }
    for key, value in args.items():
        want = props.get(key, {}).get("type")
        if want in types and value is not None:
            ok = isinstance(value, types[want]) and not (
                want in ("integer", "number") and isinstance(value, bool)
            )
            if not ok:
                return f"argument `{key}` must be {'an' if want[0] in 'aeiou' else 'a'} {want}"
        enum = props.get(key, {}).get("enum")
        if enum and value not in enum:
            return f"argument `{key}` must be one of: {', '.join(map(str, enum))}"
    return None
