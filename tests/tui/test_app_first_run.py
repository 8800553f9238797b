"""`planview` without a provider: the first-run screen; a broken config file: one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview import cli
from planview.tui.app import PlanviewApp
from planview.tui.first_run import FirstRunScreen, first_run_text


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
    text = first_run_text(tmp_path / "user" / "config.toml", tmp_path / ".planview" / "config.toml").plain
    assert "OPENAI_API_KEY" in text and "PLANVIEW_PROVIDER" in text
    assert str(tmp_path / "user" / "config.toml") in text
    assert str(tmp_path / ".planview" / "config.toml") in text
    assert "[provider]" in text and 'name = "openai"' in text
    assert "planview demo" in text and "no API key" in text


def test_planview_without_a_provider_opens_the_first_run_screen(clean_env: Path, launched: list) -> None:
    assert cli.main([]) == 0
    (app,) = launched
    assert app.session is None
    user, project = app.first_run
    assert project == clean_env / ".planview" / "config.toml"
    assert user.name == "config.toml" and "xdg" in str(user)


async def test_first_run_screen_shows_and_q_quits(tmp_path: Path) -> None:
    app = PlanviewApp(None, first_run=(tmp_path / "config.toml", None))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FirstRunScreen)
        assert "planview demo" in app.screen.text.plain
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


def test_broken_config_is_one_line_naming_file_line_and_problem(
    clean_env: Path, launched: list, capsys: pytest.CaptureFixture[str]
) -> None:
    config = clean_env / ".planview" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('[provider]\nname = "openai\n')
    assert cli.main([]) == 2
    err = capsys.readouterr().err.strip()
    assert launched == []
    assert len(err.splitlines()) == 1
    assert str(config) in err and "line 2" in err
    assert "Traceback" not in err


def test_unknown_provider_in_config_is_a_clear_error(clean_env: Path, launched: list, capsys) -> None:
    config = clean_env / ".planview" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('[provider]\nname = "gpt"\n')
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert "gpt" in err and "openai" in err and launched == []
