"""A deliberately broken MCP server (hand-written JSON-RPC on stdio; the SDK would never send this).

`python malformed_server.py list`  answers tools/list with `"tools": 5` (not a list)
`python malformed_server.py call`  lists one hinted tool, `broken`, and answers its call with
                                   `"content": "not a list"`
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "call"


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        continue  # a notification
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": request["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "malformed", "version": "0"},
                },
            }
        )
    elif method == "tools/list":
        if MODE == "list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": 5}})
        else:
            tool = {
                "name": "broken",
                "description": "answers garbage",
                "inputSchema": {"type": "object", "properties": {}},
                "annotations": {"readOnlyHint": True},
            }
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [tool]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": "not a list"}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no {method}"}})
