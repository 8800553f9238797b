"""bash: runs a command in the project root with a timeout and an output cap.

In plan mode the gate lets only read-only commands through, and the tool runs them with git's
config-named programs switched off (git_env) and, where the kernel offers it, inside the sandbox
(planview.sandbox: reads only the project, writes nothing, no network); with the sandbox the gate
also lets rg, grep, find, ls, cat, sed -n and friends through, without it only read-only git.
Otherwise it runs whatever reaches it. The command runs in its own process group so a timeout or
a cancelled turn kills everything it started.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Mapping
from typing import Any

from planview.gate import git_env
from planview.session.tools.base import ToolContext, ToolDef, ToolError, ToolResult, schema

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
HEAD_CAP = 20_000  # characters kept from the start of the output
TAIL_CAP = 10_000  # and from the end (errors usually come last)


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            proc.kill()
        except ProcessLookupError:
            pass


async def _collect(stream: asyncio.StreamReader) -> tuple[bytes, bytes, int]:
    head = bytearray()
    tail = bytearray()
    total = 0
    while chunk := await stream.read(65536):
        total += len(chunk)
        room = HEAD_CAP - len(head)
        if room > 0:
            head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            tail += chunk
            if len(tail) > TAIL_CAP:
                del tail[: len(tail) - TAIL_CAP]
    return bytes(head), bytes(tail), total


async def bash(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    command = args.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ToolError("`command` must be a non-empty shell command")
    timeout = args.get("timeout", DEFAULT_TIMEOUT)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise ToolError("`timeout` must be a positive number of seconds")
    timeout = min(float(timeout), MAX_TIMEOUT)
    # Marked as a session's tool process (an approval attempted from it is refused); in plan mode
    # also git's read-only settings.
    env = dict(ctx.host.tool_env())
    argv = ["bash", "-c", command]
    if ctx.host.mode == "plan":
        env = await git_env.plan_env(ctx.project_root, env)
        argv = ["bash", "-c", git_env.plan_script(command)]
        if ctx.host.sandboxed:
            from planview.sandbox.launch import wrap

            argv = wrap(argv, ctx.project_root)
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=ctx.project_root,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,  # its own process group: killed as a whole
    )
    assert proc.stdout is not None
    timed_out = False
    try:
        head, tail, total = await asyncio.wait_for(_collect(proc.stdout), timeout)
        await proc.wait()
    except TimeoutError:
        timed_out = True
        _kill(proc)
        await proc.wait()
        head, tail, total = b"", b"", 0
    except asyncio.CancelledError:
        _kill(proc)
        raise
    finally:
        _kill(proc)
    if timed_out:
        return ToolResult(
            f"timed out after {timeout:g}s and was stopped; pass a larger `timeout` (max {MAX_TIMEOUT:g}) "
            "or run a narrower command",
            error=True,
        )
    text = head.decode("utf-8", errors="replace")
    if tail:
        skipped = total - len(head) - len(tail)
        if skipped > 0:
            text += f"\n… {skipped:,} bytes of output skipped …\n"
        text += tail.decode("utf-8", errors="replace")
    text = text.rstrip("\n")
    code = proc.returncode
    if code:
        return ToolResult(
            f"{text}\n(exit code {code})" if text else f"(exit code {code}, no output)", error=True
        )
    return ToolResult(text or "(no output)")


TOOLS = (
    ToolDef(
        "bash",
        "Run a shell command in the project root (the working directory is already the root; no cd needed). "
        "Output is capped and the command is stopped after `timeout` seconds. While planning, only read-only "
        "commands are allowed: read-only git (git status, git diff, git log, git show ...), and where the "
        "kernel sandbox is in force also rg, grep -rn, find, ls, cat, head, tail, wc, sort, uniq, cut, "
        "sed -n, tr, file, stat, tree, diff, with pipes, 2>/dev/null, && / || / ;.",
        schema(
            {
                "command": {"type": "string", "description": "the command line, run with bash -c"},
                "timeout": {
                    "type": "number",
                    "description": f"seconds before it is stopped (default {DEFAULT_TIMEOUT:g})",
                },
            },
            ("command",),
        ),
        bash,
        lambda a: f"bash {a.get('command', '')}",
        mutating=True,
    ),
)
