"""Commands that draw nothing start fast: they import neither textual, the Markdown renderer nor asyncio.

Each command runs in a fresh interpreter (sys.modules starts empty) against a real git project, and
the test reads which modules the command loaded. `--help` does not even load the Markdown parser.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview.plan.store import PlanStore

# What only drawing commands need: the UI toolkit, the review renderer and its highlighter, asyncio.
NEVER = ("textual", "rich", "pygments", "asyncio", "planview.tui")

# Runs the command, then writes the exit code and sys.modules to the file named by argv[1].
_PROBE = """
import json, sys
from planview.cli import main
report = sys.argv.pop(1)
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
with open(report, "w") as f:
    json.dump({"code": code, "modules": sorted(sys.modules)}, f)
"""

PLAN = """\
# Tidy the README

## Steps
- [ ] Rewrite the setup section of README.md
- [x] Add a note
"""


def loaded(project: Path, *argv: str, stdin: str = "", env: dict[str, str] | None = None) -> dict:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull, **(env or {})}
    report = project.parent / "probe.json"
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, str(report), *argv],
        cwd=project,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    return {**json.loads(report.read_text()), "out": result.stdout, "err": result.stderr}


def forbidden(modules: list[str], names: tuple[str, ...] = NEVER) -> list[str]:
    return [m for m in modules if any(m == n or m.startswith(n + ".") for n in names)]


@pytest.fixture
def plan(project: Path) -> Path:
    return PlanStore.for_cwd().write("Tidy the README", PLAN).path


def test_help_loads_no_ui_no_asyncio_and_no_markdown_parser(project: Path) -> None:
    result = loaded(project, "--help")
    assert result["code"] == 0 and "review" in result["out"]
    assert forbidden(result["modules"], (*NEVER, "markdown_it", "planview.plan.document")) == []


@pytest.mark.parametrize(
    "argv",
    [
        ("status",),
        ("plans",),
        ("plans", "--json"),
        ("steps", "{plan}"),
        ("approve", "{plan}", "--as", "Ada"),
        ("audit",),
        ("gate", "check", "--mode", "plan"),
        ("approve", "--help"),
        ("review", "--help"),
        ("run", "--help"),
    ],
)
def test_commands_that_draw_nothing_import_no_ui(project: Path, plan: Path, argv: tuple[str, ...]) -> None:
    args = [a.format(plan=plan) for a in argv]
    result = loaded(project, *args, stdin='{"tool": "read", "input": {"path": "README.md"}}\n')
    assert result["code"] in (0, 1), result["err"]
    assert forbidden(result["modules"]) == [], args


def test_status_of_an_approved_plan_imports_no_ui(project: Path, plan: Path) -> None:
    assert loaded(project, "approve", str(plan), "--as", "Ada")["code"] == 0
    result = loaded(project, "status", str(plan))
    assert result["code"] == 0 and result["out"].startswith("approved"), result
    assert forbidden(result["modules"]) == []
    # The file still has the sealed bytes: no Markdown parse is needed to say so.
    assert forbidden(result["modules"], ("markdown_it", "planview.plan.document")) == []
    # Nor a git process (the toplevel is read from the file system), nor what only approve needs
    # (the seal, the evidence packet), nor the ledger's full walk (its head vouches for it).
    only_for_writers = (
        "subprocess",
        "uuid",
        "typing",
        "planview.approval.seal",
        "planview.approval.packet",
        "planview.approval.identity",
        "planview.approval.ledger_chain",
    )
    assert forbidden(result["modules"], only_for_writers) == []
    # Its value types are named tuples and its lock needs no `threading`: dataclasses (with inspect,
    # ast and dis) and threading cost about a third of status's start-up (benchmarks/README.md).
    assert forbidden(result["modules"], ("dataclasses", "inspect", "threading")) == []
    # Nor shutil (argparse's formatter imports it unless told the width) or shlex: an approved
    # plan's status prints no command hint.
    assert forbidden(result["modules"], ("shutil", "shlex", "planview.invocation")) == []
    # Ticked since: still approved (the canonical hash decides, so the parser loads).
    plan.write_text(plan.read_text().replace("- [ ] Rewrite", "- [x] Rewrite"))
    ticked = loaded(project, "status", str(plan))
    assert ticked["code"] == 0 and ticked["out"].startswith("approved"), ticked


def test_review_of_bad_input_answers_before_loading_the_ui(project: Path) -> None:
    result = loaded(project, "review", "missing.md")
    assert result["code"] == 2 and "missing.md" in result["err"]
    assert forbidden(result["modules"]) == []


def test_command_homes_name_every_subcommand_and_its_module() -> None:
    """`planview status` builds only the approval module's parsers: the map must match the modules."""
    import argparse
    import importlib

    from planview.cli import COMMAND_HOMES, COMMAND_MODULES

    registered = {}
    for name in COMMAND_MODULES:
        subparsers = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"planview.commands.{name}").register(subparsers)
        registered.update(dict.fromkeys(subparsers.choices, name))
    assert registered == COMMAND_HOMES


def test_a_subcommand_alone_parses_and_helps_as_in_the_whole_cli(project: Path) -> None:
    result = loaded(project, "status", "--help")
    assert result["code"] == 0 and result["out"].startswith("usage: planview status")
    assert "planview.commands.review" not in result["modules"]  # only its own module was loaded
    bad = loaded(project, "status", "--no-such-flag")
    assert bad["code"] == 2 and "unrecognized arguments: --no-such-flag" in bad["err"]
    unknown = loaded(project, "no-such-command")
    assert unknown["code"] == 2 and "invalid choice" in unknown["err"] and "review" in unknown["err"]


@pytest.mark.parametrize("columns", ["50", "200", "0", "-3", "wide", None])
def test_the_help_width_is_the_one_shutil_would_give(
    monkeypatch: pytest.MonkeyPatch, columns: str | None
) -> None:
    import shutil

    from planview.cli import terminal_columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns


def test_help_wraps_at_the_width_columns_names(project: Path) -> None:
    narrow = loaded(project, "status", "--help", env={"COLUMNS": "50"})
    wide = loaded(project, "status", "--help", env={"COLUMNS": "200"})
    assert narrow["code"] == wide["code"] == 0
    assert max(len(line) for line in narrow["out"].splitlines()) <= 48
    assert max(len(line) for line in wide["out"].splitlines()) > 60
