"""The agent's stdout as the ACP SDK reads it: lines bounded as documented, and what they say about ids.

The SDK joins a line of any length from chunks (`readuntil`, then `readexactly` on each
LimitOverrunError), so a 200 MB line was read whole. `BoundedLines` counts a line's bytes as they
arrive and, past `LINE_LIMIT`, stops reading: the SDK sees end of stream (its pending requests
fail), and `overrun` says what happened, so the connection names the cause instead of a generic
"stopped". It also notes the ids of the first answers (small lines only), so an agent that answers
`initialize` with another id is named for that, not for silence.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import asynccontextmanager
from typing import Any

LINE_LIMIT = 50 * 1024 * 1024  # one JSON-RPC line (a big diff or file) from the agent
CHUNK_LIMIT = 1024 * 1024  # what the stream buffers at once; a longer line arrives in chunks of this
_WATCHED_LINES = 16  # answers whose ids are noted (start-up: initialize, session/new)
_WATCHED_BYTES = 64 * 1024


class BoundedLines(asyncio.StreamReader):
    """The agent's stdout StreamReader: a line past LINE_LIMIT ends the stream (`overrun` set).

    The SDK accepts only a StreamReader, and the subprocess transport made this one: `adopt` turns
    it into a BoundedLines in place (same buffer, same transport), adding only the counters."""

    _line_limit: int
    _line: int  # bytes of the line being read so far
    overrun: int  # bytes read of the line that went over the limit (0: none)
    answer_ids: list[Any]  # ids of the first responses (no "method")
    _watched: int

    @classmethod
    def adopt(cls, reader: asyncio.StreamReader, limit: int = LINE_LIMIT) -> BoundedLines:
        reader.__class__ = cls
        bounded: BoundedLines = reader  # type: ignore[assignment]
        bounded._line_limit, bounded._line, bounded.overrun = limit, 0, 0
        bounded.answer_ids, bounded._watched = [], 0
        return bounded

    def _over(self, more: int) -> bool:
        if self._line + more > self._line_limit:
            self.overrun = self._line + more
            return True
        return False

    async def readuntil(self, separator: Any = b"\n") -> bytes:  # Any: asyncio types it as a private alias
        if self.overrun:
            raise asyncio.IncompleteReadError(b"", None)
        try:
            data = await super().readuntil(separator)
        except asyncio.LimitOverrunError as exc:
            if self._over(exc.consumed):
                raise asyncio.IncompleteReadError(b"", None) from None
            raise  # the SDK reads this chunk with readexactly and asks again
        if self._over(len(data)):
            raise asyncio.IncompleteReadError(b"", None)
        whole = self._line == 0
        self._line = 0
        if whole:
            self._note(data)
        return data

    async def readexactly(self, n: int) -> bytes:
        if self.overrun or self._over(n):
            raise asyncio.IncompleteReadError(b"", None)
        data = await super().readexactly(n)
        self._line += len(data)
        return data

    def _note(self, line: bytes) -> None:
        if self._watched >= _WATCHED_LINES or len(line) > _WATCHED_BYTES:
            return
        self._watched += 1
        try:
            message = json.loads(line)
        except ValueError:
            return
        if isinstance(message, dict) and "id" in message and "method" not in message:
            self.answer_ids.append(message["id"])


@asynccontextmanager
async def spawn_agent(client: Any, program: str, *args: str, env: Any, cwd: Any, **transport: Any):
    """`acp.spawn_agent_process` with the agent's stdout read through BoundedLines:
    yields (connection, process, lines)."""
    from acp.client.connection import ClientSideConnection
    from acp.stdio import spawn_stdio_transport

    async with spawn_stdio_transport(program, *args, env=env, cwd=cwd, limit=CHUNK_LIMIT, **transport) as (
        reader,
        writer,
        process,
    ):
        lines = BoundedLines.adopt(reader)
        conn = ClientSideConnection(client, writer, lines)
        try:
            yield conn, process, lines
        finally:
            await conn.close()
