"""`planview sandbox exec [--profile command|agent] [--root DIR] [--write DIR]... [--listen] -- CMD...`:
run a command in plan mode's sandbox.

The same entry point the plan-mode surfaces start (planview/sandbox/exec.py); they run it directly
as `python -I -S .../exec.py` to skip the CLI's start-up.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `planview sandbox exec`."""
    sandbox = subparsers.add_parser(
        "sandbox",
        help="run a command in plan mode's sandbox",
        description="Run commands in the kernel sandbox plan mode uses (Landlock, seccomp, private network).",
    )
    actions = sandbox.add_subparsers(dest="sandbox_command", metavar="ACTION")
    sandbox.set_defaults(handler=lambda args: _missing_action(sandbox))
    run = actions.add_parser(
        "exec",
        help="run one command confined to reading the project, writing only a scratch folder",
        description=(
            "Run CMD with the command profile: it reads the project and the system's program folders, "
            "writes only a scratch folder (its TMPDIR, removed afterwards) and /dev/null, has no network "
            "and cannot signal processes outside. Exits 126 when the sandbox cannot be set up (nothing runs)."
        ),
    )
    run.add_argument(
        "--profile",
        default="command",
        choices=("command", "agent"),
        help="the profile (default: command; agent: an ACP agent's own process while it plans - it reads "
        "everything and keeps its network, but writes only the --write folders and its temp folder)",
    )
    run.add_argument(
        "--write",
        action="append",
        default=[],
        metavar="DIR",
        help="agent profile: a folder it may write (the plans folder, its own state folder); repeatable",
    )
    run.add_argument("--listen", action="store_true", help="agent profile: allow it to bind TCP ports")
    run.add_argument("--root", default=None, help="the project folder (default: the current folder)")
    run.add_argument(
        "--check", action="store_true", help="set the sandbox up, print what was applied, run nothing"
    )
    run.add_argument("argv", nargs=argparse.REMAINDER, metavar="-- CMD", help="the command and its arguments")
    run.set_defaults(handler=_exec)


def _missing_action(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _exec(args: argparse.Namespace) -> int:
    from planview.sandbox.exec import main

    argv = list(args.argv)
    if argv[:1] == ["--"]:
        argv = argv[1:]
    words = ["--profile", args.profile]
    if args.root:
        words += ["--root", args.root]
    for folder in args.write:
        words += ["--write", folder]
    if args.listen:
        words.append("--listen")
    if args.check:
        words.append("--check")
    return main([*words, "--", *argv] if argv else words)
