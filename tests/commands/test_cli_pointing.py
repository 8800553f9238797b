"""Flags and messages that point the right way: root options before a command, unknown options,
missing plans, and bare plan names resolved in the plans folder by every command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planview.cli import main
from planview.plan.store import PlanStore

PLAN = "# Tidy\n\n## Steps\n\n- [ ] one\n- [x] two\n"


def saved_plan(project: Path) -> Path:
    return PlanStore.for_cwd(project).write("Tidy", PLAN).path


def test_a_root_option_before_the_command_reaches_run(project: Path, capsys) -> None:
    script = project / "s.jsonl"
    script.write_text('{"text": "hello from the script"}\n')
    assert main(["--script", str(script), "run", "hi"]) == 0
    assert "hello from the script" in capsys.readouterr().out
    # given on both sides, the one after the command wins
    other = project / "t.jsonl"
    other.write_text('{"text": "the later one"}\n')
    assert main(["--script", str(script), "run", "--script", str(other), "hi"]) == 0
    assert "the later one" in capsys.readouterr().out


def test_provider_before_run_is_not_ignored(project: Path, capsys, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project / "xdg"))
    assert main(["--provider", "openai", "run", "hi"]) == 2
    err = capsys.readouterr().err
    assert "--provider" not in err  # it used to ask for the flag it had just been given
    assert "OPENAI_API_KEY" in err


def test_a_root_option_a_command_does_not_take_is_refused(project: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--plan", "plans"])
    assert exit_.value.code == 2
    assert "`planview plans` does not take it" in capsys.readouterr().err


def test_an_unknown_option_shows_that_commands_usage(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["plans", "--bogus"])
    err = capsys.readouterr().err
    assert err.startswith("usage: planview plans") and "unrecognized arguments: --bogus" in err


@pytest.mark.parametrize("command", ["status", "approve", "steps", "review"])
def test_a_missing_plan_is_not_found_whatever_the_command(project: Path, capsys, command) -> None:
    code = main([command, "/nonexistent.md"])
    err = capsys.readouterr().err
    assert code == 2 and "plan not found: /nonexistent.md" in err
    assert "inside" not in err  # not the containment rule: the file is not there at all


def test_steps_and_status_find_a_bare_name_in_the_plans_folder(project: Path, capsys) -> None:
    path = saved_plan(project)
    assert main(["steps", path.name]) == 0
    assert capsys.readouterr().out.splitlines() == ["[ ] 1. one", "[x] 2. two"]
    assert main(["steps", path.stem, "--json"]) == 0  # without .md too
    assert [s["text"] for s in json.loads(capsys.readouterr().out)] == ["one", "two"]
    assert main(["status", path.name]) == 1
    assert capsys.readouterr().out.startswith("not approved: .planview/plans/")
    assert main(["approve", path.stem]) == 0
    assert capsys.readouterr().out.startswith("artifact:")


def test_a_file_in_the_current_folder_wins_over_the_plans_folder(project: Path, capsys) -> None:
    path = saved_plan(project)
    (project / path.name).write_text("# Here\n\n## Steps\n\n- [ ] local\n")
    assert main(["steps", path.name]) == 0
    assert capsys.readouterr().out.strip() == "[ ] 1. local"


def test_a_bare_name_found_nowhere_says_where_it_looked(project: Path, capsys) -> None:
    saved_plan(project)
    assert main(["steps", "2026-01-01-0000-nope.md"]) == 2
    err = capsys.readouterr().err
    assert "neither in the current folder nor in .planview/plans" in err
