"""A fake ACP agent built on the agent-client-protocol SDK, for planview's tests (no real agent binary).

    python fake_agent.py --scenario NAME

Scenarios (each is one of the "fake agents" the tests and `planview run --agent` use):
  fs-write     plan mode offered; in plan mode it writes src.txt through fs/write_text_file (refused),
               then writes its plan through fs/write_text_file to .planview/plans/ (allowed)
  disk-write   plan mode offered; it writes breach.txt to disk behind the client's back, then keeps
               streaming until cancelled
  stubborn     disk-write, but it ignores session/cancel and streams on for a minute
  switch-mode  Claude-style: a switch_mode tool call and permission carrying the plan markdown; after
               an allow it switches itself to "default" and edits done.txt through fs/write_text_file
  no-plan      offers only "code" and "yolo" modes (no read-only mode)
  stream       streams chunks for a long time until session/cancel; a pending permission meanwhile
  exit-stay    switch-mode, but it does not leave its plan mode itself after the allow
  slow-edit    switch-mode, but after the allow it waits for a file named `go` before it edits
  rows         one reply with a read tool call, a diff edit call and a failed call (for transcript rows)
  launcher     starts a long-running helper process of its own (like codex-acp's native binary)
  needs-auth   session/new answers "authentication required" until authenticate(fake-key) was called;
               that method is an env_var one needing FAKE_AGENT_KEY
  config-mode  offers its modes as a config option (category "mode") instead of session modes
  terminal     runs commands through the client's terminal (terminal/*): by default `git status`
               (read-only) and `touch written.txt` (a write); FAKE_AGENT_COMMANDS (a JSON list) gives
               others, each {"command", "args", "cwd", "env", "limit", "lines": N (first wait for N
               lines of output), "then": "wait" | "kill" (after "after" seconds) | "leave" (never
               released) | "hold" (until session/cancel), "reuse": true (use the id again after
               release)}, or {"op": "output" | "wait" | "kill" | "release", "terminal": ID}, or
               {"raw": METHOD, "params": {...}} (a JSON-RPC request exactly as given; "$session" in
               params is this session's id)
  startup-write  writes breach.txt while it opens its session (session/new), before any prompt
  last-write   writes last.txt and ends its turn at once
  plans-write  writes .planview/plans/run.sh with its own tools (not a plan), then ends its turn
  git-shell    plan mode offered; asks to run `git diff` (kind execute) and, when allowed, runs it in
               its own shell with its own environment, as real agents' shell tools do
  shell-write  its own shell runs `echo x > f` in the project, and (FAKE_REPORT_PORT set) a double-forked
               child writes detached.txt, then later.txt after FAKE_DETACHED_DELAY seconds, and reports
               each result on that loopback port
  build-loop   opencode-style, never asks: planning, it writes its plan into .planview/plans/ with its
               own tools; executing, it writes work-PID-N.txt every 20 ms until cancelled

Every request the agent receives and every answer it gets is appended as a JSON line to the file
named by FAKE_AGENT_LOG (when set), so tests can assert what the agent saw.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    Agent,
    AuthenticateResponse,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    plan_entry,
    run_agent,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    tool_terminal_ref,
    update_agent_message_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.helpers import update_current_mode
from acp.schema import (
    AgentCapabilities,
    AuthEnvVar,
    EnvVarAuthMethod,
    EnvVariable,
    LoadSessionResponse,
    PermissionOption,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    ToolCallLocation,
    ToolCallUpdate,
)

PLAN = """# Add a greeting

## Goal
Say hello.

## Steps
- [ ] Write done.txt
- [ ] Tell the user

## Verification
cat done.txt
"""

CLAUDE_OPTIONS = [
    PermissionOption(option_id="acceptEdits", name="Yes, and auto-accept edits", kind="allow_always"),
    PermissionOption(option_id="default", name="Yes, and manually approve edits", kind="allow_once"),
    PermissionOption(option_id="plan", name="No, keep planning", kind="reject_once"),
]
DEFAULT_COMMANDS = [{"command": "git status --short"}, {"command": "touch written.txt"}]

EDIT_OPTIONS = [
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]


def log(record: dict[str, Any]) -> None:
    """One record to FAKE_AGENT_LOG; under the agent sandbox (that file is not writable) to stderr,
    which planview opened before the sandbox and keeps as the agent's log (conftest reads both)."""
    path = os.environ.get("FAKE_AGENT_LOG")
    if not path:
        return
    line = json.dumps({**record, "t": time.time()}, default=str)
    try:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except PermissionError:
        sys.stderr.write(f"FAKE_AGENT_LOG {line}\n")
        sys.stderr.flush()


# A double-forked child that writes into the project now and again later, then tells the test on
# FAKE_REPORT_PORT (loopback TCP, which the agent profile keeps open) what each write did.
DETACHED = r"""
import os, socket, sys, time
port, delay = int(sys.argv[1]), float(sys.argv[2])
if os.fork():
    os._exit(0)
os.setsid()
if os.fork():
    os._exit(0)
results = []
for name, wait in (("detached.txt", 0.0), ("later.txt", delay)):
    time.sleep(wait)
    try:
        with open(name, "w") as f:
            f.write("written by a detached child\n")
        results.append(name + "=ok")
    except OSError as exc:
        results.append(name + "=" + (exc.strerror or str(exc)))
with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
    s.sendall((" ".join(results) + "\n").encode())
"""


class FakeAgent(Agent):
    def __init__(self, scenario: str) -> None:
        self.scenario = scenario
        self.conn: Any = None
        self.mode = "default"
        self.cwd = Path.cwd()
        self.cancelled = asyncio.Event()
        self.session_id = "fake-session-1"
        self.sessions = 0
        self.authenticated = False

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **kw: Any
    ) -> InitializeResponse:
        log(
            {
                "method": "initialize",
                "fs": client_capabilities.fs.model_dump() if client_capabilities else None,
                "terminal": client_capabilities.terminal if client_capabilities else None,
            }
        )
        methods = []
        if self.scenario == "needs-auth":
            methods = [
                EnvVarAuthMethod(
                    id="fake-key",
                    name="Use FAKE_AGENT_KEY",
                    type="env_var",
                    vars=[AuthEnvVar(name="FAKE_AGENT_KEY")],
                )
            ]
        capabilities = AgentCapabilities(load_session=self.scenario == "remember")
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION, agent_capabilities=capabilities, auth_methods=methods
        )

    async def authenticate(self, method_id: str, **kw: Any) -> Any:
        log({"method": "authenticate", "id": method_id, "key_seen": bool(os.environ.get("FAKE_AGENT_KEY"))})
        self.authenticated = True
        return AuthenticateResponse()

    def _modes(self) -> SessionModeState | None:
        if self.scenario == "no-plan":
            ids = [("code", "Code"), ("yolo", "YOLO")]
        elif self.scenario == "config-mode":
            return None
        else:
            ids = [("default", "Default"), ("plan", "Plan Mode"), ("acceptEdits", "Accept Edits")]
        if self.mode not in {i for i, _ in ids}:
            self.mode = ids[0][0]
        return SessionModeState(
            current_mode_id=self.mode, available_modes=[SessionMode(id=i, name=n) for i, n in ids]
        )

    def _config(self) -> list[Any] | None:
        if self.scenario != "config-mode":
            return None
        return [
            SessionConfigOptionSelect(
                id="mode",
                name="Mode",
                category="mode",
                type="select",
                current_value=self.mode,
                options=[
                    SessionConfigSelectOption(value="agent", name="Agent"),
                    SessionConfigSelectOption(value="read-only", name="Read-only"),
                ],
            )
        ]

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kw: Any) -> NewSessionResponse:
        if self.scenario == "needs-auth" and not self.authenticated:
            raise RequestError.auth_required()
        self.sessions += 1
        # "remember" keeps its sessions across processes (FAKE_AGENT_STORE): ids must not repeat
        self.session_id = f"fake-session-{self.sessions}" + (
            f"-{os.getpid()}" if self.scenario == "remember" else ""
        )
        self.cwd = Path(cwd)
        if self.scenario == "config-mode":
            self.mode = "agent"
        if self.scenario == "startup-write":
            (self.cwd / "breach.txt").write_text("written while the session opened\n")
            log({"event": "startup-write"})
        log({"method": "session/new", "cwd": cwd, "meta": kw, "session": self.session_id})
        return NewSessionResponse(
            session_id=self.session_id, modes=self._modes(), config_options=self._config()
        )

    # ---------------------------------------------------------------- "remember": sessions that load

    def _history_path(self, session_id: str) -> Path:
        return Path(os.environ["FAKE_AGENT_STORE"]) / f"{session_id}.json"

    def _history(self, session_id: str) -> list[str]:
        path = self._history_path(session_id)
        return json.loads(path.read_text()) if path.exists() else []

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kw: Any
    ) -> LoadSessionResponse | None:
        history = self._history(session_id) if self.scenario == "remember" else None
        log({"method": "session/load", "session": session_id, "history": history})
        if not history:
            raise RequestError.resource_not_found(session_id)
        self.session_id, self.cwd = session_id, Path(cwd)
        for said in history:  # the protocol's replay: the whole conversation as updates, then the answer
            await self.conn.session_update(session_id=session_id, update=update_user_message_text(said))
            await self.say(f"(history) answered {said!r}. ")
        return LoadSessionResponse(modes=self._modes(), config_options=self._config())

    async def turn_remember(self, text: str) -> str:
        history = self._history(self.session_id)
        await self.say(f"I remember {len(history)} earlier prompt(s): {' | '.join(history) or 'none'}.")
        self._history_path(self.session_id).write_text(json.dumps([*history, text]))
        return "end_turn"

    async def set_session_mode(self, mode_id: str, session_id: str, **kw: Any) -> SetSessionModeResponse:
        log({"method": "session/set_mode", "mode": mode_id})
        self.mode = mode_id
        await self.conn.session_update(session_id=session_id, update=update_current_mode(mode_id))
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **kw: Any
    ) -> SetSessionConfigOptionResponse:
        log({"method": "session/set_config_option", "config": config_id, "value": value})
        self.mode = value
        return SetSessionConfigOptionResponse(config_options=self._config())

    async def cancel(self, session_id: str, **kw: Any) -> None:
        log({"method": "session/cancel"})
        self.cancelled.set()

    async def say(self, text: str) -> None:
        await self.conn.session_update(session_id=self.session_id, update=update_agent_message_text(text))

    async def prompt(self, prompt: list[Any], session_id: str, **kw: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        log({"method": "session/prompt", "text": text, "mode": self.mode, "session": session_id})
        self.cancelled.clear()
        handler = getattr(self, "turn_" + self.scenario.replace("-", "_"))
        stop = await handler(text)
        log({"method": "prompt-end", "stop": stop})
        return PromptResponse(stop_reason=stop)

    # ---------------------------------------------------------------- scenarios

    async def turn_fs_write(self, text: str) -> str:
        await self.say("Looking around. ")
        try:
            await self.conn.write_text_file(
                session_id=self.session_id, path=str(self.cwd / "src.txt"), content="changed\n"
            )
            log({"event": "write-src", "result": "ok"})
        except Exception as exc:  # the RequestError planview answers with
            log(
                {
                    "event": "write-src",
                    "result": "error",
                    "message": str(exc),
                    "data": getattr(exc, "data", None),
                }
            )
        plan_path = self.cwd / ".planview" / "plans" / "fake-plan.md"
        try:
            await self.conn.write_text_file(session_id=self.session_id, path=str(plan_path), content=PLAN)
            log({"event": "write-plan", "result": "ok"})
        except Exception as exc:
            log({"event": "write-plan", "result": "error", "message": str(exc)})
        await self.say("Plan written.")
        return "end_turn"

    async def turn_stubborn(self, text: str) -> str:
        (self.cwd / "breach.txt").write_text("written behind the client's back\n")
        log({"event": "disk-write"})
        for _ in range(1200):  # ignores session/cancel for a minute
            await self.say(".")
            await asyncio.sleep(0.05)
        return "end_turn"

    async def turn_disk_write(self, text: str) -> str:
        await self.say("Planning quietly... ")
        (self.cwd / "breach.txt").write_text("written behind the client's back\n")
        log({"event": "disk-write"})
        for _ in range(200):  # keep going until planview cancels
            if self.cancelled.is_set():
                return "cancelled"
            await self.say(".")
            await asyncio.sleep(0.05)
        return "end_turn"

    async def turn_switch_mode(self, text: str) -> str:
        if self.mode == "plan" and "Carry out" not in text:
            await self.say("Here is my plan.")
            await self.conn.session_update(
                session_id=self.session_id,
                update=start_tool_call("toolu_plan", "Ready to code?", kind="switch_mode", status="pending"),
            )
            answer = await self.conn.request_permission(
                session_id=self.session_id,
                tool_call=ToolCallUpdate(
                    tool_call_id="toolu_plan",
                    title="Ready to code?",
                    kind="switch_mode",
                    raw_input={"plan": PLAN},
                    content=[tool_content(text_block(PLAN))],
                ),
                options=CLAUDE_OPTIONS,
            )
            outcome = answer.outcome.model_dump(by_alias=True)
            log({"event": "exit-plan-answer", "outcome": outcome})
            if outcome.get("outcome") == "selected" and outcome.get("optionId") in ("default", "acceptEdits"):
                if self.scenario != "exit-stay":  # exit-stay: an agent that leaves its mode to the client
                    self.mode = outcome["optionId"]
                    await self.conn.session_update(
                        session_id=self.session_id, update=update_current_mode(self.mode)
                    )
                await self.conn.session_update(
                    session_id=self.session_id, update=update_tool_call("toolu_plan", status="completed")
                )
                if self.cancelled.is_set():
                    return "cancelled"
                await self._edit()
            else:
                await self.conn.session_update(
                    session_id=self.session_id, update=update_tool_call("toolu_plan", status="failed")
                )
                if self.cancelled.is_set():
                    return "cancelled"
            return "end_turn"
        await self._edit()
        return "end_turn"

    async def turn_slow_edit(self, text: str) -> str:
        return await self.turn_switch_mode(text)

    async def turn_exit_stay(self, text: str) -> str:
        result = await self.turn_switch_mode(text)
        log({"event": "mode-at-end", "mode": self.mode})
        return result

    async def _edit(self) -> None:
        if self.scenario == "slow-edit":
            for _ in range(400):
                if (self.cwd / "go").exists():
                    break
                await asyncio.sleep(0.025)
        target = str(self.cwd / "done.txt")
        await self.conn.session_update(
            session_id=self.session_id,
            update=start_tool_call(
                "edit-1",
                "Write done.txt",
                kind="edit",
                status="pending",
                locations=[ToolCallLocation(path=target)],
            ),
        )
        answer = await self.conn.request_permission(
            session_id=self.session_id,
            tool_call=ToolCallUpdate(
                tool_call_id="edit-1", title="Write done.txt", kind="edit", raw_input={"file_path": target}
            ),
            options=EDIT_OPTIONS,
        )
        outcome = answer.outcome.model_dump(by_alias=True)
        log({"event": "edit-answer", "outcome": outcome})
        if outcome.get("optionId") != "allow":
            await self.conn.session_update(
                session_id=self.session_id, update=update_tool_call("edit-1", status="failed")
            )
            return
        try:
            await self.conn.write_text_file(session_id=self.session_id, path=target, content="hello\n")
            log({"event": "edit-write", "result": "ok"})
        except Exception as exc:
            log({"event": "edit-write", "result": "error", "message": str(exc)})
            await self.conn.session_update(
                session_id=self.session_id, update=update_tool_call("edit-1", status="failed")
            )
            return
        await self.conn.session_update(
            session_id=self.session_id,
            update=update_tool_call(
                "edit-1", status="completed", content=[tool_diff_content(target, "hello\n", None)]
            ),
        )
        await self.say("Done.")

    async def turn_shell_write(self, text: str) -> str:
        """Its own shell writes into the project (`echo x > f`), and a double-forked child keeps
        writing after the turn ended, as real agents' shell tools and their servers do."""
        import subprocess

        shell = subprocess.run(["sh", "-c", "echo x > f"], cwd=self.cwd, capture_output=True, text=True)
        log({"event": "shell-write", "code": shell.returncode, "stderr": shell.stderr.strip()})
        port = os.environ.get("FAKE_REPORT_PORT")
        if port:
            delay = os.environ.get("FAKE_DETACHED_DELAY", "1.0")
            subprocess.run([sys.executable, "-c", DETACHED, port, delay], cwd=self.cwd, check=True)
        await self.say(f"shell said {shell.returncode}.")
        return "end_turn"

    async def turn_build_loop(self, text: str) -> str:
        """opencode-style: it never asks permission. Planning, it writes its plan into the plans
        folder with its own tools and ends the turn; executing, it writes work-N.txt files with its
        own tools every 20 ms until cancelled (or 20 s)."""
        if self.mode == "plan":
            plans = self.cwd / ".planview" / "plans"
            (plans / "build-plan.md").write_text(PLAN)
            log({"event": "plan-written"})
            await self.say("Plan written.")
            return "end_turn"
        for n in range(1000):
            if self.cancelled.is_set():
                return "cancelled"
            try:
                (self.cwd / f"work-{os.getpid()}-{n}.txt").write_text("work\n")
                log({"event": "work", "n": n, "result": "ok", "pid": os.getpid()})
            except OSError as exc:
                log({"event": "work", "n": n, "result": exc.strerror, "pid": os.getpid()})
            await asyncio.sleep(0.02)
        return "end_turn"

    async def turn_git_shell(self, text: str) -> str:
        import subprocess

        await self.conn.session_update(
            session_id=self.session_id,
            update=start_tool_call("git-1", "git diff", kind="execute", status="pending"),
        )
        answer = await self.conn.request_permission(
            session_id=self.session_id,
            tool_call=ToolCallUpdate(
                tool_call_id="git-1", title="git diff", kind="execute", raw_input={"command": "git diff"}
            ),
            options=EDIT_OPTIONS,
        )
        outcome = answer.outcome.model_dump(by_alias=True)
        ran = outcome.get("optionId") == "allow"
        if ran:
            subprocess.run(["git", "diff"], cwd=self.cwd, capture_output=True, timeout=60)
        log({"event": "git-shell", "outcome": outcome, "ran": ran})
        await self.conn.session_update(
            session_id=self.session_id,
            update=update_tool_call("git-1", status="completed" if ran else "failed"),
        )
        await self.say("Looked.")
        return "end_turn"

    async def turn_no_plan(self, text: str) -> str:
        await self.say("I have no plan mode.")
        return "end_turn"

    async def turn_launcher(self, text: str) -> str:
        import subprocess

        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        log({"event": "child", "pid": child.pid})
        await self.say("started a helper")
        return "end_turn"

    async def turn_needs_auth(self, text: str) -> str:
        await self.say("signed in")
        return "end_turn"

    async def turn_config_mode(self, text: str) -> str:
        await self.say(f"mode is {self.mode}")
        return "end_turn"

    async def turn_stream(self, text: str) -> str:
        await self.say("Starting a long answer. ")
        asking = asyncio.create_task(
            self.conn.request_permission(
                session_id=self.session_id,
                tool_call=ToolCallUpdate(tool_call_id="slow-1", title="Edit notes.txt", kind="edit"),
                options=EDIT_OPTIONS,
            )
        )
        asking.add_done_callback(
            lambda t: (
                log({"event": "stream-permission", "outcome": t.result().outcome.model_dump(by_alias=True)})
                if not t.cancelled() and t.exception() is None
                else None
            )
        )
        for i in range(2000):
            if self.cancelled.is_set():
                await asyncio.sleep(0.05)  # let the permission answer arrive
                return "cancelled"
            await self.say(f"chunk {i} ")
            await asyncio.sleep(0.02)
        return "end_turn"

    async def turn_startup_write(self, text: str) -> str:
        await self.say("planning")
        return "end_turn"

    async def turn_last_write(self, text: str) -> str:
        (self.cwd / "last.txt").write_text("written just before the turn ended\n")
        log({"event": "disk-write"})
        return "end_turn"

    async def turn_plans_write(self, text: str) -> str:
        plans = self.cwd / ".planview" / "plans"
        plans.mkdir(parents=True, exist_ok=True)
        (plans / "run.sh").write_text("#!/bin/sh\ntouch pwned\n")
        log({"event": "disk-write"})
        await self.say("stashed a script")
        return "end_turn"

    # ---------------------------------------------------------------- terminal: commands through the client

    async def turn_terminal(self, text: str) -> str:
        specs = json.loads(os.environ.get("FAKE_AGENT_COMMANDS") or "null") or DEFAULT_COMMANDS
        for index, spec in enumerate(specs):
            record: dict[str, Any] = {"event": "terminal", "index": index, **spec}
            try:
                await self._terminal_step(spec, record)
            except RequestError as exc:
                record["error"] = {"code": exc.code, "message": str(exc), "data": exc.data}
            log(record)
        await self.say("Commands done.")
        return "cancelled" if self.cancelled.is_set() else "end_turn"

    async def _terminal_step(self, spec: dict[str, Any], record: dict[str, Any]) -> None:
        sid = self.session_id
        if "raw" in spec:
            params = json.loads(json.dumps(spec.get("params")).replace('"$session"', json.dumps(sid)))
            record["result"] = await self.conn._conn.send_request(spec["raw"], params)
            return
        if "op" in spec:
            record["result"] = await self._terminal_op(spec["op"], spec["terminal"])
            return
        started = time.perf_counter()
        created = await self.conn.create_terminal(
            session_id=sid,
            command=spec["command"],
            args=spec.get("args"),
            cwd=spec.get("cwd"),
            env=[EnvVariable(**e) for e in spec.get("env", [])] or None,
            output_byte_limit=spec.get("limit"),
        )
        tid = record["terminal"] = created.terminal_id
        call = f"cmd-{record['index']}"
        await self.conn.session_update(
            session_id=sid,
            update=start_tool_call(
                call, spec["command"], kind="execute", status="in_progress", content=[tool_terminal_ref(tid)]
            ),
        )
        then = spec.get("then", "wait")
        for _ in range(400 if spec.get("lines") else 0):  # until it printed "lines" lines
            shown = await self._terminal_op("output", tid)
            if shown["output"].count("\n") >= spec["lines"]:
                break
            await asyncio.sleep(0.025)
        if then == "kill":
            await asyncio.sleep(spec.get("after", 0.3))
            await self.conn.kill_terminal(session_id=sid, terminal_id=tid)
        if then == "hold":
            log({"event": "holding", "terminal": tid})
            await self.cancelled.wait()
            await asyncio.sleep(0.2)  # planview kills the command itself; see what it left
        if then in ("wait", "kill"):
            record["exit"] = await self._terminal_op("wait", tid)
            record["seconds"] = time.perf_counter() - started  # create -> exit, as the agent saw it
        output = await self._terminal_op("output", tid)
        record.update(
            output=output["output"][-4000:],
            output_len=len(output["output"]),
            truncated=output["truncated"],
            status=output.get("exitStatus"),
        )
        if then != "leave":  # released first, as Claude's adapter does: the row still shows the output
            await self.conn.release_terminal(session_id=sid, terminal_id=tid)
        await self.conn.session_update(session_id=sid, update=update_tool_call(call, status="completed"))
        if then == "leave":
            return
        if spec.get("reuse"):
            try:
                await self._terminal_op("output", tid)
                record["reuse"] = "answered"
            except RequestError as exc:
                record["reuse"] = {"code": exc.code, "message": str(exc)}

    async def _terminal_op(self, op: str, tid: str) -> Any:
        sid = self.session_id
        if op == "output":
            answer = await self.conn.terminal_output(session_id=sid, terminal_id=tid)
        elif op == "wait":
            answer = await self.conn.wait_for_terminal_exit(session_id=sid, terminal_id=tid)
        elif op == "kill":
            answer = await self.conn.kill_terminal(session_id=sid, terminal_id=tid)
        else:
            answer = await self.conn.release_terminal(session_id=sid, terminal_id=tid)
        return answer.model_dump(by_alias=True, exclude_none=True) if answer is not None else None

    async def turn_rows(self, text: str) -> str:
        await self.say("Reading **README**.")
        readme = str(self.cwd / "README.md")
        await self.conn.session_update(
            session_id=self.session_id,
            update=start_tool_call(
                "read-1",
                "Read README.md",
                kind="read",
                status="in_progress",
                locations=[ToolCallLocation(path=readme)],
            ),
        )
        await self.conn.session_update(
            session_id=self.session_id,
            update=update_tool_call(
                "read-1", status="completed", content=[tool_content(text_block("line one\nline two"))]
            ),
        )
        await self.conn.session_update(
            session_id=self.session_id,
            update=start_tool_call("edit-9", "Edit greet.py", kind="edit", status="pending"),
        )
        await self.conn.session_update(
            session_id=self.session_id,
            update=update_tool_call(
                "edit-9",
                status="completed",
                content=[tool_diff_content(str(self.cwd / "greet.py"), "print('hi')\n", "print('hello')\n")],
            ),
        )
        await self.conn.session_update(
            session_id=self.session_id,
            update=start_tool_call("run-1", "Run tests", kind="execute", status="in_progress"),
        )
        await self.conn.session_update(
            session_id=self.session_id,
            update=update_tool_call("run-1", status="failed", content=[tool_content(text_block("1 failed"))]),
        )
        await self.conn.session_update(
            session_id=self.session_id,
            update=update_plan(
                [plan_entry("Read the docs", status="completed"), plan_entry("Fix the tests")]
            ),
        )
        await self.say("All done.")
        return "end_turn"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", required=True)
    args, _ = parser.parse_known_args()  # extra words make another --agent spec for the same fake
    print(f"fake agent {args.scenario} starting", file=sys.stderr)
    asyncio.run(run_agent(FakeAgent(args.scenario)))


if __name__ == "__main__":
    main()
