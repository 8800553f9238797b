"""Command-line entry point: `planview [options]` and its subcommands.

Each area registers its own subcommands from `planview/commands/<area>.py` so that
this file stays a dispatcher. Commands that need the UI import `planview.tui` lazily,
so `planview gate check` or `planview approve` never load textual.
"""

from __future__ import annotations

import importlib
import sys

from planview import __version__
from planview.errors import PlanviewError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    import argparse
    from typing import Any

# Order is the order of `planview --help`.
COMMAND_MODULES = (
    "app",
    "review",
    "diff",
    "run",
    "plans",
    "approval",
    "team",
    "gate",
    "claude",
    "doctor",
    "sandbox",
)
# The module that registers each subcommand: `planview status` builds only its own parsers (each
# argparse parser costs about a millisecond of start-up, mostly gettext look-ups). A test checks
# this against what the modules register.
COMMAND_HOMES = {
    "demo": "app",
    "review": "review",
    "diff": "diff",
    "run": "run",
    "plans": "plans",
    "steps": "plans",
    "approve": "approval",
    "status": "approval",
    "audit": "approval",
    "verify": "team",
    "sync": "team",
    "export": "team",
    "team": "team",
    "gate": "gate",
    "claude": "claude",
    "doctor": "doctor",
    "sandbox": "sandbox",
}


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The CLI; when `argv` starts with a subcommand, only the module that registers it is loaded."""
    import argparse  # not at module level: `planview claude hook` answers without it

    class Formatter(argparse.HelpFormatter):
        # Given the width, argparse's formatter does not import shutil (with zlib, bz2 and lzma):
        # argparse builds one for every add_argument, to check its metavar.
        def __init__(self, prog: str) -> None:
            super().__init__(prog, width=terminal_columns() - 2)

        # argparse cuts a word longer than the column (`.claude/settings.local.j` / `son`) and
        # breaks at hyphens (`read-` / `only`) in a narrow terminal: a path or an option in the
        # help must stay whole to be copied, so a long word overflows its line instead.
        def _split_lines(self, text: str, width: int) -> list[str]:
            import textwrap

            text = " ".join(text.split())
            return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)

        # `%(agents)s` in a help text: the built-in agents' names from the one table of agent profiles,
        # imported only when help is printed (the table costs dataclasses and typing at start-up).
        def _expand_help(self, action: argparse.Action) -> str:
            if "%(agents)s" in (action.help or "") and not hasattr(action, "agents"):
                from planview.agents.profiles import builtin_names

                action.agents = builtin_names()  # type: ignore[attr-defined]
            return super()._expand_help(action)

        def _fill_text(self, text: str, width: int, indent: str) -> str:
            import textwrap

            text = " ".join(text.split())
            return textwrap.fill(
                text,
                width,
                initial_indent=indent,
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            )

    class Parser(argparse.ArgumentParser):  # add_subparsers makes every subcommand's parser one too
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("formatter_class", Formatter)
            super().__init__(*args, **kwargs)

    parser = Parser(
        prog="planview",
        description="A plan-first terminal cockpit for coding agents.",
    )
    parser.add_argument("--version", action="version", version=f"planview {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    home = COMMAND_HOMES.get(argv[0]) if argv else None
    # The app module also registers the root options, which every subcommand's parsing consults.
    for name in COMMAND_MODULES if home is None else dict.fromkeys(("app", home)):
        module = importlib.import_module(f"planview.commands.{name}")
        register_root = getattr(module, "register_root", None)
        if register_root is not None:
            register_root(parser)
        module.register(subparsers)
    _root_options_reach_subcommands(parser, subparsers)
    return parser


def terminal_columns() -> int:
    """The width `shutil.get_terminal_size` gives (COLUMNS, else the terminal's, else 80), without
    importing shutil."""
    import os

    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            stream = sys.__stdout__
            columns = os.get_terminal_size(stream.fileno()).columns if stream is not None else 0
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns if columns > 0 else 80


def _root_options_reach_subcommands(
    parser: argparse.ArgumentParser, subparsers: argparse._SubParsersAction
) -> None:
    """`planview --provider openai run "hi"` means `run --provider openai`.

    argparse lets a subcommand's default overwrite the value given before the subcommand; a
    subcommand option that shares a root option's name gets no default of its own instead, so
    the root's value (or the root's default) stands unless the option is given after the command.
    """
    import argparse

    root = {a.dest for a in parser._actions if a.option_strings and a.dest not in ("help", "version")}
    for sub in subparsers.choices.values():
        for action in sub._actions:
            if action.dest in root and action.option_strings:
                action.default = argparse.SUPPRESS


def _parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parse; an unknown option is reported with the usage of the command it was given to."""
    args, extras = parser.parse_known_args(argv)
    command = getattr(args, "command", None)
    actions = [a for a in parser._actions if a.dest == "command" and getattr(a, "choices", None)]
    choices = actions[0].choices if actions and command else None
    sub = choices.get(command) if isinstance(choices, dict) else None
    if extras:
        (sub or parser).error(f"unrecognized arguments: {' '.join(extras)}")
    if sub is not None:
        # Root options given before a command that has no such option would be ignored silently.
        sub_dests = {a.dest for a in sub._actions}
        for action in parser._actions:
            if not action.option_strings or action.dest in sub_dests or action.dest in ("help", "version"):
                continue
            if getattr(args, action.dest, action.default) != action.default:
                parser.error(
                    f"{action.option_strings[0]} is an option of the session app (planview "
                    f"{action.option_strings[0]} …); `planview {command}` does not take it"
                )
    return args


def main(argv: list[str] | None = None) -> int:
    """Run one command; every command ends with a status and a line of text, never a traceback."""
    _stdout_as_a_closed_pipe()
    try:
        try:
            return _dispatch(argv)
        finally:  # also after argparse's SystemExit (--help): a closed pipe shows here, not at exit
            sys.stdout.flush()
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:
        return 130


# A reader that closed the pipe early (`planview audit | head`) is not an error worth a word: end
# quietly with the status a shell reports for a process killed by SIGPIPE (128 + 13).
EXIT_STDOUT_CLOSED = 141


def _stdout_as_a_closed_pipe() -> None:
    """`planview plans >&-`: with fd 1 closed Python sets sys.stdout to None; put a pipe with no
    reader there instead, so that case ends the way `| head -0` does (quietly, EXIT_STDOUT_CLOSED)."""
    if sys.stdout is not None:
        return
    import os

    read_end, write_end = os.pipe()  # read_end may take fd 1 itself: close it before the dup2
    os.close(read_end)
    if write_end != 1:
        os.dup2(write_end, 1)
        os.close(write_end)
    sys.stdout = open(1, "w", closefd=False)


def _stdout_closed() -> int:
    import os

    try:  # nothing more can reach the reader; keep the exit-time flush from raising again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return EXIT_STDOUT_CLOSED


def _dispatch(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["claude"]:
        from planview.commands.claude import run_hook_fast

        # Claude Code runs this hook before every tool call: answer it without building the whole CLI.
        fast = run_hook_fast(argv)
        if fast is not None:
            return fast
    parser = build_parser(argv)
    args = _parse(parser, argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        # No subcommand: the session app (registered by planview.commands.app).
        handler = getattr(args, "root_handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except PlanviewError as exc:
        # Typed errors carry a message that says what to do; never a traceback. The commands it
        # names are spelled the way this planview runs (`.venv/bin/planview` is often not on PATH).
        from planview.invocation import spelled_as_run
        from planview.textsafe import say

        say(f"planview: {spelled_as_run(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise
    except OSError as exc:
        # A file operation no typed error anticipated (a full disk, a read-only home): say what
        # failed and what to do, in one line.
        from planview.fileguard import explain
        from planview.textsafe import say

        where = exc.filename if exc.filename is not None else "a file"
        say(f"planview: {explain(exc, f'use {where}')}", file=sys.stderr)
        return 2
