"""`planview claude install|uninstall|status|plan|hook`: planview's gate, review and ledger for Claude Code.

`hook` is what Claude Code runs (see planview.claude.hook); the rest manage it. `planview claude hook`
is dispatched before the full parser is built (`run_hook_fast`), since it runs before every tool call.
"""

from __future__ import annotations

import sys
from pathlib import Path

from planview.textsafe import say

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)

if TYPE_CHECKING:
    import argparse

__all__ = ["register", "run_hook_fast"]


def register(subparsers: argparse._SubParsersAction) -> None:
    claude = subparsers.add_parser(
        "claude",
        help="gate Claude Code with planview's plan mode, review and ledger (its hooks)",
        description="Install planview's hooks into Claude Code, or run the hook Claude Code calls.",
    )
    actions = claude.add_subparsers(dest="claude_command", metavar="ACTION")
    claude.set_defaults(handler=lambda args: _usage(claude))
    for name, text in (
        ("install", "add planview's hooks to a Claude Code settings file"),
        ("uninstall", "remove planview's hooks from a Claude Code settings file"),
    ):
        action = actions.add_parser(name, help=text, description=text + " (default: .claude/settings.json).")
        where = action.add_mutually_exclusive_group()
        where.add_argument("--user", action="store_true", help="~/.claude/settings.json (every project)")
        where.add_argument("--local", action="store_true", help=".claude/settings.local.json (not committed)")
        action.set_defaults(handler=run_install if name == "install" else run_uninstall)
    status = actions.add_parser("status", help="where the hooks are installed and planview's mode for Claude")
    status.set_defaults(handler=run_status)
    plan = actions.add_parser(
        "plan",
        help="keep Claude read-only (on) or follow Claude's own mode (off)",
        description="planview claude plan on: every Claude session in this project plans read-only "
        "until a plan is approved; off: only Claude's own plan mode is gated.",
    )
    plan.add_argument("switch", choices=("on", "off"))
    plan.add_argument("--session", metavar="ID", help="only this Claude session (its session_id)")
    plan.set_defaults(handler=run_plan)
    hook = actions.add_parser("hook", help="the hook command Claude Code runs (event JSON on stdin)")
    hook.add_argument("--timeout", type=float, default=None, help="the hook timeout set in settings (s)")
    hook.set_defaults(handler=lambda args: _hook(args.timeout))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_usage(sys.stderr)
    say("planview claude: choose an action, e.g. planview claude install", file=sys.stderr)
    return 2


def _root() -> Path:
    from planview.home import find_project_root

    return find_project_root() or Path.cwd()


def _scope(args: argparse.Namespace) -> str:
    return "user" if args.user else "local" if args.local else "project"


def run_install(args: argparse.Namespace) -> int:
    from planview.claude.settings import hook_command, install, settings_path

    path = settings_path(_scope(args), _root())  # type: ignore[arg-type]
    change = install(path, hook_command())
    say(f"planview: installed in {path}: " + ", ".join(change.added))
    say(f"  hook command: {change.command}")
    from planview.invocation import spelled_as_run

    uninstall = (
        "`planview claude uninstall" + {"user": " --user", "local": " --local"}.get(_scope(args), "") + "`"
    )
    say(
        spelled_as_run(
            f"  Claude Code asks you to review new hooks (/hooks) before they run; remove them with {uninstall}"
        )
    )
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from planview.claude.settings import settings_path, uninstall

    path = settings_path(_scope(args), _root())  # type: ignore[arg-type]
    change = uninstall(path)
    if not change.removed:
        say(f"planview: no planview hooks in {path}; nothing changed")
        return 0
    say(f"planview: removed planview's {', '.join(change.removed)} hooks from {path}")
    return 0


def run_status(args: argparse.Namespace) -> int:
    from planview.claude.settings import ClaudeSettingsError, installed_command, settings_path
    from planview.claude.state import ClaudeState
    from planview.home import planview_home
    from planview.textsafe import sanitize_for_terminal

    root = _root()
    found = False
    for scope in ("project", "local", "user"):
        path = settings_path(scope, root)
        try:
            command = installed_command(path)
        except ClaudeSettingsError as exc:  # Claude Code cannot read it either: say so, not "not installed"
            say(sanitize_for_terminal(f"{scope:8} {path}: unreadable: {exc}"))
            continue
        found = found or command is not None
        say(f"{scope:8} {path}: " + (f"installed ({command})" if command else "not installed"))
    state = ClaudeState(planview_home())
    switch = (
        "on (every session plans until approved)"
        if state.project_plan_mode()
        else "off (Claude's own plan mode is gated)"
    )
    say(f"plan mode: {switch}")
    for url in state.waiting_reviews():
        say(sanitize_for_terminal(f"a plan is waiting for review: {url} (the link works once)"))
    for session_id, session in state.sessions():
        pin = f", pinned to approval seq {session.pin.seq} of {session.pin.plan}" if session.pin else ""
        say(sanitize_for_terminal(f"  session {session_id}: {session.mode or 'follows Claude'}{pin}"))
    return 0 if found else 1


def run_plan(args: argparse.Namespace) -> int:
    from planview.claude.event import is_session_id
    from planview.claude.state import ClaudeState
    from planview.home import planview_home

    state = ClaudeState(planview_home())
    on = args.switch == "on"
    if args.session is None:
        state.set_project_plan_mode(on)
        say(f"planview: plan mode for Claude Code in this project is {args.switch}")
        return 0
    if not is_session_id(args.session):
        say("planview: --session takes Claude's session_id (letters, digits, . _ -)", file=sys.stderr)
        return 2
    session = state.session(args.session)
    state.save(args.session, session._replace(mode="plan" if on else "", pin=None if on else session.pin))
    say(f"planview: Claude session {args.session} is {'planning (read-only)' if on else 'following Claude'}")
    return 0


def _hook(timeout: float | None) -> int:
    from planview.claude.event import MAX_EVENT_BYTES
    from planview.claude.hook import DEFAULT_TIMEOUT, run

    raw = sys.stdin.buffer.read(MAX_EVENT_BYTES + 1)
    result = run(raw, timeout if timeout is not None else DEFAULT_TIMEOUT)
    try:
        if result.stdout:
            # The hook's answer: JSON for Claude Code to parse (json.dumps escapes every control
            # character), a protocol channel rather than text for a terminal; written exactly.
            sys.stdout.write(result.stdout + "\n")  # textsafe: protocol
            sys.stdout.flush()
        if result.stderr:
            say(result.stderr, file=sys.stderr)
            sys.stderr.flush()
    except (BrokenPipeError, OSError):
        pass  # Claude Code stopped listening; the exit code still carries a deny
    return result.exit_code


def run_hook_fast(argv: list[str]) -> int | None:
    """`planview claude hook [--timeout S]` without building the whole CLI; None for anything else."""
    if argv[:2] != ["claude", "hook"]:
        return None
    rest = argv[2:]
    timeout: float | None = None
    if rest[:1] == ["--timeout"] and len(rest) == 2:
        try:
            timeout = float(rest[1])
        except ValueError:
            return None
    elif rest:
        return None  # let the full parser explain
    return _hook(timeout)
