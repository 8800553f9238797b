"""ReviewBaselines: what the last review showed, kept across restarts."""

from __future__ import annotations

import os
from pathlib import Path

from planview.plan.reviews import ReviewBaselines


def test_baseline_round_trips_exactly_and_survives_a_new_instance(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text("x")
    text = "# Plan\r\n\r\nCRLF stays, ünïcode too\n\n- [ ] step\n"
    ReviewBaselines(tmp_path / "home").save(plan, text)
    assert ReviewBaselines(tmp_path / "home").load(plan) == text
    stored = list((tmp_path / "home" / "reviews").iterdir())
    assert len(stored) == 1 and stored[0].suffix == ".md"


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


def test_save_replaces_and_leaves_no_temp_files(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    baselines = ReviewBaselines(tmp_path / "home")
    baselines.save(plan, "first")
    baselines.save(plan, "second")
    assert baselines.load(plan) == "second"
    assert len(os.listdir(tmp_path / "home" / "reviews")) == 1


def test_unreadable_baseline_means_no_markers(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    baselines = ReviewBaselines(tmp_path / "home")
    baselines.save(plan, "x")
    baselines.path_for(plan).write_bytes(b"\xff\xfe not utf-8")
    assert baselines.load(plan) is None
