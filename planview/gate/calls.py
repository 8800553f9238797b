"""Tool calls as the gate sees them, and the checks that tell a well-formed call from a malformed one.

A call arrives from a model (or a JSON line on the CLI), so nothing about its shape is trusted:
`parse_call` turns any value into a `ToolCall` or raises `MalformedCall` with a reason that says
what is wrong, and `parse_json_line` does the same for one line of JSON Lines input.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping

from planview.errors import PlanviewError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the Claude hook's start-up)
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any, Literal

    Mode = Literal["plan", "execute"]

__all__ = [
    "Decision",
    "GatePolicy",
    "GateRefusal",
    "MalformedCall",
    "Mode",
    "ToolCall",
    "parse_call",
    "parse_json_line",
]

MODES: tuple[str, ...] = ("plan", "execute")

# Field names a call mapping may carry; "tool" is the CLI's spelling of "name", "inputSchema" is MCP's.
_NAME_KEYS = ("name", "tool")
_SCHEMA_KEYS = ("input_schema", "inputSchema")
_KNOWN_KEYS = frozenset({*_NAME_KEYS, *_SCHEMA_KEYS, "input", "annotations", "builtin", "id"})
_SHOW_LIMIT = 60


# Named tuples, not dataclasses: the Claude hook builds them before every tool call, and creating a
# dataclass costs 0.4-1 ms at import plus `dataclasses`/`inspect` themselves (benchmarks/README.md).
class ToolCall(
    namedtuple("ToolCall", "name input annotations builtin input_schema", defaults=(None, True, None))
):
    """One tool call: its name, the JSON object the model sent, and what the runtime knows about the tool."""

    __slots__ = ()
    name: str
    input: Mapping[str, Any]
    annotations: Mapping[str, Any] | None  # MCP annotations, e.g. {"readOnlyHint": True}; default None
    builtin: bool  # one of planview's own tools (control-tool identity); default True
    input_schema: Mapping[str, Any] | None  # the tool's JSON schema (subagent readOnly check); default None


class Decision(namedtuple("Decision", "allowed reason call")):
    """The gate's answer. `call` is the call to run: the gate may rewrite it (subagent forced read-only)."""

    __slots__ = ()
    allowed: bool
    reason: str  # refusal text for the model, naming the fix; "" or a short note when allowed
    call: ToolCall  # for a malformed call: a placeholder with whatever name could be read and no input

    def require(self) -> ToolCall:
        """The call to run, or GateRefusal carrying the reason when the gate said no."""
        if not self.allowed:
            raise GateRefusal(self.reason, self.call.name)
        return self.call


class GatePolicy(
    namedtuple(
        "GatePolicy",
        "allow_read_only_hint plans_dir project_root home plan_path_check sandboxed",
        defaults=(True, None, None, None, None, False),
    )
):
    """What one gate knows of the project it guards; whoever builds the session's store builds this.

    `plan_path_check` is that store's own containment rule (`PlanStore.check_path`): it returns the
    plan's path or raises a PlanviewError naming the fix. Handed in, not rebuilt here, so write_plan's
    plan_path is judged by the very store that will write it (its home and project root). Without
    one, a plan_path is judged lexically against `plans_dir`."""

    __slots__ = ()
    allow_read_only_hint: (
        bool  # config switch (default True): False refuses even tools that declare readOnlyHint
    )
    plans_dir: Path | None  # write_plan's plan_path must be contained here
    # Plan-mode git path words and reader paths are resolved (symlinks followed) against it; None
    # leaves the readers' confinement to the readers themselves (gate.read_scope).
    project_root: Path | None
    home: Path | None  # planview's home: plan-mode readers may read its plans too
    plan_path_check: Callable[[str], object] | None  # the plan store's check_path
    # Plan-mode bash runs in the kernel sandbox (planview.sandbox): the read-only commands of
    # gate.read_commands run too, not only read-only git. Only a surface that runs the command
    # through planview.sandbox.launch may set it (default False).
    sandboxed: bool


class GateRefusal(PlanviewError):
    """Raised by callers that want an exception for a refused call; the message is the gate's reason."""

    def __init__(self, reason: str, tool: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.tool = tool


class MalformedCall(ValueError):
    """A call whose shape is wrong; the message is the part after "malformed tool call: "."""


def show(value: object, limit: int = _SHOW_LIMIT) -> str:
    """A short, quoted, single-line rendering of a model-supplied value for a reason text."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:  # a hostile __repr__ must not break the gate
        text = f"<{type(value).__name__}>"
    text = text[: limit + 1]
    if not text.isprintable():
        text = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f'"{text}"'


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


def _check_object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedCall(f"{what} must be a JSON object, got {_kind(value)}")
    for key in value:
        if not isinstance(key, str):
            raise MalformedCall(f"{what} has a non-string key {show(key)}")
    return value


def _check_name(name: object) -> str:
    if not isinstance(name, str):
        raise MalformedCall(f"the tool name must be a string, got {_kind(name)}")
    if not name.strip():
        raise MalformedCall("the tool name is empty")
    return name


def _validate(call: ToolCall) -> ToolCall:
    _check_name(call.name)
    _check_object(call.input, "input")
    if call.annotations is not None:
        _check_object(call.annotations, "annotations")
    if not isinstance(call.builtin, bool):
        raise MalformedCall(f"builtin must be true or false, got {_kind(call.builtin)}")
    if call.input_schema is not None:
        _check_object(call.input_schema, "input_schema")
    return call


def parse_call(value: object) -> ToolCall:
    """A validated ToolCall from a ToolCall or a mapping; MalformedCall says what is wrong."""
    if isinstance(value, ToolCall):
        return _validate(value)
    if not isinstance(value, Mapping):
        raise MalformedCall(f"expected a JSON object with a tool name and input, got {_kind(value)}")
    unknown = sorted(show(key) for key in value if key not in _KNOWN_KEYS)
    if unknown:
        raise MalformedCall(
            f"unknown field {unknown[0]} (expected tool, input, annotations, builtin, input_schema)"
        )
    names = [value[key] for key in _NAME_KEYS if key in value]
    if not names:
        raise MalformedCall('missing the tool name ("tool")')
    if len(names) == 2 and names[0] != names[1]:
        raise MalformedCall('"tool" and "name" disagree; send one of them')
    schemas = [value[key] for key in _SCHEMA_KEYS if key in value]
    builtin = value.get("builtin", True)
    call = ToolCall(
        name=_check_name(names[0]),
        # A tool without arguments may leave "input" out; an explicit non-object is an error.
        input=value["input"] if "input" in value else {},
        annotations=value.get("annotations"),
        builtin=builtin,  # checked by _validate
        input_schema=schemas[0] if schemas else None,
    )
    return _validate(call)


def _no_constants(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def parse_json_line(line: str) -> ToolCall:
    """One JSON Lines call; MalformedCall for blank lines, bad JSON and bad shapes."""
    import json

    text = line.strip()
    if not text:
        raise MalformedCall("empty line (expected one JSON object per line)")
    try:
        value = json.loads(text, parse_constant=_no_constants)
    except RecursionError:
        raise MalformedCall("the JSON is nested too deeply") from None
    except ValueError as exc:
        detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        where = f" at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise MalformedCall(f"the line is not valid JSON ({detail}{where})") from None
    return parse_call(value)


def placeholder(value: object) -> ToolCall:
    """The `call` of a Decision for a malformed call: the name if one could be read, no input."""
    name = ""
    if isinstance(value, ToolCall):
        name = value.name if isinstance(value.name, str) else ""
    elif isinstance(value, Mapping):
        for key in _NAME_KEYS:
            candidate = value.get(key)
            if isinstance(candidate, str):
                name = candidate
                break
    return ToolCall(name=name, input={})
