"""`planview doctor [--json]`: what this machine gives planview, one section per room.

Each section is a function in `SECTIONS` returning a `DoctorSection`; a room that has something
to report (the sandbox, the agents found on PATH, how planview is installed) adds its function
there. A section that fails is shown as failed with its error, never as a traceback, and the other
sections still print.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planview.agents.installed import FoundAgent

from planview.textsafe import say


@dataclass(frozen=True)
class DoctorSection:
    """One section of the doctor's report: a title, its lines for a person, its data for --json."""

    key: str
    title: str
    lines: tuple[str, ...]
    data: dict[str, Any] = field(default_factory=dict)


def sandbox_section() -> DoctorSection:
    from planview.sandbox.report import report

    title, lines, data = report()
    return DoctorSection("sandbox", title, lines, data)


def bytecode_section() -> DoctorSection:
    from planview.bytecode import bytecode_report

    found = bytecode_report()
    data = {
        "editable": found.editable,
        "dont_write_bytecode": found.writing_off,
        "cached_modules": found.cached,
        "modules": found.modules,
        "fix": found.fix,
    }
    install = "editable install" if found.editable else "installed package"
    lines = [f"{install}; {found.cached} of {found.modules} modules have cached bytecode"]
    if found.fix is not None:
        lines.append(
            "bytecode writing is off (PYTHONDONTWRITEBYTECODE or -B), so every planview process compiles "
            f"planview from source again (~30 ms on each Claude Code hook call); write the cache once: {found.fix}"
        )
    return DoctorSection("bytecode", "Bytecode", tuple(lines), data)


def _agent_line(agent: FoundAgent) -> str:
    if agent.path is None:
        return f"{agent.name}: not on PATH ({agent.program})"
    version = agent.version or "version unknown (it printed none)"
    if agent.tested is None:
        verdict = "never run by planview's real-agent tests"
    elif agent.in_range:
        verdict = f"tested: {agent.tested}"
    else:
        verdict = f"outside the tested range {agent.tested}"
    return f"{agent.name}: {version} at {agent.path}; {verdict}"


def agents_section() -> DoctorSection:
    from planview.agents.installed import found_agents, probe
    from planview.agents.profiles import VersionRange
    from planview.claude.tools import CHECKED_AGAINST, CHECKED_WHAT

    # Claude Code itself (for `planview claude install`'s hooks), then every ACP agent profile.
    hooks = probe(
        "Claude Code (hooks)",
        "claude",
        ("--version",),
        VersionRange(CHECKED_AGAINST, CHECKED_AGAINST, CHECKED_WHAT),
    )
    found = (hooks, *found_agents())
    lines = tuple(_agent_line(agent) for agent in found)
    return DoctorSection("agents", "Agents", lines, {"agents": [agent.as_json() for agent in found]})


# The report's sections, in order. Add yours here (a function with no arguments).
SECTIONS: tuple[Callable[[], DoctorSection], ...] = (sandbox_section, agents_section, bytecode_section)


def collect() -> list[DoctorSection]:
    sections = []
    for make in SECTIONS:
        try:
            sections.append(make())
        except Exception as exc:  # one broken probe must not hide the others
            name = getattr(make, "__name__", "section").removesuffix("_section")
            sections.append(
                DoctorSection(
                    name, name, (f"could not be checked: {type(exc).__name__}: {exc}",), {"error": str(exc)}
                )
            )
    return sections


def render(sections: list[DoctorSection]) -> str:
    from planview.textsafe import sanitize_for_terminal

    out = []
    for section in sections:
        out.append(section.title)
        out += [f"  {line}" for line in section.lines]
    return sanitize_for_terminal("\n".join(out) + "\n")


def run(args: argparse.Namespace) -> int:
    sections = collect()
    if args.json:
        from planview.textsafe import json_for_terminal

        payload = {section.key: section.data for section in sections}
        say(json_for_terminal(payload, indent=2))
    else:
        say(render(sections), end="")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `planview doctor`."""
    doctor = subparsers.add_parser(
        "doctor",
        help="say what enforces plan mode on this machine",
        description=(
            "Report what this machine gives planview: what enforces plan mode (the kernel's sandbox, "
            "with Landlock's ABI and the network isolation, or the lists alone and why), and more."
        ),
    )
    doctor.add_argument("--json", action="store_true", help="print the report as one JSON object")
    doctor.set_defaults(handler=run)
