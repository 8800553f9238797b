"""The entry point: `planview --version`, `python -m planview`, and the styles lookup."""

from __future__ import annotations

import subprocess
import sys

import pytest

from planview import __version__
from planview.cli import COMMAND_MODULES, build_parser, main
from planview.tui.styles import styles_dir, stylesheet


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"planview {__version__}"


def test_python_dash_m_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "planview", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"planview {__version__}"


def test_unknown_subcommand_exits_2_without_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "planview", "no-such-command"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "invalid choice" in result.stderr


def test_every_area_registers_a_subcommand() -> None:
    parser = build_parser()
    help_text = parser.format_help()
    for name in COMMAND_MODULES:
        assert name in sys.modules.get(f"planview.commands.{name}").__name__
    for command in ("review", "run", "plans", "steps", "approve", "status", "audit", "gate", "demo"):
        assert command in help_text, f"`planview {command}` is not registered"


def test_styles_found_from_a_checkout() -> None:
    assert (styles_dir() / "app.tcss").is_file()
    assert stylesheet("app").name == "app.tcss"


def test_help_at_40_columns_keeps_paths_and_hyphenated_words_whole(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse printed `.claude/settings.local.j` / `son` and `read-` / `only` at 40 columns."""
    monkeypatch.setenv("COLUMNS", "40")
    for argv, whole in (
        (["claude", "uninstall", "--help"], ".claude/settings.local.json"),
        (["claude", "plan", "--help"], "read-only"),
    ):
        with pytest.raises(SystemExit):
            main(argv)
        out = capsys.readouterr().out
        assert whole in out, out
        assert not any(line.rstrip().endswith(whole[: len(whole) // 2]) for line in out.splitlines())
