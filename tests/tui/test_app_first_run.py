"""`planview` without a provider: the first-run screen; a broken config file: one clear line."""

from __future__ import annotations

import shutil
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


def rejoined(lines: list[str]) -> list[str]:
    """The lines with shell continuations undone (a `\\` ending a line joins it to the next, as the
    shell does), so a command broken for the width reads as the one line it is."""
    out: list[str] = []
    carry = ""
    for line in lines:
        if line.endswith("\\"):
            carry += line[:-1]
            continue
        out.append(carry + line if carry else line)
        carry = ""
    return out + ([carry] if carry else [])


def cut_words(lines: list[str], words: set[str]) -> set[str]:
    """Words on screen that are not whole words of the page, except where a ↪ line continues them."""
    lines = rejoined(lines)
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
        shown = [w for line in rejoined(lines) for w in line.split()]
        assert shown == app.screen.text.split()  # all of it, in order


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


async def test_the_first_page_offers_the_agents_on_path_claude_and_the_sdk_extra(tmp_path: Path) -> None:
    from planview.tui.first_run import FirstRunScreen

    app = PlanviewApp(None, first_run=(tmp_path / "config.toml", None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FirstRunScreen)
        app.pop_screen()
        app.push_screen(FirstRunScreen(tmp_path / "config.toml", None, agents=("gemini", "opencode")))
        await pilot.pause()
        text = app.screen.text
        assert "--plan --agent gemini" in text and "--plan --agent opencode" in text
        assert "claude install --local" in text and "pip install" in text
        await pilot.press("2")
    assert app.return_value == ["--plan", "--agent", "opencode"]


@pytest.mark.parametrize(("key", "argv"), [("d", ["demo"]), ("1", ["--plan", "--agent", "gemini"])])
async def test_a_choice_is_one_key_or_a_palette_command(tmp_path: Path, key: str, argv: list[str]) -> None:
    from planview.tui.first_run import FirstRunScreen

    app = PlanviewApp(None, first_run=(tmp_path / "config.toml", None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.pop_screen()
        app.push_screen(FirstRunScreen(tmp_path / "config.toml", None, agents=("gemini",)))
        await pilot.pause()
        await pilot.press(key)
    assert app.return_value == argv


async def test_the_palette_holds_the_first_pages_choices(tmp_path: Path) -> None:
    from planview.tui.first_run import FirstRunCommands, FirstRunScreen

    app = PlanviewApp(None, first_run=(tmp_path / "config.toml", None))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.pop_screen()
        app.push_screen(FirstRunScreen(tmp_path / "config.toml", None, agents=("gemini",)))
        await pilot.pause()
        assert FirstRunCommands in app.screen.COMMANDS
        titles = [title for title, _ in FirstRunCommands(app.screen)._choices()]
        assert titles == [
            "planview demo: run the offline demo",
            "planview --plan --agent gemini: plan with gemini",
        ]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_pressing_d_on_the_first_page_starts_the_demo_for_real(project: Path, tmp_path: Path) -> None:
    import sys

    from tests.tui.test_review_tty import Tmux

    planview = Path(sys.executable).with_name("planview")
    home = tmp_path / "home"
    home.mkdir()
    env = ["-e", f"HOME={home}", "-e", f"TMPDIR={tmp_path}", "-e", "TEXTUAL_ANIMATIONS=none"]
    env += ["-e", "PLANVIEW_PROVIDER=", "-e", "PLANVIEW_MODEL="]
    tmux = Tmux(tmp_path)
    try:
        command = f"cd {project} && {planview}; echo EXITED $?; sleep 60"
        tmux.run("new-session", "-d", "-s", "w", "-x", "100", "-y", "30", *env, command)
        tmux.wait_for("Welcome to planview")
        tmux.run("send-keys", "-t", "w", "d")
        tmux.wait_for("a scripted agent (offline, no API key)", timeout=60)
        tmux.run("send-keys", "-t", "w", "C-q")
        tmux.wait_for("EXITED 0", timeout=60)
    finally:
        tmux.close()


@pytest.mark.parametrize("width", [40, 80, 120])
async def test_the_first_pages_footer_hints_are_whole_at_every_width(tmp_path: Path, width: int) -> None:
    from rich.cells import cell_len
    from textual.widgets._footer import FooterKey

    app = PlanviewApp(None, first_run=(tmp_path / "config.toml", None))
    async with app.run_test(size=(width, 20)) as pilot:
        await pilot.pause()
        keys = list(app.screen.query(FooterKey))
        for _ in range(100):
            if keys and all(key.region.width for key in keys):
                break
            await pilot.pause(0.02)
            keys = list(app.screen.query(FooterKey))
        labels = [" ".join(key.render().plain.split()) for key in keys]
        assert "q quit" in labels and "d demo" in labels, labels
        for key in keys:
            assert key.region.right <= width and key.region.width >= cell_len(key.render().plain.rstrip())
