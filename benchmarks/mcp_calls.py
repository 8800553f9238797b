"""What an MCP server costs a session: the start, and each call through planview's gate and pin.

Starts the SDK fixture server (tests/session/mcp/fixture_server.py) over stdio through planview's
McpHub, then makes N calls of its hinted no-path tool two ways in the same run:

- direct: the SDK client's call_tool on the same connection (the floor: JSON-RPC over a pipe);
- session: a scripted planview session calling mcp__fx__clock N times in one turn (gate.decide
  with the real annotations, events, the session file).

The start is compared with the floor of the server's process, `python -c "import
mcp.server.mcpserver"` (interpreter + SDK import), timed in the same run.

    python benchmarks/mcp_calls.py [--calls 200] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planview.mcp_config import McpServerConfig  # noqa: E402
from planview.session.mcp.hub import McpHub  # noqa: E402
from planview.session.providers.scripted import ScriptedProvider  # noqa: E402
from planview.session.session import Session  # noqa: E402

SERVER = ROOT / "tests" / "session" / "mcp" / "fixture_server.py"
CONFIG = McpServerConfig("fx", command=sys.executable, args=(str(SERVER),))


def bare_process() -> float:
    """The floor of any stdio server start: its interpreter importing the SDK's server side."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp.server.mcpserver"], check=True, timeout=60)
    return time.perf_counter() - started


async def hub_start(root: Path) -> tuple[float, McpHub]:
    hub = McpHub([CONFIG], project_root=root, log_dir=root / "logs")
    started = time.perf_counter()
    await hub.start()
    elapsed = time.perf_counter() - started
    assert hub.tools(), hub.status()
    return elapsed, hub


async def direct_calls(hub: McpHub, calls: int) -> float:
    client = hub.connections["fx"]._client
    started = time.perf_counter()
    for _ in range(calls):
        await client.call_tool("clock", {})
    return time.perf_counter() - started


async def session_calls(root: Path, calls: int) -> float:
    turn = {"tool_calls": [{"name": "mcp__fx__clock", "arguments": {}} for _ in range(calls)]}
    provider = ScriptedProvider.from_text(json.dumps(turn))
    session = Session(project_root=root, provider=provider, plan_mode=True, mcp_servers=[CONFIG])
    await session.start_servers()
    try:
        started = time.perf_counter()
        await session.send("bench")
        elapsed = time.perf_counter() - started
    finally:
        await session.close()
    results = [m.to_json() for m in session.conversation if type(m).__name__ == "ToolMessage"]
    assert len(results) == calls and all(m["content"].startswith("hello") for m in results), results[:1]
    return elapsed


async def main(calls: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("# bench\n")
        bare, start, direct, via = [], [], [], []
        for _ in range(repeat):
            bare.append(bare_process())
            elapsed, hub = await hub_start(root)
            start.append(elapsed)
            direct.append(await direct_calls(hub, calls))
            await hub.close()
            via.append(await session_calls(root, calls))
    b, s = statistics.median(bare), statistics.median(start)
    d, v = statistics.median(direct) / calls * 1000, statistics.median(via) / calls * 1000
    print(f"server interpreter + SDK import (floor): {b * 1000:7.0f} ms")
    print(f"McpHub start (spawn + handshake + tools/list): {s * 1000:7.0f} ms  ({s / b:.2f}x the floor)")
    print(f"call, SDK client direct: {d:7.2f} ms/call")
    print(f"call, planview session (gate + events + session file): {v:7.2f} ms/call  ({v / d:.2f}x direct)")
    print(f"({calls} calls, median of {repeat} runs)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.repeat))
