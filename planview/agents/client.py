"""The ACP `Client` planview hands the SDK: a thin adapter that forwards each agent request to the
session (`ClientHandler`), so the SDK's moving API stays in this one file.

planview advertises `fs/read_text_file` and `fs/write_text_file` (so agents that can, write through
planview, where plan mode refuses) and no terminal: agents run commands with their own tools, and
a `terminal/create` that arrives anyway is refused.
"""

from __future__ import annotations

from typing import Any, Protocol

from acp import RequestError
from acp.schema import (
    ClientCapabilities,
    FileSystemCapabilities,
    Implementation,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
    WriteTextFileResponse,
)

from planview import __version__


def capabilities() -> ClientCapabilities:
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=False
    )


def client_info() -> Implementation:
    return Implementation(name="planview", title="planview", version=__version__)


class ClientHandler(Protocol):
    """What the client asks of the session (narrow on purpose)."""

    def on_update(self, update: Any) -> None: ...

    async def on_permission(
        self, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse: ...

    async def on_write(self, path: str, content: str) -> None: ...

    async def on_read(self, path: str, line: int | None, limit: int | None) -> str: ...

    def on_terminal(self, command: str, args: list[str]) -> str: ...


class PlanviewClient:
    def __init__(self, handler: ClientHandler, session_ids: set[str]) -> None:
        self.handler = handler
        self.session_ids = session_ids  # sessions this client opened; others are refused

    def _check(self, session_id: str) -> None:
        if session_id not in self.session_ids:
            raise RequestError.invalid_params({"sessionId": session_id, "reason": "unknown session"})

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **kwargs: Any
    ) -> RequestPermissionResponse:
        self._check(session_id)
        return await self.handler.on_permission(tool_call, options)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if session_id in self.session_ids:
            self.handler.on_update(update)

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self._check(session_id)
        await self.handler.on_write(path, content)
        return WriteTextFileResponse()

    async def read_text_file(
        self, path: str, session_id: str, limit: int | None = None, line: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        self._check(session_id)
        return ReadTextFileResponse(content=await self.handler.on_read(path, line, limit))

    async def create_terminal(
        self, command: str, session_id: str, args: list[str] | None = None, **kwargs: Any
    ) -> Any:
        self._check(session_id)
        raise RequestError(-32000, self.handler.on_terminal(command, list(args or ())))

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        raise RequestError.resource_not_found(terminal_id)

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        raise RequestError.resource_not_found(terminal_id)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        raise RequestError.resource_not_found(terminal_id)

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> Any:
        raise RequestError.resource_not_found(terminal_id)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        return None
