"""planview.session.mcp: MCP servers for planview's own agent, through the official SDK (`mcp`).

`hub.McpHub` starts the configured servers and routes calls; `connection` is one server's client;
`tools` names an MCP tool for the model; `offer` and `calls` put the gate in front of both. The SDK
is imported only when a server is configured, so a session without `[mcp.servers]` never loads it.
"""
