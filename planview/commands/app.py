"""`planview` (the session app) and `planview demo` (the offline demo).

Both import textual and the session runtime lazily inside the handler, so other
subcommands never load them.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from planview.textsafe import say

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: start-up stays short
if TYPE_CHECKING:
    from typing import Any


def register_root(parser: argparse.ArgumentParser) -> None:
    """Options of the bare `planview` command (the session app)."""
    group = parser.add_argument_group("session app (planview with no command)")
    group.add_argument(
        "--plan", action="store_true", help="start in plan mode (a resumed session keeps its saved mode)"
    )
    group.add_argument(
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="resume a saved session (the newest one when no ID is given)",
    )
    group.add_argument("--provider", help="model provider: openai, anthropic or scripted (overrides config)")
    group.add_argument("--model", help="model name (overrides config)")
    group.add_argument(
        "--script",
        type=Path,
        metavar="FILE",
        help="replay a JSON Lines script with the scripted provider (offline)",
    )
    group.add_argument(
        "--agent",
        metavar="NAME|COMMAND",
        help="drive an ACP agent (%(agents)s, or a command line) behind planview's plan mode",
    )
    parser.set_defaults(root_handler=run_app)


def register(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="try planview offline: a scripted agent plans and edits a sample project",
        description="Copy a small sample project to a temporary folder and run the session app there "
        "with a scripted agent: it explores read-only, has a write and a commit refused, writes a plan "
        "for your review, and after approval edits the files step by step. Offline, no API key.",
    )
    demo.set_defaults(handler=run_demo)


HEADLESS = 'for a session without a terminal use `planview run "task"`'


def run_app(args: argparse.Namespace) -> int:
    from planview.commands.review import require_terminal

    require_terminal("planview", HEADLESS)
    from planview.commands import collector

    collector.pause()
    try:
        from planview.commands.session_builder import prepare
        from planview.config import config_paths

        spec = prepare(
            provider=args.provider,
            model=args.model,
            script=args.script,
            resume=args.resume,
            plan_mode=args.plan,
            agent=args.agent,
        )
        theme, keymap = spec.config.theme, dict(spec.config.keys)
        from planview.tui.app import PlanviewApp

        if not spec.has_provider:
            user, project = config_paths(spec.store.home)
            picked = PlanviewApp(
                None,
                project_root=spec.project_root,
                first_run=(user, project),
                theme=theme,
                on_first_frame=collector.resume,
            ).run()
            if isinstance(picked, list):
                _start_picked(picked)
            return 0
        provider = None if spec.agent else spec.make_provider()  # built once: a script keeps its place
        app = PlanviewApp(
            lambda ui, on_event: spec.build(ui=ui, on_event=on_event, provider=provider),
            project_root=spec.project_root,
            theme=theme,
            keymap=keymap,
            on_first_frame=collector.resume,
        )
        app.run()
    finally:
        collector.resume()
    if app.session is not None:
        from planview.invocation import planview_command

        say(leaving_words(app.session, spec.project_root, planview_command(), args.agent))
    return 0


def _start_picked(argv: list[str]) -> None:
    """The first page's choice (the demo, an agent on PATH): this planview again, with those arguments."""
    import shlex

    from planview.invocation import planview_command

    words = [*shlex.split(planview_command()), *argv]
    say("planview: starting " + shlex.join(words))
    os.execvp(words[0], words)


def leaving_words(session: Any, root: Path, planview: str, agent: str | None = None) -> str:
    """What the person reads when the session app closes: the session, the state it was left in, and
    the exact command that takes it up again."""
    import shlex

    plan = session.plan_path
    shown = _relative(plan, root) if plan is not None else None
    if session.mode == "plan":
        state = "plan mode" + (f", plan {shown} (not approved)" if shown and not session.approved else "")
    elif session.approval is not None:
        state = f"execute mode, pinned to approval seq {session.approval.seq} of {shown}"
    else:
        state = "execute mode (no plan pinned)"
    if not session.saved:
        return f"planview: session {session.id} ended before anything was said; there is nothing to resume"
    again = f"{planview} --resume {session.id}" + (f" --agent {shlex.quote(agent)}" if agent else "")
    return f"planview: session {session.id} left in {state}\n  resume it: {again}"


def _relative(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


def run_demo(args: argparse.Namespace) -> int:
    from planview.commands.review import require_terminal

    require_terminal("planview demo", HEADLESS)  # before the sample project is copied
    from planview.demo import guide
    from planview.demo.agent import DEMO_TASK, demo_provider
    from planview.demo.sample_project import prepare_demo_project
    from planview.invocation import planview_command

    command = planview_command()  # before the chdir: a relative argv[0] is relative to here
    root = prepare_demo_project()
    os.chdir(root)  # the demo behaves as if started inside the sample project
    provider = demo_provider()

    from planview.commands import collector
    from planview.commands.session_builder import prepare

    collector.pause()
    try:
        from planview.tui.app import PlanviewApp

        spec = prepare(cwd=root)
        app = PlanviewApp(
            lambda ui, on_event: spec.build(ui=ui, on_event=on_event, provider=provider),
            project_root=spec.project_root,
            welcome=guide.welcome(root),
            prompt_text=DEMO_TASK,
            on_first_frame=collector.resume,
        )
        app.run()
    finally:
        collector.resume()
    say(guide.closing(root, command))
    return 0
