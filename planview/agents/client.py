"""The ACP `Client` planview hands the SDK: a thin adapter that forwards each agent request to the
session (`ClientHandler`), so the SDK's moving API stays in this one file.

planview advertises `fs/read_text_file`, `fs/write_text_file` and `terminal` (so agents that can,
write and run commands through planview, where the gate weighs each one: plan mode refuses writes
but the plan file and runs only read-only git; terminals.py runs and stops the commands).
"""

from __future__ import annotations

from typing import Any, Protocol

from acp import RequestError
from acp.schema import (
    ClientCapabilities,
    CreateTerminalResponse,
    EnvVariable,
    FileSystemCapabilities,
    Implementation,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from planview import __version__
from planview.agents.terminals import Terminals


def capabilities() -> ClientCapabilities:
    return ClientCapabilities(
        fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
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

    async def on_terminal_create(
        self,
        session_id: str,
        command: str,
        args: list[str],
        cwd: str | None,
        env: list[EnvVariable],
        output_byte_limit: int | None,
    ) -> str: ...

    @property
    def terminals(self) -> Terminals: ...


class PlanviewClient:
    def __init__(self, handler: ClientHandler, session_ids: set[str]) -> None:
        self.handler = handler
        self.session_ids = session_ids  # sessions this client opened; others are refused

    def _check(self, session_id: str) -> None:
        if session_id not in self.session_ids:
            raise RequestError.invalid_params({"sessionId": session_id, "reason": "unknown session"})

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        self._check(session_id)
        return await self.handler.on_permission(tool_call, options)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if session_id in self.session_ids:
            self.handler.on_update(update)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self._check(session_id)
        await self.handler.on_write(path, content)
        return WriteTextFileResponse()

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        self._check(session_id)
        return ReadTextFileResponse(content=await self.handler.on_read(path, line, limit))

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        self._check(session_id)
        terminal_id = await self.handler.on_terminal_create(
            session_id, command, list(args or ()), cwd, list(env or ()), output_byte_limit
        )
        return CreateTerminalResponse(terminal_id=terminal_id)

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        self._check(session_id)
        return self.handler.terminals.get(session_id, terminal_id).output()

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        self._check(session_id)
        return await self.handler.terminals.get(session_id, terminal_id).wait()

    async def kill_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> KillTerminalResponse:
        self._check(session_id)
        await self.handler.terminals.get(session_id, terminal_id).kill()
        return KillTerminalResponse()

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse:
        self._check(session_id)
        await self.handler.terminals.release(session_id, terminal_id)
        return ReleaseTerminalResponse()

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        # planview does not advertise elicitation; an agent that asks anyway is told so.
        raise RequestError.method_not_found("elicitation/create")

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        return None
