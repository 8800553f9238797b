"""One agent process and its ACP connection: start, initialize, open sessions, requests, stop.

Every request goes through `request`, so a dead, silent or refusing agent becomes one
`AgentStartError` naming what to do (sign in, read its stderr log) instead of a traceback.
The agent's stderr goes to a log file, never to the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, text_block

from planview.agents.client import PlanviewClient, capabilities, client_info
from planview.agents.errors import AgentStartError
from planview.agents.processes import descendants, start_time
from planview.agents.profiles import AgentProfile
from planview.agents.wire import LINE_LIMIT, BoundedLines, spawn_agent
from planview.errors import PlanviewError

START_TIMEOUT = 60.0  # initialize + session/new (an agent may fetch its models first)
LOAD_TIMEOUT = 120.0  # session/load replays the whole history before it answers
STDERR_TAIL = 12
AUTH_REQUIRED = -32000
# After stdin closes, and again after SIGTERM, before the next step (codex-acp 0.16 waits out both).
SHUTDOWN_GRACE = 1.0


class AgentConnection:
    def __init__(
        self,
        profile: AgentProfile,
        project_root: Path,
        stderr_path: Path,
        client: PlanviewClient,
        env: Mapping[str, str] | None = None,
        plans_dir: Path | None = None,  # writable under the agent profile (None: the project's)
    ) -> None:
        self.profile = profile
        # The agent runs its commands as its own children: it is a tool process (the session's
        # tool_env marks it, so `planview approve` from the agent's shell refuses).
        self.env = dict(os.environ if env is None else env)
        self.project_root = project_root
        self.plans_dir = plans_dir or project_root / ".planview" / "plans"
        self.sandboxed = False  # the running process was started under the agent profile
        self.stderr_path = stderr_path
        self.client = client
        self.init_response: Any = None
        self._stack: contextlib.AsyncExitStack | None = None
        self._conn: Any = None
        self._process: Any = None
        self._lines: BoundedLines | None = None

    @property
    def open(self) -> bool:
        return self._conn is not None

    async def start(self, *, sandboxed: bool = False) -> None:
        """Spawn the agent (cwd: the project) and initialize; AgentStartError when it cannot.
        `sandboxed`: under the agent profile (planning; confine.py), for good."""
        self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
        stack = contextlib.AsyncExitStack()
        log = stack.enter_context(open(self.stderr_path, "ab"))
        # The SDK reports a broken stream with logging.exception on the root logger; with no handler
        # Python prints that traceback to the terminal. It belongs in the agent's log with its stderr.
        handler = logging.FileHandler(self.stderr_path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("planview: ACP client %(levelname)s: %(message)s"))
        root = logging.getLogger()
        stack.callback(handler.close)
        stack.callback(root.removeHandler, handler)
        root.addHandler(handler)
        env = {**self.env, **self.profile.env}
        program, *args = self.profile.argv
        if sandboxed:
            from planview.agents.confine import agent_argv

            try:
                program, args = agent_argv(self.profile, self.project_root, self.plans_dir, env)
            except PlanviewError as exc:
                await stack.aclose()
                raise AgentStartError(f"could not sandbox {self.profile.short_name}: {exc}") from None
        self.sandboxed = sandboxed
        try:
            conn, process, self._lines = await stack.enter_async_context(
                spawn_agent(
                    self.client,
                    program,
                    *args,
                    env=env,
                    cwd=self.project_root,
                    stderr=log.fileno(),
                    shutdown_timeout=SHUTDOWN_GRACE,
                )
            )
        except OSError as exc:
            await stack.aclose()
            raise AgentStartError(
                f"could not start {self.profile.short_name} ({program}): {exc.strerror or exc}"
            ) from exc
        self._stack, self._conn, self._process = stack, conn, process
        try:
            self.init_response = await self.request(
                conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=capabilities(),
                    client_info=client_info(),
                ),
                "initialize",
            )
        except BaseException:
            await self.close()
            raise

    def kill(self) -> None:
        """SIGKILL the agent and every process it started, now (a revoked approval: an agent that
        writes without asking must not get the grace a polite close gives); `close` still follows."""
        if self._process is None or self._conn is None:
            return
        for pid, started in [(self._process.pid, None), *descendants(self._process.pid)]:
            if started is None or start_time(pid) == started:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    async def close(self) -> None:
        """Stop the agent (stdin closed first, then terminate, then kill), and what it started."""
        stack, self._stack, self._conn = self._stack, None, None
        children = descendants(self._process.pid) if stack is not None and self._process is not None else []
        if stack is not None:
            with contextlib.suppress(Exception):
                await stack.aclose()
        # A launcher (codex-acp's node wrapper) exits and leaves its native child running: stop the
        # processes the agent had started, identified by pid and start time so a reused pid is left alone.
        for pid, started in children:
            if start_time(pid) == started:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGTERM)
        # An agent whose own child keeps the pipes open (codex-acp) leaves the transport open after
        # the agent exits; close it here instead of in the loop's garbage collection.
        transport = getattr(self._process, "_transport", None)
        if transport is not None:
            with contextlib.suppress(Exception):
                transport.close()

    # ------------------------------------------------------------------ requests

    async def request(self, call: Any, what: str, timeout: float = START_TIMEOUT) -> Any:
        """One request to the agent; a dead or silent agent becomes AgentStartError naming its log."""
        try:
            return await asyncio.wait_for(call, timeout)
        except TimeoutError:
            raise AgentStartError(
                self._wire_problem(what)
                or f"{self.profile.short_name} did not answer {what} within {timeout:.0f} s{self.stderr_hint()}"
            ) from None
        except RequestError as exc:
            raise AgentStartError(self.request_error(what, exc)) from None
        except (ConnectionError, EOFError, BrokenPipeError) as exc:
            raise AgentStartError(
                self._wire_problem(what)
                or f"{self.profile.short_name} stopped before answering {what} ({exc}){self.stderr_hint()}"
            ) from None

    def _wire_problem(self, what: str) -> str | None:
        """What the agent's own output says went wrong with `what`, when it says anything."""
        lines, name = self._lines, self.profile.short_name
        if lines is None:
            return None
        if lines.overrun:
            return (
                f"{name} sent a message line over the {LINE_LIMIT // (1024 * 1024)} MB limit (at least "
                f"{lines.overrun // (1024 * 1024)} MB) while planview waited for {what}; planview stopped reading "
                f"it and the agent: ask it for smaller pieces (read big files in parts), or report it to the "
                f"agent's maintainers{self.stderr_hint()}"
            )
        if what == "initialize" and self.init_response is None and lines.answer_ids:
            ids = ", ".join(json.dumps(i) for i in lines.answer_ids[:3])
            return (
                f"{name} answered, but with id {ids}, which does not match planview's initialize request "
                f"(id 0): it does not speak ACP's JSON-RPC as planview does; check the agent command and "
                f"update the agent{self.stderr_hint()}"
            )
        return None

    async def new_session(self, meta: dict[str, Any]) -> Any:
        """session/new in the project; an agent asking for a key it can read from the environment is
        told to use it first."""

        def call() -> Any:
            return self._conn.new_session(cwd=str(self.project_root), mcp_servers=[], **meta)

        try:
            return await asyncio.wait_for(call(), START_TIMEOUT)
        except RequestError as exc:
            if exc.code != AUTH_REQUIRED or not await self._authenticate_from_env():
                raise AgentStartError(self.request_error("session/new", exc)) from None
            return await self.request(call(), "session/new")
        except TimeoutError:
            raise AgentStartError(
                f"{self.profile.short_name} did not answer session/new within {START_TIMEOUT:.0f} s"
                + self.stderr_hint()
            ) from None

    async def load_session(self, session_id: str) -> Any:
        """session/load: the agent reopens a session it saved, replaying its history as updates first
        (AgentStartError when it cannot: an unknown or expired session)."""
        return await self.request(
            self._conn.load_session(cwd=str(self.project_root), session_id=session_id, mcp_servers=[]),
            "session/load",
            LOAD_TIMEOUT,
        )

    async def set_config_option(self, session_id: str, config_id: str | None, value: str) -> Any:
        return await self.request(
            self._conn.set_config_option(config_id=config_id, session_id=session_id, value=value),
            "session/set_config_option",
        )

    async def set_mode(self, session_id: str, mode_id: str) -> Any:
        return await self.request(
            self._conn.set_session_mode(mode_id=mode_id, session_id=session_id), "session/set_mode"
        )

    async def prompt(self, session_id: str, text: str) -> Any:
        """session/prompt: runs as long as the agent's turn (no timeout; session/cancel ends it)."""
        return await self._conn.prompt(session_id=session_id, prompt=[text_block(text)])

    def cancel_soon(self, session_id: str) -> None:
        """session/cancel, sent on the next loop pass (after a permission answer that asked for it)."""
        conn = self._conn
        if conn is None:
            return
        loop = asyncio.get_running_loop()

        def send() -> None:
            task = loop.create_task(conn.cancel(session_id=session_id))
            task.add_done_callback(lambda t: t.cancelled() or t.exception())

        loop.call_soon(send)

    # ------------------------------------------------------------------ messages

    async def _authenticate_from_env(self) -> bool:
        """planview never reads or passes the key: the agent reads the variables it named itself."""
        for method in getattr(self.init_response, "auth_methods", None) or []:
            needed = [v.name for v in getattr(method, "vars", None) or [] if not v.optional]
            usable = getattr(method, "type", None) == "env_var" and needed
            if usable and all(os.environ.get(name) for name in needed):
                try:
                    await self.request(self._conn.authenticate(method_id=method.id), "authenticate")
                except AgentStartError:
                    return False
                return True
        return False

    def request_error(self, what: str, exc: RequestError) -> str:
        if exc.code == AUTH_REQUIRED:
            methods = getattr(self.init_response, "auth_methods", None) or []
            names = ", ".join(getattr(m, "name", None) or m.id for m in methods) or "its own login"
            return (
                f"{self.profile.short_name} needs you to sign in first ({names}): run it once in a terminal "
                f"({self.profile.argv[0]}) and log in, then start planview again"
            )
        detail = f": {exc.data}" if exc.data else ""
        return f"{self.profile.short_name} refused {what} ({exc}{detail}){self.stderr_hint()}"

    def stderr_hint(self) -> str:
        try:
            text = self.stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        tail = text.strip().splitlines()[-STDERR_TAIL:]
        last = f"; its last words: {tail[-1][:200]}" if tail else ""
        return f" (stderr in {self.stderr_path}{last})"
