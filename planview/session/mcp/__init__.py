"""planview.session.mcp: MCP servers for planview's own agent, through the official SDK (`mcp`).

The SDK is imported only when a server is configured, so a session without `[mcp.servers]` never
loads it.
"""

from __future__ import annotations

from planview.session.mcp.connection import McpCallError
from planview.session.mcp.hub import McpHub, ServerStatus
from planview.session.mcp.tools import McpTool, is_mcp_name, qualified_name

__all__ = ["McpCallError", "McpHub", "McpTool", "ServerStatus", "is_mcp_name", "qualified_name"]
