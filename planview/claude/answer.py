"""What the hook prints and how it exits: the shapes Claude Code honours.

PreToolUse: exit 0 with `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
"allow"|"deny", "permissionDecisionReason": …}}` (a deny reason is shown to Claude), or exit 0 with no
decision to leave the call to Claude's own permission flow. PermissionRequest: exit 0 with `{"decision":
{"behavior": "allow", "updatedPermissions": […]}}` or `{"behavior": "deny", "message": …}`.

A hook that crashes or exits non-zero (other than 2) decides nothing, so Claude Code would carry on:
a failure must never look like that. `failure` is exit 2 with the reason on stderr (binding for
PreToolUse) *and*, for PermissionRequest, where exit 2 is not honoured, an explicit deny on stdout.
"""

from __future__ import annotations

import json
from collections import namedtuple

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's start-up)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = ["HookAnswer", "allow", "deny", "failure", "pass_through", "permission_allow", "permission_deny"]


# A named tuple, not a dataclass: made on every hook call (benchmarks/README.md).
class HookAnswer(namedtuple("HookAnswer", "exit_code stdout stderr", defaults=("", ""))):
    """What the hook prints on stdout and stderr and the status it exits with."""

    __slots__ = ()
    exit_code: int
    stdout: str  # default ""
    stderr: str  # default ""

    @property
    def payload(self) -> Mapping[str, Any] | None:
        return json.loads(self.stdout) if self.stdout else None


def _output(event: str, **fields: Any) -> str:
    # Claude Code shows reasons in its terminal: the one JSON writer that escapes what could drive it.
    from planview.textsafe import json_for_terminal

    return json_for_terminal({"hookSpecificOutput": {"hookEventName": event, **fields}})


def allow(reason: str, *, context: str = "", updated_input: Mapping[str, Any] | None = None) -> HookAnswer:
    fields: dict[str, Any] = {"permissionDecision": "allow", "permissionDecisionReason": reason}
    if updated_input is not None:
        fields["updatedInput"] = dict(updated_input)
    if context:
        fields["additionalContext"] = context
    return HookAnswer(0, _output("PreToolUse", **fields))


def deny(reason: str) -> HookAnswer:
    return HookAnswer(
        0, _output("PreToolUse", permissionDecision="deny", permissionDecisionReason=f"planview: {reason}")
    )


def pass_through(context: str = "") -> HookAnswer:
    """No decision: Claude Code's own permission rules and prompts apply (execute mode)."""
    if not context:
        return HookAnswer(0)
    return HookAnswer(0, _output("PreToolUse", additionalContext=context))


def permission_allow(mode: str = "acceptEdits") -> HookAnswer:
    decision = {
        "behavior": "allow",
        "updatedPermissions": [{"type": "setMode", "mode": mode, "destination": "session"}],
    }
    return HookAnswer(0, _output("PermissionRequest", decision=decision))


def permission_deny(message: str) -> HookAnswer:
    decision = {"behavior": "deny", "message": f"planview: {message}"}
    return HookAnswer(0, _output("PermissionRequest", decision=decision))


def failure(reason: str, event: str = "") -> HookAnswer:
    """The answer when the hook cannot decide: never an allow, whatever went wrong."""
    text = f"planview: {reason}; the call is denied (planview's hook fails closed)"
    if event == "PermissionRequest":
        return permission_deny(text.removeprefix("planview: "))
    return HookAnswer(2, stderr=text)
