"""One MCP tool call in a session: the gate with the tool's real annotations, the hash pin, the server.

Refusals and server failures come back to the model as the tool result, never as exceptions; only
cancellation propagates.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from planview.gate import decide
from planview.session.dispatch import check_pin, finish, refuse
from planview.session.events import ToolFinished
from planview.session.mcp.connection import McpCallError
from planview.session.mcp.offer import gate_call
from planview.session.mcp.tools import McpTool
from planview.session.providers.base import ModelToolCall
from planview.session.tools.base import ToolResult

if TYPE_CHECKING:
    from planview.session.session import Session


async def run_mcp_call(
    session: Session, call: ModelToolCall, tool: McpTool, arguments: Mapping[str, Any]
) -> ToolResult:
    decision = decide(gate_call(tool, arguments), session.mode, session.policy)
    if not decision.allowed:
        return refuse(session, call, decision.reason)
    if session.mode == "execute" and not tool.read_only:
        pinned = check_pin(session)
        if pinned is not None:
            return refuse(session, call, pinned)
    try:
        text, error = await session.mcp.call(tool, decision.call.input)
    except asyncio.CancelledError:
        session._emit(ToolFinished(call.id, call.name, "cancelled by the user", False, None, True))
        raise
    except McpCallError as exc:
        return finish(session, call, ToolResult(str(exc), error=True))
    return finish(session, call, ToolResult(text, error=error))
