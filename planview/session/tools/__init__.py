"""The tool registry: every built-in tool with its JSON schema, description and headline."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planview.session.events import Mode
from planview.session.providers.base import ToolSchema
from planview.session.tools import files, plan_tools, shell, todo
from planview.session.tools.base import ToolContext, ToolDef, ToolError, ToolResult, validate

__all__ = [
    "REGISTRY",
    "ToolContext",
    "ToolDef",
    "ToolError",
    "ToolResult",
    "headline",
    "schemas_for",
    "validate",
]

REGISTRY: Mapping[str, ToolDef] = {
    t.name: t for t in (*files.TOOLS, *shell.TOOLS, *todo.TOOLS, *plan_tools.TOOLS)
}

# What the model is offered in each mode (the gate still decides every call, offered or not).
_PLAN_TOOLS = ("read", "grep", "find", "ls", "bash", "todo", "write_plan", "exit_plan_mode")
_EXECUTE_TOOLS = (
    "read",
    "grep",
    "find",
    "ls",
    "bash",
    "write",
    "edit",
    "todo",
    "enter_plan_mode",
    "set_plan_steps",
)


def schemas_for(mode: Mode) -> tuple[ToolSchema, ...]:
    names = _PLAN_TOOLS if mode == "plan" else _EXECUTE_TOOLS
    return tuple(ToolSchema(n, REGISTRY[n].description, REGISTRY[n].parameters) for n in names)


def headline(name: str, arguments: Mapping[str, Any]) -> str:
    tool = REGISTRY.get(name)
    if tool is None:
        return name
    try:
        line = tool.headline(arguments)
    except Exception:  # a headline must never break a turn
        line = name
    line = " ".join(line.split())
    return line if len(line) <= 200 else line[:199] + "…"
