"""The tool registry: every built-in tool by name, the sets a session offers per mode, headlines.

A session runs only the tools of its own `ToolSet`: the full set for a session, a reader-only set
for a read-only subagent (planview.session.tools.subagent), so what a child may call is decided by
what exists in its registry, not by its prompt.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planview.session.events import Mode
from planview.session.providers.base import ToolSchema
from planview.session.tools import files, plan_tools, shell, subagent, todo
from planview.session.tools.base import ToolDef

REGISTRY: Mapping[str, ToolDef] = {
    t.name: t for t in (*files.TOOLS, *shell.TOOLS, *todo.TOOLS, *plan_tools.TOOLS, *subagent.TOOLS)
}


@dataclass(frozen=True)
class ToolSet:
    """The tools one session can run, and which of them it offers the model in each mode."""

    plan: tuple[str, ...]
    execute: tuple[str, ...]

    def get(self, name: str) -> ToolDef | None:
        """The tool, if this set has it (a name the set lacks is unknown to the session)."""
        return REGISTRY[name] if name in self.plan or name in self.execute else None

    def schemas(self, mode: Mode) -> tuple[ToolSchema, ...]:
        names = self.plan if mode == "plan" else self.execute
        return tuple(ToolSchema(n, REGISTRY[n].description, REGISTRY[n].parameters) for n in names)


# What the model is offered in each mode (the gate still decides every call, offered or not).
DEFAULT_TOOLS = ToolSet(
    plan=("read", "grep", "find", "ls", "bash", "todo", "subagent", "write_plan", "exit_plan_mode"),
    execute=(
        "read",
        "grep",
        "find",
        "ls",
        "bash",
        "write",
        "edit",
        "todo",
        "subagent",
        "enter_plan_mode",
        "set_plan_steps",
    ),
)


def schemas_for(mode: Mode) -> tuple[ToolSchema, ...]:
    return DEFAULT_TOOLS.schemas(mode)


def headline(name: str, arguments: Mapping[str, Any]) -> str:
    tool = REGISTRY.get(name)
    if tool is None:
        line = f"{name} {_brief(arguments)}".strip()  # an MCP tool: its name and a glimpse of the input
    else:
        try:
            line = tool.headline(arguments)
        except Exception:  # a headline must never break a turn
            line = name
    line = " ".join(line.split())
    return line if len(line) <= 200 else line[:199] + "…"


def _brief(arguments: Mapping[str, Any]) -> str:
    parts = []
    for key, value in list(arguments.items())[:3]:
        text = value if isinstance(value, str) else repr(value)
        parts.append(f"{key}={text[:40]}")
    return " ".join(parts)
