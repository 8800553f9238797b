"""A small MCP server for the tests, written with the official SDK (stdio transport).

Tools:
- clock      readOnlyHint, takes no path: returns a fixed greeting and the server's pid
- peek       readOnlyHint, but takes a `path`: the gate's path guard must refuse it in plan mode
- stamp      readOnlyHint false (it mutates): appends `text` to `target` (default stamp.txt)
- explode    exits the process mid-call (a server that dies mid-session)
- garble     writes a line that is not JSON-RPC to stdout, then answers (malformed data)

Run `python fixture_server.py` (stdio) or `python fixture_server.py --http PORT` (streamable HTTP).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("fixture")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def clock() -> str:
    """Say hello (read-only, no arguments)."""
    return f"hello from the fixture server (pid {os.getpid()})"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def peek(path: str) -> str:
    """Return the first line of a file (read-only, but it takes a path)."""
    return Path(path).read_text().splitlines()[0]


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def stamp(text: str, target: str = "stamp.txt") -> str:
    """Append text to a file (stamp.txt in the server's working folder unless told otherwise; mutating)."""
    with open(target, "a", encoding="utf-8") as out:
        out.write(text)
    return f"wrote {len(text)} characters to {target}"


@server.tool()
def explode() -> str:
    """Crash the server process mid-call."""
    sys.stdout.flush()
    os._exit(3)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def garble() -> str:
    """Write a line that is not JSON-RPC onto the protocol stream, then answer."""
    os.write(1, b"this is not json-rpc\n")
    return "garbled"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
