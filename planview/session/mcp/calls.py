"""One MCP tool call in a session: the gate with the tool's real annotations, the hash pin, the server.

Refusals and server failures come back to the model as the tool result, never as exceptions; only
cancellation propagates. `session/dispatch.py` calls this with the same collaborators as a built-in
tool (the mode, the gate policy, the pin check, the event callback) and turns the answer into the
tool result and its events.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from planview.gate.policy import decide
from planview.session.events import Event, Mode, ToolFinished
from planview.session.mcp.connection import McpCallError
from planview.session.mcp.offer import gate_call
from planview.session.mcp.tools import McpTool
from planview.session.providers.base import ModelToolCall

if TYPE_CHECKING:
    from planview.gate.calls import GatePolicy
    from planview.session.mcp.hub import McpHub


async def run_mcp_call(
    call: ModelToolCall,
    tool: McpTool,
    arguments: Mapping[str, Any],
    *,
    mode: Mode,
    policy: GatePolicy,
    hub: McpHub,
    check_pin: Callable[[], str | None],
    emit: Callable[[Event], None],
) -> tuple[str, bool, str | None]:
    """(text, error, refusal): `refusal` set means nothing ran and says why."""
    decision = decide(gate_call(tool, arguments), mode, policy)
    if not decision.allowed:
        return "", True, decision.reason
    if mode == "execute" and not tool.read_only:
        pinned = check_pin()
        if pinned is not None:
            return "", True, pinned
    try:
        text, error = await hub.call(tool, decision.call.input)
    except asyncio.CancelledError:
        emit(ToolFinished(call.id, call.name, "cancelled by the user", False, None, True))
        raise
    except McpCallError as exc:
        return str(exc), True, None
    return text, error, None
