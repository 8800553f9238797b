"""`planview` without a provider: the first-run screen; a broken config file: one clear line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from planview.tui.app import PlanviewApp
from planview.tui.first_run import first_run_page, page_text


@pytest.fixture
def clean_env(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No provider anywhere: a private user config dir, no keys or provider variables."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for var in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "PLANVIEW_PROVIDER",
        "PLANVIEW_MODEL",
        "PLANVIEW_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    return project


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[PlanviewApp]:
    """Capture the app the CLI would run instead of taking over the terminal."""
    apps: list[PlanviewApp] = []
    monkeypatch.setattr(PlanviewApp, "run", lambda self, *a, **k: apps.append(self))
    return apps


def test_first_run_text_names_env_vars_config_file_example_and_demo(tmp_path: Path) -> None:
    page = first_run_page(
        tmp_path / "user" / "config.toml", tmp_path / ".planview" / "config.toml", "planview"
    )
    text = page_text(page)
    assert "OPENAI_API_KEY" in text and "PLANVIEW_PROVIDER" in text
    assert str(tmp_path / "user" / "config.toml") in text
    assert str(tmp_path / ".planview" / "config.toml") in text
    assert "[provider]" in text and 'name = "openai"' in text
    assert "planview demo" in text and "no API key" in text


def test_first_run_names_the_running_planview(tmp_path: Path) -> None:
    text = page_text(first_run_page(tmp_path / "config.toml", None, "/opt/x/.venv/bin/planview"))
    assert "/opt/x/.venv/bin/planview demo" in text
    assert "Then start planview again:\n/opt/x/.venv/bin/planview\n" in text


def shown_lines(app: PlanviewApp) -> list[str]:
    from textual.containers import VerticalScroll
    from textual.geometry import Region
    from textual.widgets import Static

    scroll = app.screen.query_one("#first-run", VerticalScroll)
    static = app.screen.query_one("#first-run-text", Static)
    assert scroll.max_scroll_x == 0 and not scroll.horizontal_scrollbar.display
    width = static.size.width
    assert 0 < width <= scroll.scrollable_content_region.width
    lines = [s.text.rstrip() for s in static.render_lines(Region(0, 0, width, static.size.height))]
    assert max(len(line) for line in lines) <= width
    return lines


def cut_words(lines: list[str], words: set[str]) -> set[str]:
    """Words on screen that are not whole words of the page, except where a ↪ line continues them."""
    cut: set[str] = set()
    for i, line in enumerate(lines):
        tokens = [t for t in line.split() if t != "↪"]
        continued = i + 1 < len(lines) and lines[i + 1].lstrip().startswith("↪ ")
        if continued and tokens:
            tokens = tokens[:-1]
        if line.lstrip().startswith("↪ ") and tokens:
            tokens = tokens[1:]
        cut |= set(tokens) - words
    return cut


@pytest.mark.parametrize("size", [(80, 24), (40, 20), (120, 36)])
async def test_first_run_page_wraps_whole_words_without_horizontal_scroll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size
) -> None:
    from planview.tui import first_run

    # Where README's install puts it, run from the project: the case every new user is in.
    monkeypatch.setattr(first_run, "planview_command", lambda **_: "~/code/app/.venv/bin/planview")
    monkeypatch.chdir(tmp_path)
    user = Path.home() / ".config" / "planview" / "config.toml"
    app = PlanviewApp(None, first_run=(user, tmp_path / ".planview" / "config.toml"))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        lines = shown_lines(app)
        words = set(app.screen.text.split())
        assert not [line for line in lines if "↪" in line]  # nothing needed breaking
        assert not cut_words(lines, words)
        assert [w for line in lines for w in line.split()] == app.screen.text.split()  # all of it, in order


async def test_a_command_too_long_for_the_width_is_continued_as_the_shell_continues_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copied from a 40-column terminal, the lines run as the one command: no ↪ in them (it used to be
    copied with the command), each break a shell line continuation."""
    import shlex

    from planview.tui import first_run

    long = "/opt/some/rather/deep/folder/with/tools/.venv/bin/planview"
    monkeypatch.setattr(first_run, "planview_command", lambda **_: long)
    app = PlanviewApp(None, first_run=(tmp_path / "config.toml", None))
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        lines = shown_lines(app)
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("/opt/"))
    block = [lines[start]]
    while block[-1].endswith("\\"):
        block.append(lines[start + len(block)])
    assert len(block) > 1 and not any("↪" in line for line in block)
    pasted = "\n".join(block)
    assert shlex.split(pasted.replace("\\\n", "")) == [long, "demo"]  # what the shell runs
    ran = subprocess.run(["bash", "-c", f"printf '%s|' {pasted}"], capture_output=True, text=True, timeout=30)
    assert ran.stdout == f"{long}|demo|"


@pytest.mark.parametrize("width", [20, 30, 40, 80])
def test_shell_continued_lines_rejoin_to_the_command(width: int) -> None:
    from planview.tui.first_run import shell_continued

    for command in (
        "export OPENAI_API_KEY=sk-…",
        "/a/very/long/path/to/some/virtualenv/bin/planview demo",
        "planview claude install --local",
    ):
        lines = shell_continued(command, width, 2)
        assert all(pad + len(text) <= max(width, pad + 2) for pad, text in lines)
        pasted = "\n".join(" " * pad + text for pad, text in lines)
        ran = subprocess.run(
            ["bash", "-c", f"printf '%s|' {pasted}"], capture_output=True, text=True, timeout=30
        )
        assert ran.stdout == "".join(f"{w}|" for w in command.split()), (width, pasted)
