"""The slash-command rule (pure): /plan toggles, /plan <task> plans, /plan review [path] reviews."""

from __future__ import annotations

import pytest

from planview.tui.commands import (
    Empty,
    ListPlans,
    PlanTask,
    Quit,
    ReviewPlan,
    SendPrompt,
    ShowHelp,
    TogglePlan,
    UnknownCommand,
    looks_like_path,
    parse_command,
)

CASES = [
    # toggles: only the bare command
    ("/plan", TogglePlan()),
    ("  /plan  ", TogglePlan()),
    ("/PLAN", TogglePlan()),
    # a task: enters plan mode and sends the rest, never toggles off
    ("/plan add rate limiting to the public API", PlanTask("add rate limiting to the public API")),
    ("/plan fix it\nand test it", PlanTask("fix it\nand test it")),
    # the reserved subcommand: bare, or followed by exactly one path-like token
    ("/plan review", ReviewPlan(None)),
    ("/plan   review  ", ReviewPlan(None)),
    ("/plan review plans/x.md", ReviewPlan("plans/x.md")),
    ("/plan review notes.md", ReviewPlan("notes.md")),
    ("/plan review NOTES.MD", ReviewPlan("NOTES.MD")),
    ("/plan review .planview/plans/2026-01-01-0000-a", ReviewPlan(".planview/plans/2026-01-01-0000-a")),
    ("/plan review C:\\plans\\a", ReviewPlan("C:\\plans\\a")),
    ('/plan review "my plan.md"', ReviewPlan("my plan.md")),
    ("/plan review\tdocs/plan.md", ReviewPlan("docs/plan.md")),
    # ... anything else starting with the word is still a planning task
    ("/plan review the auth flow", PlanTask("review the auth flow")),
    ("/plan review auth", PlanTask("review auth")),
    ("/plan review a.md and b.md", PlanTask("review a.md and b.md")),
    ("/plan reviewing the code", PlanTask("reviewing the code")),
    ("/plan Review", ReviewPlan(None)),
    # other commands
    ("/plans", ListPlans()),
    ("/plans extra", UnknownCommand("plans")),
    ("/help", ShowHelp()),
    ("/quit", Quit()),
    ("/exit", Quit()),
    ("/frobnicate", UnknownCommand("frobnicate")),
    # ordinary prompts
    ("hello", SendPrompt("hello")),
    ("  hello  ", SendPrompt("hello")),
    ("/usr/lib is missing", SendPrompt("/usr/lib is missing")),
    ("//plan is a word", SendPrompt("/plan is a word")),
    ("/planning ahead", UnknownCommand("planning")),
    ("", Empty()),
    ("   \n  ", Empty()),
]


@pytest.mark.parametrize(("line", "expected"), CASES, ids=[repr(c[0]) for c in CASES])
def test_parse_command(line: str, expected: object) -> None:
    assert parse_command(line) == expected


@pytest.mark.parametrize(
    ("token", "is_path"),
    [("a.md", True), ("x/y", True), ("x\\y", True), ("the", False), ("README", False), ("a.mdx", False)],
)
def test_looks_like_path(token: str, is_path: bool) -> None:
    assert looks_like_path(token) is is_path


def test_unbalanced_quote_is_a_task_not_a_crash() -> None:
    assert parse_command('/plan review "a.md') == PlanTask('review "a.md')


def test_commands_module_does_not_import_textual() -> None:
    import subprocess
    import sys

    code = "import sys, planview.tui.commands; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # planview.tui's package __init__ is tiny; the parser itself must stay textual-free.
    assert out.stdout.strip() == "False"
