"""What `planview` shows when no model provider is configured: how to set one up, and the demo."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from planview.config import EXAMPLE_CONFIG
from planview.tui.styles import stylesheet


def minimal_example() -> str:
    """The `[provider]` table of planview.config's example: the least a config file needs."""
    lines: list[str] = []
    for line in EXAMPLE_CONFIG.splitlines():
        if line.startswith("[provider]"):
            lines = [line]
        elif lines:
            if not line.strip():
                break
            if not line.lstrip().startswith("#"):
                lines.append(line)
    return "\n".join(lines)


def first_run_text(user_config: Path, project_config: Path | None = None) -> Text:
    out = Text()
    out.append("Welcome to planview\n\n", style="bold")
    out.append("No model provider is configured, so there is no agent to talk to yet.\n\n")
    out.append("  Try it now, offline: ", style="bold")
    out.append("planview demo", style="bold green")
    out.append(" — a scripted agent plans and edits a sample project; no API key needed.\n\n")
    out.append("  Or configure a provider\n", style="bold")
    out.append("    with environment variables, for example\n")
    out.append("      export OPENAI_API_KEY=sk-…", style="cyan")
    out.append("      (or ANTHROPIC_API_KEY=…)\n")
    out.append("      export PLANVIEW_PROVIDER=openai PLANVIEW_MODEL=gpt-4o\n", style="cyan")
    out.append("      export PLANVIEW_BASE_URL=http://localhost:11434/v1", style="cyan")
    out.append("   (Ollama, vLLM, LM Studio, …)\n")
    out.append(f"    or in a config file: {user_config}\n")
    if project_config is not None:
        out.append(f"    (or {project_config} for this project only), for example\n")
    for line in minimal_example().splitlines():
        out.append(f"      {line}\n", style="cyan")
    out.append("\n  Then run planview again.  ")
    out.append("Press q to quit.", style="dim")
    return out


class FirstRunScreen(Screen):
    CSS_PATH = stylesheet("first_run")
    BINDINGS = [Binding("q", "app.quit", "quit"), Binding("escape", "app.quit", "quit", show=False)]

    def __init__(self, user_config: Path, project_config: Path | None = None) -> None:
        super().__init__()
        self.text = first_run_text(user_config, project_config)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="first-run"):
            yield Static(self.text, id="first-run-text")
        yield Footer()
