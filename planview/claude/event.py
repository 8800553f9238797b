"""One Claude Code hook event, read from the hook's stdin.

Claude Code sends JSON: `session_id`, `transcript_path`, `cwd`, `permission_mode`,
`hook_event_name`, `tool_name`, `tool_input` (and `tool_use_id` for PreToolUse). Nothing in it is
trusted: the size is capped before parsing, nesting depth is bounded, every field planview reads is
type-checked, and the session id must be a plain token (it names a state file).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planview.errors import PlanviewError

__all__ = ["EVENTS", "MAX_EVENT_BYTES", "HookEvent", "HookInputError", "event_name_hint", "parse_event"]

EVENTS = ("PreToolUse", "PermissionRequest")
PERMISSION_MODES = ("default", "plan", "acceptEdits", "auto", "dontAsk", "bypassPermissions")
# A Write of a large file carries its whole content; 8 MiB is far above any real tool call and still
# bounded, so a runaway producer cannot make the hook (which runs before every call) eat memory.
MAX_EVENT_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 64
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


class HookInputError(PlanviewError):
    """The hook's stdin is not an event planview can decide; the call is denied."""


@dataclass(frozen=True)
class HookEvent:
    """A checked Claude Code hook event: the tool call Claude asks about, and where and in which mode."""

    name: str  # hook_event_name: PreToolUse | PermissionRequest
    session_id: str
    cwd: Path
    permission_mode: str  # Claude's own mode; "" when Claude did not say
    tool_name: str
    tool_input: Mapping[str, Any]
    tool_use_id: str = ""

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
    if _SESSION_ID.fullmatch(session_id) is None:
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
