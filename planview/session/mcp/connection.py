"""One MCP server connection through the official SDK (`mcp.Client`), owned by one task.

The SDK's client is an anyio context: it must be entered and left by the same task. So each
server gets an owner task that enters it, lists the tools, publishes the client and waits for
`close()`; calls are made from the session's turn task against the published client.

Nothing here raises into the session: a server that cannot start, stops, or answers with data the
SDK cannot read ends up `failed` / `stopped` with one line (`problem`) that names the server and the
fix, and its tools are gone for the rest of the session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from planview.mcp_config import McpServerConfig
from planview.session.mcp.tools import McpTool, from_sdk, name_problem, result_text

State = Literal["starting", "ready", "failed", "stopped", "closed"]
_CLOSE_TIMEOUT = 10.0  # the SDK bounds its own shutdown (stdin close, SIGTERM, SIGKILL) well inside this
_PING_TIMEOUT = 3.0
_MAX_PAGES = 50  # tools/list pages: a server that paginates forever cannot hang the start


class McpCallError(Exception):
    """A call that did not produce a result; the text is what the model (and the user) is told."""


def _quiet_sdk_logs() -> None:
    # Without a handler, Python prints the SDK's warnings on stderr, over the TUI. The servers'
    # own stderr goes to their log file; the SDK's notes on a broken server are turned into
    # planview's one-line notices instead.
    logger = logging.getLogger("mcp")
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups: anyio wraps everything in them."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    from pydantic import ValidationError

    leaf = _leaf(exc)
    if isinstance(leaf, ValidationError) and leaf.errors():
        first = leaf.errors()[0]
        where = ".".join(str(part) for part in (leaf.title, *first.get("loc", ())))
        return f"{where}: {first.get('msg', 'invalid')}"
    if isinstance(leaf, FileNotFoundError):
        return f"program not found ({leaf.filename or leaf})"
    if isinstance(leaf, PermissionError):
        return f"permission denied ({leaf.filename or leaf})"
    if isinstance(leaf, OSError):
        return leaf.strerror or str(leaf) or type(leaf).__name__
    text = " ".join(str(leaf).split())
    if len(text) > 200:
        text = text[:199] + "…"
    return f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__


def _is_malformed(exc: BaseException) -> bool:
    from pydantic import ValidationError

    leaf = _leaf(exc)
    return isinstance(leaf, ValidationError | ValueError | TypeError | KeyError) and not isinstance(
        leaf, OSError
    )


def _connection_closed(exc: BaseException) -> bool:
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    leaf = _leaf(exc)
    return isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED


class ServerConnection:
    def __init__(
        self,
        config: McpServerConfig,
        *,
        project_root: Path,
        log_dir: Path | None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.config = config
        self.env = {**(env or {}), **config.env}  # over the SDK's short default environment
        self.name = config.name
        self.project_root = Path(project_root)
        self.log_path = (log_dir / f"{config.name}.log") if log_dir is not None and not config.url else None
        self.state: State = "starting"
        self.problem: str | None = None  # one line naming the server and the fix
        self.tools: tuple[McpTool, ...] = ()
        self.skipped: tuple[str, ...] = ()  # tools that could not be offered, with why
        self._client: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> None:
        """Connect and list the tools; never raises (the outcome is `state` and `problem`)."""
        _quiet_sdk_logs()
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._owner = asyncio.create_task(self._own(ready), name=f"mcp:{self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.config.timeout)
        except TimeoutError:
            self._fail("failed", f"did not answer within {self.config.timeout:g} s", self._timeout_fix())
            self._abandon()
        except asyncio.CancelledError:
            self._abandon()
            raise
        except Exception as exc:
            kind = "sent malformed data while starting" if _is_malformed(exc) else "did not start"
            self._fail("failed", f"{kind}: {describe(exc)}", self._start_fix(exc))
            self._abandon()

    def _abandon(self) -> None:
        """Give up on a start: the owner is cancelled and winds the SDK down in the background
        (close() waits for it), so one stuck server does not hold up the session's start."""
        self._stop.set()
        if self._owner is not None and not self._owner.done():
            self._owner.cancel()

    async def _own(self, ready: asyncio.Future[None]) -> None:
        try:
            with self._errlog() as errlog:
                from mcp import Client

                async with Client(self._transport(errlog), cache=None) as client:
                    self._set_tools(await self._list_tools(client))
                    self._client = client
                    self.state = "ready"
                    ready.set_result(None)
                    await self._stop.wait()
        except BaseException as exc:  # noqa: B036 - the owner reports every ending, cancellation included
            if not ready.done():
                if isinstance(exc, asyncio.CancelledError):
                    ready.cancel()
                else:
                    ready.set_exception(exc)
            elif self.state == "ready" and not isinstance(exc, asyncio.CancelledError):
                self._fail("stopped", f"stopped: {describe(exc)}", self._restart_fix())
            if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
        finally:
            self._client = None

    async def close(self) -> None:
        if self.state in ("ready", "starting"):
            self.state = "closed"
        await self._stop_owner()

    async def _stop_owner(self) -> None:
        self._stop.set()
        owner = self._owner
        if owner is None or owner.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(owner), _CLOSE_TIMEOUT)
        except (TimeoutError, asyncio.CancelledError):
            owner.cancel()
            with contextlib.suppress(BaseException):
                await owner
        except BaseException:
            pass  # its ending was recorded by _own

    # ------------------------------------------------------------------ the SDK's pieces

    def _transport(self, errlog: Any) -> Any:
        if self.config.url:
            from mcp.client.streamable_http import streamable_http_client

            return streamable_http_client(self.config.url)
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        cwd = Path(os.path.expanduser(self.config.cwd)) if self.config.cwd else self.project_root
        if not cwd.is_absolute():
            cwd = self.project_root / cwd
        params = StdioServerParameters(
            command=self.config.command or "",
            args=list(self.config.args),
            env=dict(self.env) or None,
            cwd=cwd,
        )
        return stdio_client(params, errlog=errlog)

    @contextlib.contextmanager
    def _errlog(self) -> Any:
        """The server's stderr: its log file (planview's own screen must stay clean)."""
        if self.log_path is None:
            with open(os.devnull, "w") as sink:
                yield sink
            return
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = open(self.log_path, "w", encoding="utf-8", errors="replace")
        except OSError:
            self.log_path = None
            with open(os.devnull, "w") as sink:
                yield sink
            return
        with log:
            yield log

    async def _list_tools(self, client: Any) -> list[Any]:
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        return tools

    def _set_tools(self, sdk_tools: list[Any]) -> None:
        offered: list[McpTool] = []
        skipped: list[str] = []
        seen: set[str] = set()
        for sdk_tool in sdk_tools:
            problem = name_problem(self.name, sdk_tool.name)
            if problem is None and sdk_tool.name in seen:
                problem = "the server lists it twice"
            if problem is not None:
                skipped.append(f"{sdk_tool.name!r}: {problem}")
                continue
            seen.add(sdk_tool.name)
            offered.append(from_sdk(self.name, sdk_tool))
        self.tools, self.skipped = tuple(offered), tuple(skipped)

    # ------------------------------------------------------------------ calls

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> tuple[str, bool]:
        """(text, is_error) of one call; McpCallError when the server could not answer at all."""
        client = self._client
        if self.state != "ready" or client is None:
            raise McpCallError(self.problem or self._line(f"is {self.state}", self._restart_fix()))
        try:
            result = await asyncio.wait_for(client.call_tool(tool, dict(arguments)), self.config.timeout)
        except TimeoutError:
            raise McpCallError(
                f"MCP server {self.name!r} did not answer {tool} within {self.config.timeout:g} s; "
                f"nothing is known about its effect. Raise timeout in {self.config.where()} if it needs longer"
            ) from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if _connection_closed(exc) or self._owner is None or self._owner.done():
                self._fail("stopped", f"stopped during {tool}", self._restart_fix())
                self._abandon()
                raise McpCallError(self.problem or "") from None
            if _is_malformed(exc):
                self._fail("failed", f"sent malformed data for {tool}: {describe(exc)}", self._server_fix())
                self._abandon()
                raise McpCallError(self.problem or "") from None
            from mcp.shared.exceptions import MCPError

            if isinstance(_leaf(exc), MCPError):  # a protocol error for this call; the server is fine
                raise McpCallError(f"{tool} failed on MCP server {self.name!r}: {_leaf(exc)}") from None
            self._fail("failed", f"failed during {tool}: {describe(exc)}", self._restart_fix())
            self._abandon()
            raise McpCallError(self.problem or "") from None
        try:
            return result_text(result)
        except Exception as exc:  # content the SDK accepted but planview cannot read
            raise McpCallError(
                f"{tool} on MCP server {self.name!r} answered content planview cannot read ({describe(exc)})"
            ) from None

    async def check(self) -> None:
        """Ping a ready server (for /mcp): one that stopped since its last call is found now."""
        client = self._client
        if self.state != "ready" or client is None:
            return
        try:
            # tools/list, not ping: ping is gone from the 2026-07-28 protocol, tools/list is in every version
            await asyncio.wait_for(client.list_tools(), min(self.config.timeout, _PING_TIMEOUT))
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            return  # busy is not dead: a slow server keeps its tools
        except Exception as exc:
            self._fail("stopped", f"stopped ({describe(exc)})", self._restart_fix())
            self._abandon()

    # ------------------------------------------------------------------ messages

    def _fail(self, state: State, what: str, fix: str) -> None:
        if self.state in ("failed", "stopped", "closed"):
            return  # the first ending is the one reported
        self.state = state
        self.problem = self._line(what, fix)

    def _line(self, what: str, fix: str) -> str:
        return f"MCP server {self.name!r} {what}; {fix}"

    def _log_hint(self) -> str:
        return f" (its stderr is in {self.log_path})" if self.log_path is not None else ""

    def _start_fix(self, exc: BaseException) -> str:
        if self.config.url:
            return f"check that it is running at {self.config.url} and fix url in {self.config.where()}"
        if isinstance(_leaf(exc), FileNotFoundError | PermissionError | NotADirectoryError):
            return f"fix command / cwd in {self.config.where()}"
        return f"fix the server or its command in {self.config.where()}{self._log_hint()}"

    def _timeout_fix(self) -> str:
        return f"check its command{self._log_hint()}, or raise timeout in {self.config.where()}"

    def _restart_fix(self) -> str:
        return f"its tools are off for this session; fix the server{self._log_hint()} and restart planview"

    def _server_fix(self) -> str:
        return f"its tools are off for this session; update or fix the server{self._log_hint()}"
