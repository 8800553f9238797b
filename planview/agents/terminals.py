"""The ACP client terminal: the commands an agent runs through planview (`terminal/*`).

Whether a command may run is the session's rule (requests.py: the gate in plan mode, the pin in
execute mode); this module runs what was allowed and owns its processes:

- one shell line per terminal, run as `bash -c LINE` in its own process group (`shell_line` is the
  line the gate checked, so what runs is what was checked);
- its output (stdout and stderr together) is read as it comes, so a flood never blocks the command,
  and only the last `limit` bytes are kept (at most OUTPUT_CAP, whatever the agent asks for),
  truncated from the start at a character boundary as the protocol says;
- `kill` ends the whole process group (and what the command started, while it runs) and keeps the
  output; `release` kills and forgets the terminal; `close` (session end, cancel) kills every one.
  Every process is waited for, so none is left a zombie; a background child the command left in its
  group is killed with the group when the terminal is killed or released.

A terminal id belongs to the agent session that created it; an unknown, released or foreign id is a
JSON-RPC error naming what to do, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import subprocess
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from acp import RequestError
from acp.schema import TerminalExitStatus, TerminalOutputResponse, WaitForTerminalExitResponse

from planview.agents.processes import descendants, start_time

OUTPUT_CAP = 1024 * 1024  # bytes of output kept per terminal (one JSON-RPC answer carries it)
MAX_OPEN = 32  # terminals one session may hold at once (each is a live process group)
# After release a tool call that embeds the terminal still shows its output (the protocol says so):
# the last SHOWN_CHARS characters of the last SHOWN_KEPT released terminals are kept for that.
SHOWN_KEPT = 64
SHOWN_CHARS = 16_000
DRAIN_GRACE = 0.5  # after the command exits, how long its last output may take to arrive
NOT_FOUND = -32002  # the protocol's "resource not found"
INVALID = -32602  # JSON-RPC invalid params
REFUSED = -32000

# `sh -c SCRIPT` / `bash -c SCRIPT` is a shell line already: the script is what gets checked and run.
_SHELLS = frozenset({"sh", "bash", "/bin/sh", "/bin/bash", "/usr/bin/sh", "/usr/bin/bash"})


def shell_line(command: str, args: Sequence[str]) -> str:
    """The one shell line a terminal/create asks for (the gate checks it, bash runs it).

    No args: `command` is a command line (Claude's ACP adapter sends its Bash tool's command so).
    `bash -c SCRIPT`: the script. Otherwise the program and its arguments, quoted for the shell."""
    if not isinstance(command, str) or not command.strip():
        raise RequestError(INVALID, "terminal/create needs a non-empty `command`")
    if not args:
        return command
    if command in _SHELLS and len(args) == 2 and args[0] == "-c":
        return args[1]
    return shlex.join([command, *args])


def output_limit(requested: int | None) -> int:
    """The bytes a terminal keeps: what the agent asked for, never more than OUTPUT_CAP."""
    if requested is None or requested < 0:
        return OUTPUT_CAP
    return min(requested, OUTPUT_CAP)


@dataclass(frozen=True)
class TerminalSpec:
    """What to run, decided by the session: the checked line, the script bash runs, where, how."""

    line: str  # the command line as the agent asked and the gate checked it
    script: str  # what `bash -c` runs (plan mode prefixes the read-only git function)
    cwd: Path
    env: Mapping[str, str]
    limit: int
    mode: str  # the session mode it was started in
    # Plan mode with the kernel sandbox in force: the project it is confined to (planview.sandbox)
    sandbox_root: Path | None = None


class _Pipe(asyncio.SubprocessProtocol):
    """The command's side: output as it comes, its exit, and its pipe closing (they differ: a
    background child may keep the pipe open after the command exited, and Process.wait() of Python
    3.11 would wait for the pipe too)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.tail = bytearray()
        self.truncated = False
        self.total = 0  # bytes the command wrote
        self.exited = asyncio.Event()
        self.closed = asyncio.Event()

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        self.total += len(data)
        self.tail += data
        if len(self.tail) > self.limit:
            del self.tail[: len(self.tail) - self.limit]
            self.truncated = True

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.closed.set()

    def process_exited(self) -> None:
        self.exited.set()


class Terminal:
    def __init__(
        self,
        terminal_id: str,
        session_id: str,
        spec: TerminalSpec,
        transport: asyncio.SubprocessTransport,
        pipe: _Pipe,
    ) -> None:
        self.id = terminal_id
        self.session_id = session_id
        self.spec = spec
        self.transport = transport
        self.pid = transport.get_pid()  # also the process group id (start_new_session)
        self._pipe = pipe

    @property
    def returncode(self) -> int | None:
        return self.transport.get_returncode()

    @property
    def running(self) -> bool:
        return self.returncode is None

    @property
    def truncated(self) -> bool:
        return self._pipe.truncated

    def text(self) -> str:
        """The kept output as text, within the limit: invalid UTF-8 becomes U+FFFD (3 bytes), so the
        decoded text is cut again, at a character boundary, when that made it longer."""
        tail = self._pipe.tail
        text = (_after_partial(tail) if self._pipe.truncated else bytes(tail)).decode(
            "utf-8", errors="replace"
        )
        encoded = text.encode("utf-8")
        if len(encoded) > self.spec.limit:
            self._pipe.truncated = True
            text = _after_partial(encoded[len(encoded) - self.spec.limit :]).decode("utf-8")
        return text

    def exit_status(self) -> TerminalExitStatus | None:
        code = self.returncode
        if code is None:
            return None
        if code < 0:
            return TerminalExitStatus(exit_code=None, signal=_signal_name(-code))
        return TerminalExitStatus(exit_code=code, signal=None)

    def output(self) -> TerminalOutputResponse:
        return TerminalOutputResponse(
            output=self.text(), truncated=self.truncated, exit_status=self.exit_status()
        )

    async def wait(self) -> WaitForTerminalExitResponse:
        await self._pipe.exited.wait()
        # It has exited; let its last output arrive (a background child may keep the pipe open).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._pipe.closed.wait(), DRAIN_GRACE)
        status = self.exit_status()
        assert status is not None
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    def signal_group(self) -> None:
        """SIGKILL the command's process group, and (while it runs) every process it started,
        identified by pid and start time so a reused pid is left alone."""
        children = descendants(self.pid) if self.running else []
        with contextlib.suppress(ProcessLookupError, PermissionError):
            # Still valid after the leader was reaped: Linux does not reuse a pid that names a live group.
            os.killpg(self.pid, signal.SIGKILL)
        for pid, started in children:
            if start_time(pid) == started:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    async def kill(self) -> None:
        self.signal_group()
        await self._pipe.exited.wait()  # reaped by the loop's child watcher: no zombie

    async def dispose(self) -> None:
        """Kill, reap, and close the pipe (a process outside the group may still hold it)."""
        await self.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._pipe.closed.wait(), DRAIN_GRACE)
        self.transport.close()


def _after_partial(data: bytes | bytearray) -> bytes:
    """`data` without the continuation bytes of a character cut off at its start."""
    skip = 0
    while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
        skip += 1
    return bytes(data[skip:])


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"SIG{number}"


class Terminals:
    """The terminals of one planview session (every agent session it opened)."""

    def __init__(self) -> None:
        self._open: dict[str, Terminal] = {}
        self._released: dict[str, str] = {}  # terminal id -> the end of its output

    def __len__(self) -> int:
        return len(self._open)

    async def create(self, session_id: str, spec: TerminalSpec) -> str:
        if len(self._open) >= MAX_OPEN:
            raise RequestError(
                REFUSED,
                f"{MAX_OPEN} terminals are already open in this session; release the ones you are done "
                "with (terminal/release) before creating another",
            )
        pipe = _Pipe(spec.limit)
        argv = ["bash", "-c", spec.script]
        if spec.sandbox_root is not None:
            from planview.sandbox.launch import wrap

            argv = wrap(argv, spec.sandbox_root)
        try:
            transport, _ = await asyncio.get_running_loop().subprocess_exec(
                lambda: pipe,
                *argv,
                cwd=spec.cwd,
                env=dict(spec.env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: killed as a whole
            )
        except OSError as exc:
            raise RequestError(REFUSED, f"could not start the command: {exc.strerror or exc}") from None
        terminal_id = f"term-{uuid.uuid4().hex[:12]}"
        self._open[terminal_id] = Terminal(terminal_id, session_id, spec, transport, pipe)
        return terminal_id

    def get(self, session_id: str, terminal_id: str) -> Terminal:
        terminal = self._open.get(terminal_id) if isinstance(terminal_id, str) else None
        if terminal is None or terminal.session_id != session_id:
            raise RequestError(
                NOT_FOUND,
                f"no terminal {terminal_id!r} in this session (it was released, or never created); "
                "start the command again with terminal/create",
                {"terminalId": terminal_id},
            )
        return terminal

    async def release(self, session_id: str, terminal_id: str) -> None:
        terminal = self.get(session_id, terminal_id)
        del self._open[terminal_id]
        await terminal.dispose()
        self._remember(terminal)

    def _remember(self, terminal: Terminal) -> None:
        self._released[terminal.id] = terminal.text()[-SHOWN_CHARS:]
        while len(self._released) > SHOWN_KEPT:
            del self._released[next(iter(self._released))]

    def shown(self, terminal_id: str) -> str | None:
        """The output a tool row shows for a terminal the agent embedded (live or released)."""
        terminal = self._open.get(terminal_id)
        if terminal is not None:
            return terminal.text()[-SHOWN_CHARS:]
        return self._released.get(terminal_id)

    def kill_running(self, mode: str | None = None) -> None:
        """SIGKILL every running command (only those started in `mode`, when given); kept for output."""
        for terminal in list(self._open.values()):
            if terminal.running and (mode is None or terminal.spec.mode == mode):
                terminal.signal_group()

    async def close(self) -> None:
        """Session end: kill, reap and forget every terminal."""
        terminals, self._open = list(self._open.values()), {}
        for terminal in terminals:
            with contextlib.suppress(Exception):
                await terminal.dispose()
            self._remember(terminal)
