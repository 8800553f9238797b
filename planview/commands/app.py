"""`planview` (the session app) and `planview demo` (the offline demo).

Both import textual and the session runtime lazily inside the handler, so other
subcommands never load them.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: start-up stays short
if TYPE_CHECKING:
    from collections.abc import Sequence
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
        help="drive an ACP agent (gemini, claude, codex, goose, opencode, or a command line) "
        "behind planview's plan mode",
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


def _project_root() -> Path:
    from planview.plan.store import find_project_root

    return find_project_root(Path.cwd()) or Path.cwd()


def run_app(args: argparse.Namespace) -> int:
    from planview.config import config_paths, load_config
    from planview.plan.store import planview_home

    root = _project_root()
    home = planview_home(root)
    config = load_config(home)  # ConfigError names the file, line and problem
    name, model, script = args.provider, args.model, args.script
    saved = None
    if args.resume is not None:
        from planview.session.persistence import saved_provider
        from planview.session.providers import saved_provider_args

        saved = saved_provider(home, args.resume or None)  # no such session: one clear line
        name, model, script = saved_provider_args(saved, name, model, script)
    from planview.agents.profiles import agent_spec

    agent = agent_spec(
        args.agent, saved, config, explicit=args.provider is not None or args.script is not None
    )
    if agent is not None:
        return _run_agent_app(agent, root, args, config)
    args.script = script
    config = config.with_provider(name=name, model=model)
    if args.script is not None:
        config = config.with_provider(name="scripted")
    theme, keymap = config.theme, dict(config.keys)

    from planview.tui.app import PlanviewApp

    if config.provider.name is None:
        user, project = config_paths(home)
        PlanviewApp(None, project_root=root, first_run=(user, project), theme=theme).run()
        return 0

    from planview.session.providers import make_provider

    provider = make_provider(
        config.provider.name, model=config.provider.model, script=args.script, config=config
    )
    factory = _session_factory(
        root,
        provider,
        plan_mode=args.plan,
        resume=args.resume,
        allow_read_only_hint=config.allow_read_only_hint,
        mcp_servers=config.mcp_servers,
    )
    app = PlanviewApp(factory, project_root=root, theme=theme, keymap=keymap)
    app.run()
    return 0


def _run_agent_app(agent: str, root: Path, args: argparse.Namespace, config: Any) -> int:
    """`planview --agent NAME|COMMAND`: the same app around an ACP agent's session."""
    from planview.agents.session import build
    from planview.tui.app import PlanviewApp

    def factory(ui: Any, on_event: Any) -> Any:
        return build(
            agent,
            project_root=root,
            ui=ui,
            on_event=on_event,
            plan_mode=args.plan,
            resume=args.resume,
            allow_read_only_hint=config.allow_read_only_hint,
        )

    PlanviewApp(factory, project_root=root, theme=config.theme, keymap=dict(config.keys)).run()
    return 0


def _session_factory(
    root: Path,
    provider: Any,
    *,
    plan_mode: bool,
    resume: str | None,
    allow_read_only_hint: bool = True,
    mcp_servers: Sequence[Any] = (),
):
    from planview.session.session import Session

    def factory(ui: Any, on_event: Any) -> Any:
        kwargs: dict[str, Any] = {
            "project_root": root,
            "provider": provider,
            "ui": ui,
            "on_event": on_event,
            "plan_mode": plan_mode,
            "allow_read_only_hint": allow_read_only_hint,
            "mcp_servers": mcp_servers,
        }
        if resume is not None:
            return Session.resume(resume or None, **kwargs)
        return Session(**kwargs)

    return factory


def run_demo(args: argparse.Namespace) -> int:
    from planview.demo import DEMO_TASK, demo_provider, guide, prepare_demo_project
    from planview.invocation import planview_command

    command = planview_command()  # before the chdir: a relative argv[0] is relative to here
    root = prepare_demo_project()
    os.chdir(root)  # the demo behaves as if started inside the sample project
    provider = demo_provider()

    from planview.tui.app import PlanviewApp

    factory = _session_factory(root, provider, plan_mode=False, resume=None)
    app = PlanviewApp(factory, project_root=root, welcome=guide.welcome(root), prompt_text=DEMO_TASK)
    app.run()
    print(guide.closing(root, command))
    return 0
