"""planview's built-in tools: one module per family (files, shell, todo, plan_tools, subagent).

`base` holds what a tool is (ToolDef, ToolContext, ToolResult, ToolError, argument checks);
`registry` holds every tool by name, the sets a session offers in each mode, and headlines.
"""
