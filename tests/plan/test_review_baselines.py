"""ReviewBaselines: every reviewed revision of a plan, content-addressed, kept across restarts."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from planview.plan.reviews import ReviewBaselines


def test_baseline_round_trips_exactly_and_survives_a_new_instance(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text("x")
    text = "# Plan\r\n\r\nCRLF stays, ünïcode too\n\n- [ ] step\n"
    ReviewBaselines(tmp_path / "home").save(plan, text)
    assert ReviewBaselines(tmp_path / "home").load(plan) == text
    # Content-addressed: the object is named by the SHA-256 of its bytes.
    sha = hashlib.sha256(text.encode()).hexdigest()
    assert (tmp_path / "home" / "reviews" / "objects" / f"{sha}.md").read_bytes() == text.encode()


def test_baseline_is_keyed_by_the_resolved_path(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "a").mkdir()
    plan = tmp_path / "a" / "plan.md"
    plan.write_text("x")
    baselines = ReviewBaselines(tmp_path / "home")
    baselines.save(plan, "one")
    monkeypatch.chdir(tmp_path / "a")
    assert baselines.load(Path("plan.md")) == "one"
    assert baselines.load(tmp_path / "a" / ".." / "a" / "plan.md") == "one"
    assert baselines.load(tmp_path / "other.md") is None


def test_every_reviewed_revision_is_kept_in_order_and_a_repeat_adds_none(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    baselines = ReviewBaselines(tmp_path / "home")
    for text in ("first", "second", "second", "first"):
        baselines.save(plan, text)
    assert baselines.load(plan) == "first"
    history = baselines.history(plan)
    assert history.damage is None
    assert [r.number for r in history.revisions] == [1, 2, 3]
    assert [baselines.text_of(r) for r in history.revisions] == ["first", "second", "first"]
    assert baselines.revision_text(plan, 2)[1] == "second"
    assert baselines.revision_text(plan, 4) is None
    objects = os.listdir(tmp_path / "home" / "reviews" / "objects")
    assert len(objects) == 2 and not any(name.startswith(".") for name in objects)  # no temp files left


def test_the_old_single_baseline_is_imported_as_revision_one_and_kept(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    baselines = ReviewBaselines(tmp_path / "home")
    legacy = baselines.legacy_path(plan)
    legacy.parent.mkdir(parents=True)
    legacy.write_text("what the old planview showed")
    assert baselines.load(plan) == "what the old planview showed"
    baselines.save(plan, "the new text")
    assert [baselines.text_of(r) for r in baselines.history(plan).revisions] == [
        "what the old planview showed",
        "the new text",
    ]
    assert legacy.read_text() == "what the old planview showed"  # never deleted


def test_the_old_baseline_serves_a_read_only_home(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    baselines = ReviewBaselines(tmp_path / "home")
    legacy = baselines.legacy_path(plan)
    legacy.parent.mkdir(parents=True)
    legacy.write_text("old")
    os.chmod(legacy.parent, 0o555)
    try:
        if os.access(legacy.parent, os.W_OK):  # root ignores the mode: make the object write fail instead
            (legacy.parent / "objects").write_text("not a folder")
        assert baselines.load(plan) == "old"
    finally:
        os.chmod(legacy.parent, 0o755)


def test_a_damaged_store_drops_what_is_broken_says_so_and_is_repaired(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    baselines = ReviewBaselines(tmp_path / "home")
    for text in ("one", "two", "three"):
        baselines.save(plan, text)
    index = baselines.index_path(plan)
    lines = index.read_text().splitlines()
    two = json.loads(lines[1])["sha256"]
    baselines.object_path(two).write_text("tampered")  # no longer matches its name
    index.write_text("\n".join([lines[0], "{not json", lines[1], lines[2][:20]]) + "\n")  # torn last line
    history = baselines.history(plan)
    assert [baselines.text_of(r) for r in history.revisions] == ["one"]
    assert history.damage is not None and "line 2" in history.damage and "line 3" in history.damage
    assert baselines.load(plan) == "one"
    baselines.repair(plan)
    assert baselines.history(plan).damage is None
    baselines.save(plan, "four")
    assert [baselines.text_of(r) for r in baselines.history(plan).revisions] == ["one", "four"]


def test_unreadable_baseline_means_no_markers(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    baselines = ReviewBaselines(tmp_path / "home")
    baselines.save(plan, "x")
    baselines.index_path(plan).write_bytes(b"\xff\xfe not utf-8")
    assert baselines.load(plan) is None
