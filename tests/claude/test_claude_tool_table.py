"""docs/CLAUDE_CODE.md's plan-mode table is the one map of Claude Code's tools: it names the version it
was checked against, and every tool the hook allows, reads or refuses by name appears in it."""

from __future__ import annotations

import re
from pathlib import Path

from planview.claude import tools

DOC = Path(__file__).resolve().parents[2] / "docs" / "CLAUDE_CODE.md"


def _rows() -> dict[str, str]:
    text = DOC.read_text()
    table = text[text.index("| Claude tool | in plan mode |") :].split("\n\n", 1)[0]
    rows = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        for name in re.findall(r"[A-Za-z_*`]+", cells[0]):
            rows[name.strip("`")] = cells[1]
    return rows


def test_the_table_names_the_version_it_was_checked_against() -> None:
    assert f"Checked against **Claude Code {tools.CHECKED_AGAINST}**" in DOC.read_text()


def test_every_tool_the_hook_names_is_in_the_table_with_its_rule() -> None:
    rows = _rows()
    for name in tools.ALWAYS_ALLOWED:
        assert rows.get(name, "").startswith("allowed"), name
    for name in tools.READERS:
        assert rows.get(name, "").startswith("allowed"), name
    for name in tools.PATH_KEYS:
        assert rows.get(name, "").startswith("refused"), name
    assert "Bash" in rows and "ExitPlanMode" in rows and "Agent" in rows


def test_tools_the_table_refuses_are_refused_by_the_hook(tmp_path: Path) -> None:
    rows = _rows()
    refused = [n for n, rule in rows.items() if rule.startswith("refused (default deny") and n[0].isupper()]
    assert {"Skill", "Monitor", "EnterWorktree"} <= set(refused)
    for name in refused:
        assert not tools.plan_mode_verdict(name, {}, tmp_path).allowed, name
