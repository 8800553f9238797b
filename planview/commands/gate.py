"""`planview gate check`: run tool calls (JSON Lines on stdin) through the read-only gate.

One decision line out per input line, in order, flushed as it is written, so the command can sit
at the end of a pipe and answer calls one at a time. Bad input never stops it: a line that is not
a well-formed call is answered with a deny whose reason starts with "malformed tool call:".
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planview.textsafe import say

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import BinaryIO


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `planview gate check`."""
    gate = subparsers.add_parser(
        "gate",
        help="exercise the read-only tool gate",
        description="Exercise the read-only tool gate that stands between the model and its tools.",
    )
    actions = gate.add_subparsers(dest="gate_command", metavar="ACTION")
    gate.set_defaults(handler=lambda args: _missing_action(gate))
    check = actions.add_parser(
        "check",
        help="decide tool calls read as JSON Lines from stdin",
        description=(
            'Read one tool call per line from stdin, e.g. {"tool": "bash", "input": {"command": "git status"}, '
            '"annotations": {"readOnlyHint": true}, "builtin": true}, and write one line per call: '
            '{"decision": "allow"|"deny", "reason": "..."} (plus "input" when the gate rewrote it).'
        ),
    )
    check.add_argument(
        "--mode",
        choices=("plan", "execute"),
        default="plan",
        help="the session mode to decide in (default: plan)",
    )
    check.add_argument(
        "--no-read-only-hint",
        action="store_true",
        help="refuse even tools that declare readOnlyHint (the config switch)",
    )
    check.add_argument(
        "--plans-dir",
        type=Path,
        default=None,
        help="the plans folder that write_plan's plan_path must stay inside",
    )
    check.add_argument(
        "--project-root",
        type=Path,
        default=None,
        help="the project that plan-mode reader paths (read, grep, find, ls) and git paths must stay "
        "inside, symlinks followed; the plans in planview's home for it may be read too "
        "(default: the git top level of the current folder, else the current folder)",
    )
    check.set_defaults(handler=run_check)


def _missing_action(parser: argparse.ArgumentParser) -> int:
    parser.print_usage(sys.stderr)
    say(
        "planview gate: choose an action, e.g. planview gate check --mode plan < calls.jsonl", file=sys.stderr
    )
    return 2


def decide_line(raw: bytes, mode: str, policy) -> dict:
    """The output object for one input line (never raises)."""
    from planview.gate.calls import MalformedCall, parse_json_line
    from planview.gate.policy import decide

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {
            "decision": "deny",
            "reason": f"malformed tool call: the line is not UTF-8 (byte {exc.start + 1})",
        }
    try:
        call = parse_json_line(text)
    except MalformedCall as exc:
        return {"decision": "deny", "reason": f"malformed tool call: {exc}"}
    decision = decide(call, mode, policy)
    out: dict = {"decision": "allow" if decision.allowed else "deny", "reason": decision.reason}
    if decision.allowed and decision.call.input != call.input:
        out["input"] = dict(decision.call.input)
    return out


def run_check(args: argparse.Namespace) -> int:
    from planview.gate.calls import GatePolicy
    from planview.home import default_home, find_project_root

    if args.project_root is not None and not Path(args.project_root).is_dir():
        from planview.errors import PlanviewError

        what = "is not a folder" if Path(args.project_root).exists() else "does not exist"
        # Every path would be judged against a root that is no project: name it instead.
        raise PlanviewError(f"--project-root {args.project_root} {what}; pass the project's folder")
    top = find_project_root(args.project_root or Path.cwd())
    root = Path(args.project_root or top or Path.cwd()).absolute()
    check = None
    if args.plans_dir is not None:  # write_plan's plan_path is judged by the store of that folder
        from planview.plan.store import PlanStore

        plans = Path(args.plans_dir).absolute()
        check = PlanStore(plans.parent, project_root=root, plans_dir=plans).check_path
    policy = GatePolicy(
        allow_read_only_hint=not args.no_read_only_hint,
        plans_dir=args.plans_dir,
        project_root=root,
        plan_path_check=check,
        home=default_home(top),  # where a session there keeps its plans; not created
    )
    # A reader that went away (BrokenPipeError) ends the command quietly in planview.cli.
    return check_stream(sys.stdin.buffer, sys.stdout.buffer, args.mode, policy)


def check_stream(source: BinaryIO, sink: BinaryIO, mode: str, policy) -> int:
    """Answer every line of `source` on `sink`; 0 even when lines are malformed."""
    from planview.textsafe import json_for_terminal

    for raw in iter(source.readline, b""):
        line = raw[:-1] if raw.endswith(b"\n") else raw
        out = decide_line(line, mode, policy)
        sink.write(json_for_terminal(out).encode("utf-8") + b"\n")
        sink.flush()
    return 0
