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


def first_run_text(user_config: Path, project_config: Path | None = None) -> Text:
    out = Text()
    out.append("Welcome to planview\n\n", style="bold")
    out.append("No model provider is configured yet, so there is no agent to talk to. Pick one of:\n\n")
    out.append("  Environment variables", style="bold")
    out.append(" — for example\n")
    out.append("    export OPENAI_API_KEY=sk-…          ", style="cyan")
    out.append("(or ANTHROPIC_API_KEY=…)\n")
    out.append("    export PLANVIEW_PROVIDER=openai PLANVIEW_MODEL=gpt-4o\n", style="cyan")
    out.append("    export PLANVIEW_BASE_URL=http://localhost:11434/v1   ", style="cyan")
    out.append("(Ollama, vLLM, LM Studio…)\n\n")
    out.append("  A config file", style="bold")
    out.append(f" at {user_config}")
    if project_config is not None:
        out.append(f"\n  or, for this project only, {project_config}")
    out.append(" — a minimal example:\n\n")
    for line in EXAMPLE_CONFIG.strip("\n").splitlines():
        out.append(f"    {line}\n", style="cyan")
    out.append("\n  Or try it without any of that:", style="bold")
    out.append("  ")
    out.append("planview demo", style="bold green")
    out.append(" runs a scripted agent on a sample project, offline, no API key.\n\n")
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
