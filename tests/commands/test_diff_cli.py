"""`planview diff PLAN [--rev N] [--json]`: exit codes, the JSON shape, --rev, a damaged store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview import cli
from planview.plan.reviews import ReviewBaselines

FIRST = "# Ship it\n\n## Goal\n\nRate limit the API on staging.\n\n## Steps\n\n- [ ] one\n- [ ] two\n"
SECOND = FIRST.replace("on staging", "on production")
THIRD = SECOND.replace("- [ ] two\n", "- [ ] two\n- [ ] three\n") + "\n## Risks\n\nNone known.\n"


@pytest.fixture
def plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PLANVIEW_HOME", str(tmp_path / "home"))
    path = tmp_path / "home" / "plans" / "plan.md"
    path.parent.mkdir(parents=True)
    path.write_text(FIRST, encoding="utf-8")
    return path


def reviewed(plan: Path, *texts: str) -> ReviewBaselines:
    store = ReviewBaselines(Path(os.environ["PLANVIEW_HOME"]))
    for text in texts:
        store.save(plan, text)
    return store


def test_never_reviewed_is_one_clear_line_and_exit_2(plan: Path, capsys) -> None:
    assert cli.main(["diff", str(plan)]) == 2
    err = capsys.readouterr().err
    assert "has not been reviewed yet" in err and "planview review" in err
    assert len(err.strip().splitlines()) == 1


def test_no_change_exits_0_and_a_change_exits_1_with_the_words(plan: Path, capsys) -> None:
    reviewed(plan, FIRST)
    assert cli.main(["diff", str(plan)]) == 0
    assert capsys.readouterr().out.startswith("no change:")
    plan.write_text(SECOND, encoding="utf-8")
    assert cli.main(["diff", str(plan)]) == 1
    out = capsys.readouterr().out
    assert "§ Goal · changed" in out
    assert "[-staging-]{+production+}" in out
    assert "Steps" not in out  # unchanged sections are not printed


def test_ticking_a_step_is_no_change(plan: Path, capsys) -> None:
    reviewed(plan, FIRST)
    plan.write_text(FIRST.replace("- [ ] one", "- [x] one"), encoding="utf-8")
    assert cli.main(["diff", str(plan)]) == 0


def test_json_shape(plan: Path, capsys) -> None:
    reviewed(plan, FIRST, SECOND)
    plan.write_text(THIRD, encoding="utf-8")
    assert cli.main(["diff", str(plan), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {
        "plan",
        "revision",
        "revisions",
        "revision_sha256",
        "reviewed_at",
        "changed",
        "changed_count",
        "removed",
        "sections",
    }
    assert (data["revision"], data["revisions"], data["changed"], data["changed_count"]) == (2, 2, True, 2)
    assert [(s["title"], s["status"]) for s in data["sections"]] == [("Steps", "changed"), ("Risks", "added")]
    steps = data["sections"][0]
    assert [p["text"].strip() for p in steps["pieces"] if p["op"] == "insert"] == ["- [ ] three"]
    assert "".join(p["text"] for p in steps["pieces"] if p["op"] != "delete") in THIRD
    assert all(set(p) == {"op", "text"} and p["op"] in ("equal", "insert", "delete") for p in steps["pieces"])


def test_rev_picks_the_nth_reviewed_revision(plan: Path, capsys) -> None:
    reviewed(plan, FIRST, SECOND)
    plan.write_text(SECOND, encoding="utf-8")
    assert cli.main(["diff", str(plan)]) == 0  # the last review saw this text
    capsys.readouterr()
    assert cli.main(["diff", str(plan), "--rev", "1", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["revision"] == 1
    deleted = [p["text"] for s in data["sections"] for p in s["pieces"] if p["op"] == "delete"]
    assert deleted == ["staging"]
    for bad in ("0", "3", "-1"):
        assert cli.main(["diff", str(plan), "--rev", bad]) == 2
        assert "give --rev 1 to 2" in capsys.readouterr().err


def test_a_damaged_store_is_reported_rebuilt_and_still_diffs(plan: Path, capsys) -> None:
    store = reviewed(plan, FIRST, SECOND)
    index = store.index_path(plan)
    index.write_text(index.read_text() + "{torn\n", encoding="utf-8")
    store.object_path(json.loads(index.read_text().splitlines()[1])["sha256"]).write_text("tampered")
    plan.write_text(SECOND, encoding="utf-8")
    assert cli.main(["diff", str(plan)]) == 1  # against revision 1, the one that is intact
    err = capsys.readouterr().err
    assert "damaged" in err and "rebuilt it from the 1 intact revision" in err
    assert store.history(plan).damage is None
    assert cli.main(["diff", str(plan)]) == 1
    assert capsys.readouterr().err == ""


def test_an_unusable_store_is_a_clear_line_never_a_traceback(plan: Path, tmp_path: Path) -> None:
    store = reviewed(plan, FIRST)
    index = store.index_path(plan)
    index.unlink()
    index.mkdir()  # a folder where the index goes: it can be neither read nor rebuilt
    result = subprocess.run(
        [sys.executable, "-m", "planview", "diff", str(plan)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "cannot be read" in result.stderr and "could not rebuild" in result.stderr
    assert "has not been reviewed yet" in result.stderr


def test_not_a_plan_exits_2(tmp_path: Path, capsys) -> None:
    assert cli.main(["diff", str(tmp_path / "missing.md")]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_plan_text_cannot_drive_the_terminal(plan: Path, capsys) -> None:
    reviewed(plan, FIRST)
    plan.write_text(FIRST.replace("staging", "\x1b]0;owned\x07staging\x1b[2J"), encoding="utf-8")
    assert cli.main(["diff", str(plan)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "owned" not in out
