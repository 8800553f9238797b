"""What `planview` shows when no model provider is configured: how to set one up, and the demo.

Every paragraph wraps at the screen's width and every command sits alone on its line with a
hanging indent, so nothing is cut at 40 columns and what is shown can be copied and run.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from pathlib import Path

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.padding import Padding
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from planview.config import EXAMPLE_CONFIG
from planview.invocation import planview_command
from planview.tui.review.fit import CONTINUATION, code_break_offsets
from planview.tui.styles import stylesheet


def minimal_example() -> str:
    """The `[provider]` table of planview.config's example without its comments: the least a file needs."""
    lines: list[str] = []
    for line in EXAMPLE_CONFIG.splitlines():
        if line.startswith("[provider]"):
            lines = [line]
        elif lines:
            if not line.strip():
                break
            if not line.lstrip().startswith("#"):
                lines.append(line.split("#")[0].rstrip())
    return "\n".join(lines)


def shown_path(path: Path, cwd: Path | None = None) -> str:
    """A config path as short as it stays correct: relative to the current folder, else with ~."""
    cwd = cwd or Path.cwd()
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        pass
    try:
        return "~" + os.sep + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _para(text: str | Text, indent: int = 0) -> RenderableType:
    body = Text(text) if isinstance(text, str) else text
    return Padding(body, (0, 0, 0, indent)) if indent else body


class CodeLine:
    """One command or config line: unwrapped when it fits. A shell command too long for the width is
    broken as the shell itself continues a line (copied, it runs as one command); a config line or a
    path is broken at a space or punctuation with a dim ↪ starting each continuation."""

    def __init__(self, line: str, indent: int, shell: bool = False) -> None:
        self.text = Text(line, style="cyan")
        self.indent = indent
        self.shell = shell

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.shell:
            for pad, shown in shell_continued(self.text.plain, options.max_width, self.indent):
                yield Text(" " * pad + shown, style="cyan")
            return
        room = max(1, options.max_width - self.indent)
        rest = max(1, room - len(CONTINUATION))
        pieces = self.text.divide(code_break_offsets(self.text.plain, room, rest))
        for k, piece in enumerate(pieces):
            piece.rstrip()
            line = Text(" " * self.indent)
            if k:
                line.append(CONTINUATION, "dim")
            line.append_text(piece)
            yield line


def shell_continued(command: str, width: int, indent: int) -> list[tuple[int, str]]:
    """`command` as (indent, text) lines of at most `width` cells, each but the last ending in a
    backslash, so that the lines pasted into a shell are the one command: a break at a space ends in
    ` \\` and the next line is indented; a word longer than the room breaks inside, ends in `\\` and
    goes on at column 0 (the shell removes backslash-newline and joins the word back)."""
    lines: list[tuple[int, str]] = []
    rest, pad = command, indent
    while len(rest) > max(2, width - pad):
        room = max(2, width - pad)
        cut = rest.rfind(" ", 0, room - 1)
        if cut > 0:
            lines.append((pad, rest[:cut] + " \\"))
            rest, pad = rest[cut + 1 :].lstrip(" "), indent + 2
        else:
            lines.append((pad, rest[: room - 1] + "\\"))
            rest, pad = rest[room - 1 :], 0
    lines.append((pad, rest))
    return lines


def _code(line: str, indent: int = 4, shell: bool = False) -> RenderableType:
    return CodeLine(line, indent, shell)


def agents_on_path() -> tuple[str, ...]:
    """The built-in ACP agents whose program is on PATH (a lookup only: no agent is started)."""
    import shutil

    from planview.agents.profiles import BUILTIN

    return tuple(name for name, profile in BUILTIN.items() if shutil.which(profile.argv[0]))


def start_choices(agents: tuple[str, ...]) -> list[tuple[str, str, tuple[str, ...]]]:
    """What the first page offers to start: (key, what it does, planview's arguments)."""
    choices: list[tuple[str, str, tuple[str, ...]]] = [("d", "run the offline demo", ("demo",))]
    choices += [
        (str(i), f"plan with {name}", ("--plan", "--agent", name)) for i, name in enumerate(agents, 1)
    ]
    return choices[:10]


def first_run_page(
    user_config: Path,
    project_config: Path | None = None,
    planview: str | None = None,
    agents: tuple[str, ...] = (),
) -> Group:
    planview = planview or planview_command(here=True)  # read and run in this folder
    rows: list[RenderableType] = [
        Text("Welcome to planview", style="bold"),
        Text(""),
        _para("No model provider is configured, so there is no agent to talk to yet."),
        Text(""),
        _para(Text.assemble(("Try it now, offline", "bold"), " (press d):")),
        _code(f"{planview} demo", 2, shell=True),
        _para("A scripted agent plans and edits a sample project; no API key needed.", 2),
        Text(""),
    ]
    if agents:
        rows.append(_para(Text.assemble(("Or plan with an agent you have", "bold"), " (found on PATH):")))
        for key, _what, argv in start_choices(agents)[1:]:
            rows += [_code(f"{planview} {' '.join(argv)}", 2, shell=True), _para(f"(press {key})", 4)]
        rows.append(Text(""))
    rows += [
        _para(
            Text.assemble(("Or gate Claude Code", "bold"), " with planview's plan mode, review and ledger:")
        ),
        _code(f"{planview} claude install --local", 2, shell=True),
        Text(""),
        _para(Text.assemble(("Or configure a provider", "bold"), " with environment variables, for example")),
        _code("export OPENAI_API_KEY=sk-…", 2, shell=True),
        _code("export PLANVIEW_PROVIDER=openai", 2, shell=True),
        _code("export PLANVIEW_MODEL=gpt-4o", 2, shell=True),
        _para("(Anthropic: ANTHROPIC_API_KEY and PLANVIEW_PROVIDER=anthropic.) Its SDK is an extra:", 2),
        _code(_extra("openai"), 2, shell=True),
        _para(
            "For a local server (Ollama, vLLM, LM Studio, …) also set PLANVIEW_BASE_URL, "
            "e.g. to http://localhost:11434/v1",
            2,
        ),
        Text(""),
        _para("or in a config file:"),
        _code(shown_path(user_config), 2),
    ]
    if project_config is not None:
        rows += [_para("or, for this project only:", 2), _code(shown_path(project_config), 2)]
    rows.append(_para("for example", 2))
    rows += [_code(line) for line in minimal_example().splitlines()]
    rows.append(_para("name is openai, anthropic or scripted.", 2))
    rows += [
        Text(""),
        _para("Then start planview again:"),
        _code(planview, 2, shell=True),
        Text(""),
        _para(Text("Press q to quit.", style="dim")),
    ]
    return Group(*rows)


def _extra(name: str) -> str:
    from planview.invocation import install_extra_command

    return install_extra_command(name)


def page_text(page: Group) -> str:
    """The page's words without layout (for tests and searching)."""
    out: list[str] = []
    for row in page.renderables:
        inner = row.renderable if isinstance(row, Padding) else row
        inner = inner.text if isinstance(inner, CodeLine) else inner
        out.append(inner.plain if isinstance(inner, Text) else str(inner))
    return "\n".join(out)


class FirstRunCommands(Provider):
    """The first page's choices in the command palette (Ctrl+P)."""

    async def discover(self) -> Hits:
        for title, callback in self._choices():
            yield DiscoveryHit(title, callback)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback in self._choices():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback)

    def _choices(self) -> list[tuple[str, Callable[[], None]]]:
        screen = self.screen
        if not isinstance(screen, FirstRunScreen):
            return []
        return [
            (f"planview {' '.join(argv)}: {what}", partial(screen.start, argv))
            for _key, what, argv in start_choices(screen.agents)
        ]


class FirstRunScreen(Screen):
    CSS_PATH = stylesheet("first_run")
    COMMANDS = {FirstRunCommands}
    BINDINGS = [
        Binding("q", "app.quit", "quit"),
        Binding("escape", "app.quit", "quit", show=False),
        Binding("d", "start('demo')", "demo"),
        *(Binding(str(i), f"pick({i})", show=False) for i in range(1, 10)),
    ]

    def __init__(
        self, user_config: Path, project_config: Path | None = None, agents: tuple[str, ...] | None = None
    ) -> None:
        super().__init__()
        self.agents = agents_on_path() if agents is None else agents
        self.page = first_run_page(user_config, project_config, agents=self.agents)
        self.text = page_text(self.page)

    def start(self, argv: tuple[str, ...]) -> None:
        """Leave the page and start planview with `argv` (the caller execs it once the app is gone)."""
        self.app.exit(result=list(argv))

    def action_start(self, what: str) -> None:
        self.start(("demo",) if what == "demo" else (what,))

    def action_pick(self, number: int) -> None:
        choices = start_choices(self.agents)
        if number < len(choices):
            self.start(choices[number][2])

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="first-run"):
            yield Static(self.page, id="first-run-text")
        yield Footer()
