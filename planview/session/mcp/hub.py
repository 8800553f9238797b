"""The session's MCP servers: started together, their tools offered, calls routed, endings reported.

`McpHub.start()` starts every configured server at once (each bounded by its timeout) and reports
each one that fails in one line through `on_notice`; the session goes on without it. The gate is
not here: the session's dispatch weighs every call with `gate.decide` before `call()` runs it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planview.invocation import install_extra_command
from planview.mcp_config import McpServerConfig
from planview.session.mcp.connection import McpCallError, ServerConnection, State
from planview.session.mcp.tools import McpTool, split_name

MISSING_SDK = (
    "MCP servers are configured ({names}) but the `mcp` package is not installed; install it with: {install}"
)


@dataclass(frozen=True)
class ServerStatus:
    """One configured MCP server as `/mcp` lists it: its state, any problem, its tools."""

    name: str
    transport: str  # "stdio" or "http"
    target: str  # the command line or the URL
    state: State
    problem: str | None
    tools: tuple[McpTool, ...]
    skipped: tuple[str, ...]


def sdk_available() -> bool:
    try:
        import mcp  # noqa: F401
    except ImportError:
        return False
    return True


# A tools/list every so often costs a server next to nothing; a dead one is then named within this
# many seconds, while the agent is still working, not when the model next reaches for it.
WATCH_EVERY = 15.0


class McpHub:
    def __init__(
        self,
        servers: Sequence[McpServerConfig] = (),
        *,
        project_root: Path,
        log_dir: Path | None = None,
        on_notice: Callable[[str, str], None] | None = None,
        watch_every: float | None = WATCH_EVERY,
    ) -> None:
        self.configs = tuple(servers)
        self.project_root = Path(project_root)
        self.log_dir = log_dir
        self.on_notice = on_notice  # (server name, one line naming the fix)
        self.watch_every = watch_every  # seconds between pings of the servers that are up; None: never
        self.connections: dict[str, ServerConnection] = {}
        self.env: dict[str, str] = {}  # set in every started server (the session's tool-process mark)
        self.started = False
        self._starting: asyncio.Task[None] | None = None
        self._notified: set[str] = set()
        self._watcher: asyncio.Task[None] | None = None

    def __bool__(self) -> bool:
        return bool(self.configs)

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> None:
        """Start every configured server concurrently; failures become notices, never exceptions.

        Idempotent: a second caller (the UI started the servers, then a turn begins) waits for
        the same start instead of starting them twice."""
        if not self.configs:
            self.started = True
            return
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())
        await asyncio.shield(self._starting)

    async def _start(self) -> None:
        if not sdk_available():
            self.started = True
            self._notice(
                "",
                MISSING_SDK.format(
                    names=", ".join(c.name for c in self.configs), install=install_extra_command("mcp")
                ),
            )
            return
        from planview.session.mcp.trust import refusal

        refused = await asyncio.to_thread(lambda: {c.name: refusal(c) for c in self.configs})
        for config in self.configs:
            connection = ServerConnection(
                config, project_root=self.project_root, log_dir=self.log_dir, env=self.env
            )
            if refused[config.name]:
                connection.state, connection.problem = "failed", refused[config.name]
            self.connections[config.name] = connection
        await asyncio.gather(*(c.start() for c in self.connections.values() if c.state == "starting"))
        self.started = True
        for connection in self.connections.values():
            self._report(connection)
            for skipped in connection.skipped:
                self._notice(
                    connection.name,
                    f"MCP server {connection.name!r}: tool {skipped}, so it is not offered; "
                    "rename it in the server",
                )
        if self.watch_every and any(c.state == "ready" for c in self.connections.values()):
            self._watcher = asyncio.ensure_future(self._watch(self.watch_every))

    async def _watch(self, every: float) -> None:
        """Ping the servers that are up, so one that dies between calls is reported when it dies
        (a notice in the transcript) instead of at the next call or the next /mcp."""
        while any(c.state == "ready" for c in self.connections.values()):
            await asyncio.sleep(every)
            await self.check()

    async def close(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(BaseException):
                await self._watcher
        if self._starting is not None and not self._starting.done():
            with contextlib.suppress(BaseException):
                await self._starting
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)

    # ------------------------------------------------------------------ what the session asks

    def tools(self) -> tuple[McpTool, ...]:
        """Tools of the servers that are up, in config order."""
        return tuple(t for c in self.connections.values() if c.state == "ready" for t in c.tools)

    def find(self, qualified: str) -> McpTool | None:
        """The tool behind a qualified name, also on a server that stopped (so the gate still weighs it)."""
        parts = split_name(qualified)
        if parts is None:
            return None
        connection = self.connections.get(parts[0])
        if connection is None:
            return None
        return next((t for t in connection.tools if t.name == parts[1]), None)

    async def call(self, tool: McpTool, arguments: Mapping[str, Any]) -> tuple[str, bool]:
        """(text, is_error); McpCallError (its text for the model) when the server did not answer."""
        connection = self.connections[tool.server]
        try:
            return await connection.call(tool.name, arguments)
        except McpCallError:
            self._report(connection)
            raise

    async def check(self) -> None:
        """Ping the servers that are up; one that stopped becomes a notice (the /mcp listing's first step)."""
        await asyncio.gather(*(c.check() for c in self.connections.values()), return_exceptions=True)
        for connection in self.connections.values():
            self._report(connection)

    def status(self) -> tuple[ServerStatus, ...]:
        out = []
        for config in self.configs:
            connection = self.connections.get(config.name)
            target = config.url or " ".join((config.command or "", *config.args))
            if connection is None:
                state: State = "failed" if self.started else "starting"
                problem = None if not self.started else "not started (the mcp package is not installed)"
                out.append(ServerStatus(config.name, config.transport, target, state, problem, (), ()))
                continue
            out.append(
                ServerStatus(
                    config.name,
                    config.transport,
                    target,
                    connection.state,
                    connection.problem,
                    connection.tools,
                    connection.skipped,
                )
            )
        return tuple(out)

    # ------------------------------------------------------------------ notices

    def _report(self, connection: ServerConnection) -> None:
        if connection.problem and connection.name not in self._notified:
            self._notified.add(connection.name)
            self._notice(connection.name, connection.problem)

    def _notice(self, server: str, line: str) -> None:
        if self.on_notice is not None:
            self.on_notice(server, line)


def names(tools: Iterable[McpTool]) -> tuple[str, ...]:
    return tuple(t.qualified for t in tools)
