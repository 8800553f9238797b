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
    from planview.claude.state import ClaudeState
    from planview.home import planview_home
    from planview.invocation import spelled_as_run

    scope = _scope(args)
    root = _root()
    path = settings_path(scope, root)  # type: ignore[arg-type]
    change = install(path, hook_command())
    if change.after is not None:
        ClaudeState(planview_home()).record_install(path, change.before, change.after)
    say(f"planview: installed in {_shown(path, root)}: " + ", ".join(change.added))
    say(f"  hook command: {change.command}")
    say("  It names this planview by absolute path: Claude Code runs hooks with its own PATH and folder.")
    if scope == "project":
        say(
            spelled_as_run(
                f"  {_shown(path, root)} is shared through git, and that path exists only on this machine: "
                "`planview claude uninstall`, then `planview claude install --local`, keeps it in "
                ".claude/settings.local.json (not committed) instead."
            )
        )
    say(
        spelled_as_run(
            "  Next: start Claude Code here (`claude`) and press Shift+Tab until it shows plan mode (or run "
            "`planview claude plan on` so every session plans). While it plans it reads freely and writes "
            "nothing; its ExitPlanMode opens planview's review (a tmux window when Claude runs in tmux, else "
            "your browser), and approving lets it edit, pinned to the plan you approved."
        )
    )
    uninstall = "`planview claude uninstall" + {"user": " --user", "local": " --local"}.get(scope, "") + "`"
    say(spelled_as_run(f"  Claude Code shows new hooks under /hooks; remove them with {uninstall}."))
    return 0


def _shown(path: Path, root: Path) -> str:
    """A settings path relative to the project when it is inside it (as the user would type it)."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def run_uninstall(args: argparse.Namespace) -> int:
    from planview.claude.settings import settings_path, uninstall
    from planview.claude.state import ClaudeState
    from planview.home import planview_home

    root = _root()
    state = ClaudeState(planview_home())
    path = settings_path(_scope(args), root)  # type: ignore[arg-type]
    change = uninstall(path, state.recorded_install(path))
    if not change.removed:
        say(f"planview: no planview hooks in {path}; nothing changed")
        return 0
    state.drop_install(path)
    how = "removed the file planview had created" if change.deleted else "the rest of the file is as it was"
    say(f"planview: removed planview's {', '.join(change.removed)} hooks from {path} ({how})")
    if not _installed_anywhere(root):
        state.forget()  # no hooks left anywhere: plan mode on, sessions and pins go too
        say("planview: cleared planview's Claude Code state for this project (plan mode switch, sessions)")
    return 0


def _installed_anywhere(root: Path) -> bool:
    from planview.claude.settings import ClaudeSettingsError, installed_command, settings_path

    for scope in ("project", "local", "user"):
        try:
            if installed_command(settings_path(scope, root)):
                return True
        except ClaudeSettingsError:
            return True  # unreadable: it may hold them, so keep the state
    return False


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
