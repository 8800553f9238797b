"""One tool call, start to finish: the gate, the arguments, the hash pin, the tool, the events.

A refused call returns the reason to the model as the tool result, never an exception; a tool
that fails returns its error the same way. Only cancellation propagates.

The session hands in what a call needs and nothing else: the tool host (session/protocol.py), the
gate policy, the event callback, the pin check, and `plan_changed` (why the session is planning
again, if a revocation sent it back) so a refusal can name the changed sections.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from planview.errors import PlanviewError
from planview.session.events import Event, ToolFinished, ToolStarted
from planview.session.providers.base import ModelToolCall
from planview.session.tools.base import ToolContext, ToolResult, validate
from planview.session.tools.registry import ToolSet, headline

if TYPE_CHECKING:
    from planview.gate.calls import GatePolicy
    from planview.session.mcp.hub import McpHub
    from planview.session.protocol import ToolHost


@dataclass(frozen=True)
class CallOutcome:
    """What became of one call: the result the model sees, and whether the gate or the pin refused it."""

    result: ToolResult
    headline: str
    refused: bool = False


async def run_call(
    call: ModelToolCall,
    *,
    host: ToolHost,
    tools: ToolSet,
    policy: GatePolicy,
    mcp: McpHub | None = None,
    emit: Callable[[Event], None],
    check_pin: Callable[[], str | None],
    plan_changed: Callable[[], str | None] = lambda: None,
) -> CallOutcome:
    from planview.gate.calls import ToolCall
    from planview.gate.policy import decide

    args = dict(call.arguments)
    line = headline(call.name, args)
    emit(ToolStarted(call.id, call.name, args, line))

    def refuse(reason: str) -> CallOutcome:
        text = reason if reason.lower().startswith("refused") else f"Refused: {reason}"
        emit(ToolFinished(call.id, call.name, text, True, reason, False))
        return CallOutcome(ToolResult(text, error=True), line, refused=True)

    def finish(result: ToolResult) -> CallOutcome:
        emit(ToolFinished(call.id, call.name, result.text, False, None, result.error))
        return CallOutcome(result, line)

    if call.invalid:
        return refuse(f"malformed tool call: {call.invalid}; send the arguments as a JSON object")
    tool = tools.get(call.name)
    if tool is None and mcp is not None:
        mcp_tool = mcp.find(call.name)
        if mcp_tool is not None:
            from planview.session.mcp.calls import run_mcp_call

            text, error, refusal = await run_mcp_call(
                call, mcp_tool, args, mode=host.mode, policy=policy, hub=mcp, check_pin=check_pin, emit=emit
            )
            return refuse(refusal) if refusal is not None else finish(ToolResult(text, error=error))
    if tool is None:  # nothing to run, so nothing for the gate to weigh: name what exists instead
        offered = ", ".join(schema.name for schema in tools.schemas(host.mode))
        return finish(
            ToolResult(f"unknown tool {call.name!r}; available in {host.mode} mode: {offered}", error=True)
        )
    decision = decide(
        ToolCall(call.name, args, builtin=True, input_schema=tool.parameters), host.mode, policy
    )
    if not decision.allowed:
        why = plan_changed() if tool.mutating else None
        return refuse(f"{why}. {decision.reason}" if why else decision.reason)
    args = dict(decision.call.input)
    problem = validate(tool.parameters, args)
    if problem:
        return finish(ToolResult(f"{call.name}: {problem}", error=True))
    if tool.mutating and host.mode == "execute":
        pinned = check_pin()
        if pinned is not None:
            return refuse(pinned)
    try:
        result = await tool.run(ToolContext(host.project_root, host, call.id), args)
    except asyncio.CancelledError:
        emit(ToolFinished(call.id, call.name, "cancelled by the user", False, None, True))
        raise
    except PlanviewError as exc:
        result = ToolResult(str(exc), error=True)
    except OSError as exc:
        result = ToolResult(f"{call.name} failed: {exc.strerror or exc}", error=True)
    except Exception as exc:  # a tool bug must not end the session; the model sees it
        result = ToolResult(f"{call.name} failed unexpectedly: {type(exc).__name__}: {exc}", error=True)
    return finish(result)
