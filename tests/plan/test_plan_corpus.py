"""Every real plan in ../shared/corpus/plans parses, is covered by its sections, and yields steps.

The files are read in place (never copied into the repo); the `corpus` fixture skips with a
clear reason when ../shared is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.plan.canonical import canonical_sha256
from planview.plan.diff import changed_sections
from planview.plan.document import parse_plan
from planview.plan.feedback import ReviewComment, apply_feedback, parse_feedback, strip_feedback
from planview.plan.steps import StepUpdate, StepUpdateError, extract_steps, set_steps


def read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as handle:
        return handle.read()


def by_name(corpus: list[Path], prefix: str) -> str:
    matches = [p for p in corpus if p.name.startswith(prefix)]
    if not matches:
        pytest.skip(f"corpus plan {prefix}* not present")
    return read(matches[0])


def test_every_plan_parses_and_its_sections_cover_the_file(corpus):
    for path in corpus:
        text = read(path)
        doc = parse_plan(text)
        covered = [line for s in doc.sections for line in range(s.start, s.end + 1)]
        assert covered == list(range(1, len(doc.lines) + 1)), path.name
        assert "\n".join(s.text for s in doc.sections) == "\n".join(doc.lines), path.name
        assert len(doc.lines) == text.count("\n") + (0 if text.endswith("\n") else 1), path.name


def test_every_plan_yields_steps_without_raising(corpus):
    for path in corpus:
        steps = extract_steps(read(path))
        assert steps.source in ("steps_section", "shallowest_list", "none"), path.name
        assert [s.index for s in steps.steps] == list(range(1, steps.total + 1)), path.name
        assert all(len(s.display) <= 200 for s in steps.steps), path.name


def test_ticking_every_step_round_trips_and_keeps_the_hash(corpus):
    for path in corpus:
        text = read(path)
        steps = extract_steps(text).steps
        tickable = [s for s in steps if s.has_checkbox or s.text]
        if not tickable:
            continue
        updates = [StepUpdate(s.index, "completed") for s in tickable]
        try:
            new = set_steps(text, updates)
        except StepUpdateError as refused:
            assert "cannot take a checkbox" in str(refused), path.name
            continue
        after = extract_steps(new).steps
        assert [s.text for s in after] == [s.text for s in steps], path.name
        assert all(after[s.index - 1].completed for s in tickable), path.name
        assert canonical_sha256(new) == canonical_sha256(text), path.name
        assert not changed_sections(text, text).any_changes


def test_review_comments_round_trip_on_every_plan(corpus):
    for path in corpus:
        text = read(path)
        doc = parse_plan(text)
        comments = [
            ReviewComment(s.blocks[0].end, f"comment on {s.title or 'preamble'}")
            for s in doc.sections
            if s.blocks
        ]
        once = apply_feedback(text, comments)
        assert strip_feedback(once) == text, path.name
        assert apply_feedback(once, comments) == once, path.name
        assert len(parse_feedback(once)) == len(comments), path.name
        assert canonical_sha256(once) == canonical_sha256(text), path.name
        assert not changed_sections(text, once).any_changes, path.name


# --- spot checks, counted by reading the files --------------------------------------------------


def test_tiny_steps_heading_plan(corpus):
    steps = extract_steps(by_name(corpus, "010-"))
    assert steps.source == "steps_section"
    assert [s.text for s in steps.steps] == [
        "Create this plan commit",
        "Check iPad shows green checkmark",
        "Tap checkmark → turns gray",
        "Push is allowed",
    ]


def test_tilde_marker_is_the_in_progress_checkbox(corpus):
    steps = extract_steps(by_name(corpus, "020-")).steps
    assert len(steps) == 8
    assert [s.completed for s in steps] == [True] + [False] * 7
    assert steps[0].text == "prd (completed: 2026-01-22)"
    assert steps[1].text == "research (started: 2026-01-22)" and steps[1].has_checkbox
    assert steps[1].status == "in_progress"


def test_implementation_steps_heading_and_list_starting_at_two(corpus):
    steps = extract_steps(by_name(corpus, "023-"))
    assert (steps.source, steps.section_title, steps.total) == ("steps_section", "Implementation Steps", 10)
    assert steps.steps[0].text == "Add ahead count per worktree"
    assert steps.steps[-1].text == "Add stable section (time, hash, msg only)"


def test_headingless_numbered_plan_falls_back_with_notes(corpus):
    steps = extract_steps(by_name(corpus, "019-"))
    assert steps.source == "shallowest_list" and steps.total == 5
    assert steps.steps[0].text.startswith(
        "Analyze the Security Issue: The current implementation of _secureLegacyApiKey"
    )
    assert len(steps.steps[0].notes) == 2
    assert steps.steps[4].notes == (
        "Submit the PR with the title 🔒 [Security] Fix API key leakage in SharedPreferences.",
    )


def test_ralph_fix_plan_counts(corpus):
    steps = extract_steps(by_name(corpus, "018-"))
    assert (steps.total, steps.done) == (58, 38)


def test_korean_fix_plan_long_steps(corpus):
    steps = extract_steps(by_name(corpus, "024-")).steps
    assert [s.completed for s in steps] == [False, True, True, True]
    assert len(steps[0].text) > 200 and steps[0].display.endswith("…") and len(steps[0].display) == 200


def test_headings_inside_a_yaml_fence_are_not_sections(corpus):
    doc = parse_plan(by_name(corpus, "026-"))
    titles = [s.title for s in doc.sections]
    assert "Gatekeeper Validation Failed" not in titles
    assert "Blocking Summary" not in titles and "Failed Checks" not in titles
    assert "Task 3.2: Add Failure Notifications" in titles


def test_html_comment_list_lines_are_not_steps(corpus):
    steps = extract_steps(by_name(corpus, "015-"))
    assert steps.steps == () and steps.source == "none"


def test_front_matter_todos_are_not_a_heading(corpus):
    doc = parse_plan(by_name(corpus, "001-"))
    assert doc.front_matter is not None and doc.sections[0].level == 0
    assert doc.title == "Cursor Plan Mode Improvements Plan"
