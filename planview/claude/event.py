"""One Claude Code hook event, read from the hook's stdin.

Claude Code sends JSON: `session_id`, `transcript_path`, `cwd`, `permission_mode`,
`hook_event_name`, `tool_name`, `tool_input` (and `tool_use_id` for PreToolUse). Nothing in it is
trusted: the size is capped before parsing, nesting depth is bounded, every field planview reads is
type-checked, and the session id must be a plain token (it names a state file).
"""

from __future__ import annotations

import json
from collections import namedtuple
from pathlib import Path

from planview.errors import PlanviewError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's start-up)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "EVENTS",
    "MAX_EVENT_BYTES",
    "HookEvent",
    "HookInputError",
    "event_name_hint",
    "is_session_id",
    "parse_event",
]

EVENTS = ("PreToolUse", "PermissionRequest")
PERMISSION_MODES = ("default", "plan", "acceptEdits", "auto", "dontAsk", "bypassPermissions")
# A Write of a large file carries its whole content; 8 MiB is far above any real tool call and still
# bounded, so a runaway producer cannot make the hook (which runs before every call) eat memory.
MAX_EVENT_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 64
# A session id names a state file: `[A-Za-z0-9][A-Za-z0-9._-]{0,127}`, checked without a regex (no
# pattern compiled on the hook's start-up).
_ID_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_ID_REST = _ID_FIRST | frozenset("._-")


def is_session_id(text: str) -> bool:
    """True for a plain token `[A-Za-z0-9][A-Za-z0-9._-]{0,127}` (it names a state file)."""
    return 0 < len(text) <= 128 and text[0] in _ID_FIRST and all(ch in _ID_REST for ch in text)


class HookInputError(PlanviewError):
    """The hook's stdin is not an event planview can decide; the call is denied."""


# A named tuple, not a dataclass: the hook makes one before every tool call (benchmarks/README.md).
class HookEvent(
    namedtuple(
        "HookEvent", "name session_id cwd permission_mode tool_name tool_input tool_use_id", defaults=("",)
    )
):
    """A checked Claude Code hook event: the tool call Claude asks about, and where and in which mode."""

    __slots__ = ()
    name: str  # hook_event_name: PreToolUse | PermissionRequest
    session_id: str
    cwd: Path
    permission_mode: str  # Claude's own mode; "" when Claude did not say
    tool_name: str
    tool_input: Mapping[str, Any]
    tool_use_id: str  # "" when Claude did not send one

    @property
    def claude_plan_mode(self) -> bool:
        return self.permission_mode == "plan"


def _depth_ok(text: str) -> bool:
    """True when no bracket nesting in `text` goes deeper than MAX_DEPTH (strings skipped)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def _field(data: Mapping[str, Any], key: str, *, required: bool = True) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value):
        raise HookInputError(f"the hook event has no {key} string; this is not a Claude Code hook event")
    return value


def event_name_hint(raw: bytes) -> str:
    """For an event that failed to parse: its hook_event_name if it can be read at all, else "".

    A malformed PermissionRequest must still get an explicit deny (exit 2 is not honoured there).
    """
    if len(raw) > MAX_EVENT_BYTES:
        return ""
    import re  # only for an event that failed to parse

    match = re.search(rb'"hook_event_name"\s*:\s*"(PreToolUse|PermissionRequest)"', raw)
    return match.group(1).decode() if match else ""


def parse_event(raw: bytes) -> HookEvent:
    """The event in `raw` (the hook's whole stdin), or HookInputError saying what is wrong."""
    if len(raw) > MAX_EVENT_BYTES:
        raise HookInputError(
            f"the hook event is over {MAX_EVENT_BYTES // (1024 * 1024)} MiB; refusing to decide it"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HookInputError("the hook event is not UTF-8 JSON") from None
    if not text.strip():
        raise HookInputError("the hook got no event on stdin (expected Claude Code's JSON)")
    if not _depth_ok(text):
        raise HookInputError(f"the hook event is nested deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise HookInputError(f"the hook event is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise HookInputError("the hook event must be a JSON object")
    name = _field(data, "hook_event_name")
    if name not in EVENTS:
        raise HookInputError(f"planview handles PreToolUse and PermissionRequest, not {name[:40]!r}")
    session_id = _field(data, "session_id")
    if not is_session_id(session_id):
        raise HookInputError("the hook event's session_id is not a plain identifier")
    cwd = _field(data, "cwd")
    if "\x00" in cwd or not Path(cwd).is_absolute():
        raise HookInputError("the hook event's cwd must be an absolute path")
    tool_input = data.get("tool_input", {})
    if not isinstance(tool_input, dict):
        raise HookInputError("the hook event's tool_input must be a JSON object")
    return HookEvent(
        name=name,
        session_id=session_id,
        cwd=Path(cwd),
        permission_mode=_field(data, "permission_mode", required=False),
        tool_name=_field(data, "tool_name"),
        tool_input=tool_input,
        tool_use_id=_field(data, "tool_use_id", required=False),
    )
