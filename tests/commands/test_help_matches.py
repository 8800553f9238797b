"""Help text that names JSON keys and exit codes says what the commands do (QA §11)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from planview.cli import main

PLAN = "# P\n\n## Steps\n\n- [ ] a\n- [x] b\n"


def _help(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    return " ".join(capsys.readouterr().out.split())  # argparse's wrapping undone


def _named_keys(text: str) -> set[str]:
    return set(re.findall(r'"([a-z_0-9]+)"', text))


def test_steps_help_names_every_key_of_its_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = project / "p.md"
    plan.write_text(PLAN)
    assert main(["steps", "--json", str(plan)]) == 0
    rows = json.loads(capsys.readouterr().out)
    statuses = {row["status"] for row in rows}
    text = _help(capsys, "steps")
    assert set(rows[0]) == _named_keys(text)
    assert all(status in text for status in statuses | {"pending", "in_progress", "completed"})


def test_status_help_names_its_json_keys_and_exit_codes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _help(capsys, "status")
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True)
    (plans / "p.md").write_text(PLAN)
    assert main(["status", "--json", "p.md"]) == 1  # not approved
    keys = set(json.loads(capsys.readouterr().out))
    assert keys == set(re.search(r"--json prints \{([^}]*)\}", text).group(1).replace(",", " ").split())
    assert "1 stale or not approved" in text
    assert main(["approve", "p.md"]) == 0
    assert main(["status", "p.md"]) == 0 and "0 approved" in text
    assert main(["status", "nosuch.md"]) == 2 and "2 bad input (no such plan" in text
    capsys.readouterr()


def test_audit_help_names_its_exit_codes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "audit")
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True)
    (plans / "p.md").write_text(PLAN)
    assert main(["approve", "p.md"]) == 0
    assert main(["audit"]) == 0 and "0 the ledger verifies" in text
    ledger = project / ".planview" / "ledger.jsonl"
    ledger.write_text(ledger.read_text().replace('"seq":1', '"seq":7'))
    assert main(["audit"]) == 1 and "1 it does not" in text
    ledger.unlink()
    ledger.mkdir()
    assert main(["audit"]) == 2 and "2 when the ledger cannot be read" in text
    capsys.readouterr()


def test_review_help_names_every_key_review_json_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from planview.commands.review import decision_json
    from planview.plan.decision import Keep
    from planview.web.decision import WebDecision

    text = _help(capsys, "review")
    terminal = set(decision_json(Keep(), Path("missing.md"))) | {"approval"}
    web = set(WebDecision("closed", Path("p.md"), reason="Back").to_json())
    assert terminal | web == _named_keys(text)
    assert "approve|refine|keep" in text
