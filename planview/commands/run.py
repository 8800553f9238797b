"""`planview run`: an agent session without a UI.

Prints the assistant's text and one row per tool call (or JSON Lines events with --json).
No UI is attached, so a plan cannot be approved here: when the model submits one the run
stops with the plan path and the exact `planview approve PATH` command; after approving,
`planview run --resume` continues in execute mode.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from planview.errors import PlanviewError
from planview.textsafe import say

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: start-up stays short
if TYPE_CHECKING:
    from typing import Any, TextIO

    from planview.session.restore import ResumeNotice


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run an agent session headless (text or JSONL events)",
        description="Run an agent session without a UI. Plans are approved with `planview approve PATH`, "
        "then `planview run --resume` continues in execute mode.",
    )
    parser.add_argument("task", nargs="?", help="what the agent should do")
    parser.add_argument(
        "--plan", action="store_true", help="start in plan mode (read-only until a plan is approved)"
    )
    parser.add_argument("--provider", choices=("openai", "anthropic", "scripted"), help="model provider")
    parser.add_argument("--model", help="model name for the provider")
    parser.add_argument(
        "--script", metavar="FILE", help="replay a JSON Lines script (see docs/SCRIPTED_PROVIDER.md)"
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="continue a saved session (newest without ID)",
    )
    parser.add_argument(
        "--agent",
        metavar="NAME|COMMAND",
        help="drive an ACP agent (%(agents)s, or a command line) behind planview's plan mode",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON event per line")
    parser.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    import asyncio  # not for the commands that only parse arguments

    from planview.commands.session_builder import prepare

    task, resume = _task_and_resume(args)
    spec = prepare(
        provider=args.provider,
        model=args.model,
        script=args.script,
        resume=resume,
        plan_mode=args.plan,
        agent=args.agent,
    )
    printer: EventPrinter = JsonPrinter(sys.stdout) if args.json else TextPrinter(sys.stdout)
    session = spec.build(on_event=printer)
    if not getattr(session, "sandboxed", True):  # said once, on stderr (stdout may be --json)
        from planview.sandbox import status as sandbox_status

        say(
            f"planview: plan mode here runs on planview's lists alone ({sandbox_status.current().reason}); "
            "plan-mode bash runs read-only git only (`planview doctor` says what enforces plan mode)",
            file=sys.stderr,
        )
    notice = session.resume_notice
    message = str(task) if spec.resume is None else _resumed_message(session, task)
    printer.on_closed = session.cancel
    printer.guard(printer.start, session)
    if notice is not None:
        printer.guard(printer.resumed, notice)
    if not printer.closed:
        try:
            asyncio.run(_drive(session, message))
        except asyncio.CancelledError:
            if not printer.closed:
                raise
            # cancelled after the turn's last await: it had finished anyway
    if printer.closed:
        return _output_closed()
    ended = printer.ended
    if ended is not None and ended.reason == "error":
        raise PlanviewError(ended.message)
    if ended is not None and ended.reason == "review" and session.plan_path is not None:
        printer.guard(printer.awaiting_approval, session.relative(session.plan_path), session.id)
        if printer.closed:
            return _output_closed()
    return 0


def _task_and_resume(args: argparse.Namespace) -> tuple[str | None, str | None]:
    task, resume = args.task, args.resume
    if resume and task is None and any(c.isspace() for c in resume):
        # `planview run --resume "do more"` (the hint below prints that form): text is the task.
        # One word is a session ID, and one that names no session is an error, as in the app.
        task, resume = resume, ""
    if not task and resume is None:
        raise PlanviewError(
            'give the task: planview run "what to do" (or --resume to continue a saved session)'
        )
    if args.script and args.provider not in (None, "scripted"):
        raise PlanviewError(
            f"--script replays a file and cannot be combined with --provider {args.provider}; drop one"
        )
    return task, resume


def _resumed_message(session: Any, task: str | None) -> str:
    """What a resumed session is told first: what the resume found, then the task (or "Continue.")."""
    notice = session.resume_notice
    if session.file_notice:  # the session file's torn last line was left out
        say(f"planview: {session.file_notice}", file=sys.stderr)
    if not task and notice is None and session.mode == "plan" and session.plan_path is not None:
        if not session.approvals.is_current(session.plan_path):
            rel = session.relative(session.plan_path)
            raise PlanviewError(
                f"{rel} is not approved yet: run `planview approve {rel}` first, "
                f'or pass a task to keep planning (`planview run --resume {session.id} "refine the steps"`)'
            )
    told = notice.for_model if notice is not None else None
    return "\n\n".join(p for p in (told, task) if p) or "Continue."


async def _drive(session: Any, message: str) -> None:
    """Start the MCP servers, run the turn, stop the servers (also when the turn is interrupted)."""
    try:
        await session.start_servers()
        await session.send(message)
    finally:
        await session.close()


def _output_closed() -> int:
    """The reader went away (`planview run ... | head`): exit quietly, as other CLI tools do.

    stdout is pointed at /dev/null so the interpreter's final flush does not raise again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 1


class EventPrinter:
    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.ended: Any = None
        self.closed = False  # the output pipe was closed by its reader
        self.on_closed: Callable[[], None] | None = None

    def start(self, session: Any) -> None: ...

    def __call__(self, event: Any) -> None:
        if type(event).__name__ == "TurnEnded":
            self.ended = event
        self.guard(self.show, event)

    def guard(self, write: Callable[..., None], *args: Any) -> None:
        """Write, and when nobody reads any more stop the turn: an agent nobody watches must not go on."""
        if self.closed:
            return
        try:
            write(*args)
        except BrokenPipeError:
            self.closed = True
            if self.on_closed is not None:
                self.on_closed()  # inside the turn: it ends at its next await

    def show(self, event: Any) -> None: ...

    def resumed(self, notice: ResumeNotice) -> None: ...

    def awaiting_approval(self, plan: str, session_id: str) -> None: ...


def _jsonable(value: Any) -> Any:
    from dataclasses import fields, is_dataclass  # dataclasses costs 7 ms of start-up

    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):  # a named tuple record (ApprovalRecord, …)
        return {name: _jsonable(item) for name, item in value._asdict().items()}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


def event_type(event: Any) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()


def _record(event: Any) -> dict[str, Any]:
    """One event as JSON; a subagent's child event nests with its own type."""
    if type(event).__name__ == "SubagentEvent":
        return {"type": "subagent_event", "call_id": event.call_id, "event": _record(event.event)}
    return {"type": event_type(event), **_jsonable(event)}


class JsonPrinter(EventPrinter):
    def _line(self, record: dict[str, Any]) -> None:
        from planview.textsafe import json_for_terminal

        self.out.write(json_for_terminal(record, default=str) + "\n")
        self.out.flush()

    def start(self, session: Any) -> None:
        self._line(
            {
                "type": "session",
                "id": session.id,
                "provider": session.provider_label,
                "mode": session.mode,
                "plan_path": str(session.plan_path) if session.plan_path else None,
                "approved": session.approval is not None,
            }
        )

    def show(self, event: Any) -> None:
        self._line(_record(event))

    def resumed(self, notice: ResumeNotice) -> None:
        self._line({"type": "resumed", "kind": notice.kind, "notice": notice.shown})

    def awaiting_approval(self, plan: str, session_id: str) -> None:
        from planview.invocation import planview_command

        self._line(
            {
                "type": "awaiting_approval",
                "plan": plan,
                "approve": f"{planview_command()} approve {plan}",
                "resume": f"{planview_command()} run --resume {session_id}",
            }
        )


class TextPrinter(EventPrinter):
    """Readable rows; model- and tool-authored text is sanitised so it cannot drive the terminal."""

    def __init__(self, out: TextIO) -> None:
        super().__init__(out)
        self.at_line_start = True
        from planview.textsafe import sanitize_for_terminal

        self.clean = sanitize_for_terminal

    def _write(self, text: str) -> None:
        if text:
            self.out.write(text)
            self.at_line_start = text.endswith("\n")
            self.out.flush()

    def _row(self, text: str) -> None:
        if not self.at_line_start:
            self._write("\n")
        self._write(text + "\n")

    def start(self, session: Any) -> None:
        chip = f"{session.mode} mode" + (
            f" · {session.relative(session.plan_path)}" if session.plan_path else ""
        )
        self._row(f"planview run · {session.provider_label} · {chip} · session {session.id}")

    def resumed(self, notice: ResumeNotice) -> None:
        mark = "!" if notice.kind != "approved" else "──"
        self._row(f"{mark} {self.clean(notice.shown)}")

    def show(self, event: Any, indent: str = "") -> None:
        kind = type(event).__name__
        if kind == "SubagentEvent":  # the child's tool rows, indented under the subagent call
            inner = type(event.event).__name__
            if inner in ("ToolStarted", "ToolFinished"):
                self.show(event.event, indent + "  │ ")
            return
        if indent:
            self._child(kind, event, indent)
            return
        shown = _SHOWN.get(kind)
        if shown is not None:
            getattr(self, shown)(event)

    def _child(self, kind: str, event: Any, indent: str) -> None:
        """A subagent's tool rows; its mode changes and the rest belong to the child."""
        if kind == "ToolStarted":
            self._row(f"{indent}▸ {self.clean(event.headline)}")
        elif kind == "ToolFinished":
            mark = "✗" if event.refused else ("!" if event.error else "✓")
            self._row(f"{indent}  {mark} {_summary(self.clean(event.result))}")

    def _mcp_notice(self, event: Any) -> None:
        self._row(f"! {self.clean(event.message)}")

    def _text(self, event: Any) -> None:
        self._write(self.clean(event.text))

    def _tool_started(self, event: Any) -> None:
        self._row(f"▸ {self.clean(event.headline)}")

    def _tool_finished(self, event: Any) -> None:
        if event.refused:
            self._row("  ✗ " + self.clean(event.result).strip().replace("\n", "\n    "))
        elif event.error:
            self._row(f"  ! {_summary(self.clean(event.result))}")
        else:
            self._row(f"  ✓ {_summary(self.clean(event.result))}")

    def _mode_changed(self, event: Any) -> None:
        state = "approved" if event.approved else ("stale" if event.stale else "")
        plan = f" · {event.plan_path.name}" if event.plan_path else ""
        note = f" ({self.clean(event.note)})" if event.note else ""
        self._row(f"── {event.mode} mode{plan}{' · ' + state if state else ''}{note}")

    def _todos(self, event: Any) -> None:
        done = sum(1 for t in event.todos if t.status == "completed")
        more = f", {len(event.deferred)} deferred" if event.deferred else ""
        self._row(f"  todos: {done}/{len(event.todos)} done{more}")

    def _turn_ended(self, event: Any) -> None:
        if event.reason == "cancelled":
            self._row("── cancelled")
        elif not self.at_line_start:
            self._write("\n")

    def awaiting_approval(self, plan: str, session_id: str) -> None:
        self._row("")
        self._row(f"Plan ready for review: {plan}")
        from planview.invocation import planview_command

        planview = planview_command()  # the words that run this planview, as it was started
        self._row(f"Approve it with:   {planview} approve {plan}")
        self._row(f"Then continue:     {planview} run --resume {session_id}")


# Which TextPrinter method prints each top-level event (the rest print nothing).
_SHOWN = {
    "McpNotice": "_mcp_notice",
    "TextDelta": "_text",
    "ToolStarted": "_tool_started",
    "ToolFinished": "_tool_finished",
    "ModeChanged": "_mode_changed",
    "TodosChanged": "_todos",
    "TurnEnded": "_turn_ended",
}


def _summary(text: str, width: int = 160) -> str:
    lines = text.strip().splitlines() or [""]
    first = lines[0] if len(lines[0]) <= width else lines[0][: width - 1] + "…"
    more = len(lines) - 1
    return first + (f"  (+{more} line{'s' if more > 1 else ''})" if more else "")


__all__ = ["JsonPrinter", "TextPrinter", "register", "run_command"]
