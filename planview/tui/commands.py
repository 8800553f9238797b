"""Slash commands typed at the prompt, parsed without any UI (pure, trivially testable).

The rule for `/plan`, matching the reference behaviour:

- `/plan` alone toggles plan mode.
- `/plan review` alone, or followed by exactly one token that looks like a path (it ends in `.md`
  or contains a path separator), is the review subcommand.
- Anything else after `/plan` is a planning task: plan mode is entered (if it is not on already)
  and the rest of the line is sent. `/plan <task>` never turns plan mode off, and a task that merely
  starts with the word (`/plan review the auth flow`) stays a task, so the subcommand never
  swallows one.
- `/plans` lists the plans; `/mcp` the MCP servers; `/help` lists the commands; `/quit` leaves.
- A line that does not start with `/<word>` is an ordinary prompt, so a path such as
  `/usr/lib is missing` is sent as written. `//text` sends `/text` literally.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

# A command word: "/" then a lowercase word; "/usr/lib" has a second "/" and is not a command.
_COMMAND = re.compile(r"^/([A-Za-z][A-Za-z0-9_-]*)(?=\s|$)(.*)\Z", re.DOTALL)


@dataclass(frozen=True)
class SendPrompt:
    """Send this text to the agent."""

    text: str


@dataclass(frozen=True)
class TogglePlan:
    """`/plan`: turn plan mode on or off."""


@dataclass(frozen=True)
class PlanTask:
    """`/plan <task>`: enter plan mode and send the task."""

    task: str


@dataclass(frozen=True)
class ReviewPlan:
    """`/plan review [--web] [path]`: open a plan's review."""

    path: str | None  # None: the session's plan, else the newest plan
    web: bool = False  # `/plan review --web [path]`: a comment-only page in the browser


@dataclass(frozen=True)
class ListPlans:
    """`/plans`: list the project's plans."""


@dataclass(frozen=True)
class ListMcp:
    """`/mcp`: list the MCP servers and their tools."""


@dataclass(frozen=True)
class ShowHelp:
    """`/help`: list the commands."""


@dataclass(frozen=True)
class Quit:
    """`/quit` or `/exit`: leave planview."""


@dataclass(frozen=True)
class UnknownCommand:
    """A `/word` planview has no command for (or a command given words it takes none of)."""

    name: str


@dataclass(frozen=True)
class Empty:
    """A blank line: nothing to do."""


Command = (
    SendPrompt
    | TogglePlan
    | PlanTask
    | ReviewPlan
    | ListPlans
    | ListMcp
    | ShowHelp
    | Quit
    | UnknownCommand
    | Empty
)

# (usage, what it does) — shown by /help and the unknown-command notice.
HELP: tuple[tuple[str, str], ...] = (
    ("/plan", "toggle plan mode; works in every terminal (also Ctrl+Alt+P where the terminal sends it)"),
    ("/plan <task>", "enter plan mode and send the task"),
    ("/plan review [path]", "review the session's plan, the newest plan, or the given file"),
    ("/plan review --web [path]", "comment on that plan in the browser (saved into the file)"),
    ("/plans", "list the plans in this project"),
    ("/mcp", "list the MCP servers, their tools and what the gate allows in each mode"),
    ("/help", "show these commands"),
    ("/quit", "leave planview (also Ctrl+Q)"),
)


def looks_like_path(token: str) -> bool:
    """A token names a plan file when it ends in .md or contains a path separator."""
    return token.lower().endswith(".md") or "/" in token or "\\" in token


def _single_token(rest: str) -> str | None:
    """The one token of `rest` (shell quoting allowed for spaces), or None when there are more."""
    try:
        tokens = shlex.split(rest, posix=False)  # non-POSIX keeps Windows backslashes
    except ValueError:
        return None
    if len(tokens) != 1:
        return None
    token = tokens[0]
    if len(token) >= 2 and token[0] == token[-1] and token[0] in "\"'":
        token = token[1:-1]
    return token


def parse_command(line: str) -> Command:
    """Classify one submitted prompt line (it may span several lines)."""
    text = line.strip()
    if not text:
        return Empty()
    if text.startswith("//"):
        return SendPrompt(text[1:])
    match = _COMMAND.match(text)
    if match is None:
        return SendPrompt(text)
    name, rest = match.group(1).lower(), match.group(2).strip()
    if name == "plan":
        return _parse_plan(rest)
    if name == "plans" and not rest:
        return ListPlans()
    if name == "mcp" and not rest:
        return ListMcp()
    if name == "help" and not rest:
        return ShowHelp()
    if name in ("quit", "exit") and not rest:
        return Quit()
    return UnknownCommand(name)


def _parse_plan(rest: str) -> Command:
    if not rest:
        return TogglePlan()
    head, *more = re.split(r"\s+", rest, maxsplit=1)
    if head.lower() == "review":
        tail = more[0].strip() if more else ""
        web = tail == "--web" or tail.startswith(("--web ", "--web\t"))
        if web:
            tail = tail[len("--web") :].strip()
        if not tail:
            return ReviewPlan(None, web=web)
        token = _single_token(tail)
        if token is not None and looks_like_path(token):
            return ReviewPlan(token, web=web)
    return PlanTask(rest)
