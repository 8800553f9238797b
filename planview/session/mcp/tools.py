"""MCP tools as planview offers them: qualified names, annotations in MCP's own spelling, results as text.

A server's tool `search` on the server configured as `[mcp.servers.docs]` is offered to the model
as `mcp__docs__search`. Its annotations are kept under their wire names (`readOnlyHint`, ...)
because that is what `gate.decide` weighs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

PREFIX = "mcp__"
SEPARATOR = "__"
MAX_NAME = 64  # the longest tool name OpenAI and Anthropic accept
MAX_RESULT_CHARS = 100_000  # a tool result beyond this is cut (the model's context is finite)
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True)
class McpTool:
    """One tool a server offers, with its schema and annotations as the server sent them."""

    server: str
    name: str  # the server's own name for it
    description: str
    input_schema: Mapping[str, Any]
    annotations: Mapping[str, Any] = field(default_factory=dict)  # {"readOnlyHint": True, ...}

    @property
    def qualified(self) -> str:
        return qualified_name(self.server, self.name)

    @property
    def read_only(self) -> bool:
        """Declared read-only (a claim by the server's author; the gate's path guard still applies)."""
        return self.annotations.get("readOnlyHint") is True


def qualified_name(server: str, tool: str) -> str:
    return f"{PREFIX}{server}{SEPARATOR}{tool}"


def is_mcp_name(name: str) -> bool:
    return name.startswith(PREFIX)


def split_name(name: str) -> tuple[str, str] | None:
    """(server, tool) of a qualified name; server names never contain '__', so the first one splits."""
    if not is_mcp_name(name):
        return None
    server, sep, tool = name[len(PREFIX) :].partition(SEPARATOR)
    return (server, tool) if sep and server and tool else None


def name_problem(server: str, tool: str) -> str | None:
    """Why a server's tool cannot be offered under its qualified name, or None."""
    if not _TOOL_NAME.match(tool):
        return "its name has characters other than letters, digits, '_' and '-'"
    if len(qualified_name(server, tool)) > MAX_NAME:
        return f"{qualified_name(server, tool)} is longer than {MAX_NAME} characters"
    return None


def from_sdk(server: str, tool: Any) -> McpTool:
    """An McpTool from the SDK's `Tool` model (annotations dumped under MCP's wire names)."""
    annotations = tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else {}
    schema = tool.input_schema if isinstance(tool.input_schema, Mapping) else {}
    return McpTool(
        server=server,
        name=tool.name,
        description=(tool.description or tool.title or "").strip(),
        input_schema=dict(schema) or {"type": "object", "properties": {}},
        annotations=annotations,
    )


def result_text(result: Any) -> tuple[str, bool]:
    """(text for the model, is_error) from the SDK's CallToolResult."""
    parts: list[str] = []
    for block in result.content or ():
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} content, {block.mime_type}, not shown]")
        elif kind == "resource":
            inner = block.resource
            text = getattr(inner, "text", None)
            parts.append(text if isinstance(text, str) else f"[resource {inner.uri}, binary, not shown]")
        elif kind == "resource_link":
            parts.append(f"[resource link {block.uri}]")
        else:
            parts.append(f"[{kind or 'unknown'} content, not shown]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False, default=str))
    text = "\n".join(parts) or "(the tool returned no content)"
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + f"\n… cut at {MAX_RESULT_CHARS:,} characters"
    return text, bool(result.is_error)
