"""What the model is offered of the MCP servers' tools, and what the gate says of each per mode.

In plan mode only tools that declare readOnlyHint are offered (the others would be refused);
every call, offered or not, is still weighed by `gate.decide` with the tool's real annotations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from planview.gate.calls import GatePolicy, ToolCall
from planview.gate.policy import decide
from planview.session.events import Mode
from planview.session.mcp.tools import McpTool
from planview.session.providers.base import ToolSchema

PIN_NOTE = "runs while the approved plan is unchanged (the same hash pin as write)"


def mcp_schemas(tools: Iterable[McpTool], mode: Mode, policy: GatePolicy) -> tuple[ToolSchema, ...]:
    out = []
    for tool in tools:
        if mode == "plan" and not (tool.read_only and policy.allow_read_only_hint):
            continue
        description = f"[MCP server {tool.server}] {tool.description or tool.name}"
        out.append(ToolSchema(tool.qualified, description, tool.input_schema))
    return tuple(out)


def gate_call(tool: McpTool, arguments: Mapping[str, Any]) -> ToolCall:
    """The call as the gate sees it: not planview's own tool, with its real annotations and schema."""
    return ToolCall(
        tool.qualified,
        dict(arguments),
        annotations=dict(tool.annotations),
        builtin=False,
        input_schema=tool.input_schema,
    )


def _sample_input(tool: McpTool) -> dict[str, Any]:
    """An input naming every property of the schema (empty values): the path guard judges the keys."""
    properties = tool.input_schema.get("properties")
    return {str(key): "" for key in properties} if isinstance(properties, Mapping) else {}


def verdicts(tool: McpTool, policy: GatePolicy) -> dict[str, str]:
    """{"plan": ..., "execute": ...}: the gate's verdict on this tool, in words, for /mcp."""
    plan = decide(gate_call(tool, _sample_input(tool)), "plan", policy)
    if plan.allowed:
        plan_text = "runs (readOnlyHint, no path arguments; a path-shaped value is still refused)"
    else:
        plan_text = f"refused: {plan.reason}"
    execute = decide(gate_call(tool, {}), "execute", policy)
    if not execute.allowed:
        execute_text = f"refused: {execute.reason}"
    else:
        execute_text = "runs" if tool.read_only else PIN_NOTE
    return {"plan": plan_text, "execute": execute_text}
