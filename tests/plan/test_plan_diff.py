"""Section diff: matched by title, position among duplicates, comments and trailing whitespace ignored."""

from __future__ import annotations

from planview.plan.diff import SectionChange, changed_sections

BASE = "# Plan\n\nIntro.\n\n## Goal\n\nShip.\n\n## Steps\n\n- [ ] a\n- [ ] b\n"


def statuses(previous: str, current: str) -> list[tuple[str, str]]:
    return [(c.title, c.status) for c in changed_sections(previous, current).changes]


def test_identical_texts_have_no_changes():
    diff = changed_sections(BASE, BASE)
    assert not diff.any_changes and diff.changed_count == 0 and diff.removed == ()
    assert diff.changes == (
        SectionChange(0, "Plan", "unchanged"),
        SectionChange(1, "Goal", "unchanged"),
        SectionChange(2, "Steps", "unchanged"),
    )


def test_a_word_change_marks_only_its_section():
    current = BASE.replace("Ship.", "Ship it.")
    assert statuses(BASE, current) == [("Plan", "unchanged"), ("Goal", "changed"), ("Steps", "unchanged")]
    diff = changed_sections(BASE, current)
    assert diff.changed_count == 1 and diff.any_changes and diff.status_of(1) == "changed"


def test_added_and_removed_sections():
    current = BASE.replace("## Goal\n\nShip.\n\n", "") + "\n## Risks\n\nNone.\n"
    diff = changed_sections(BASE, current)
    assert [(c.title, c.status) for c in diff.changes] == [
        ("Plan", "unchanged"),
        ("Steps", "unchanged"),
        ("Risks", "added"),
    ]
    assert diff.removed == ("Goal",)
    assert diff.changed_count == 1
    assert diff.changed_titles == ("Risks", "Goal")


def test_moving_a_section_keeps_it_unchanged():
    moved = "# Plan\n\nIntro.\n\n## Steps\n\n- [ ] a\n- [ ] b\n\n## Goal\n\nShip.\n"
    assert dict(statuses(BASE, moved)) == {"Plan": "unchanged", "Steps": "unchanged", "Goal": "unchanged"}


def test_duplicate_titles_are_matched_by_position():
    previous = "## Phase\none\n## Phase\ntwo\n## Phase\nthree\n"
    current = "## Phase\none\n## Phase\nTWO\n## Phase\nthree\n## Phase\nfour\n"
    assert statuses(previous, current) == [
        ("Phase", "unchanged"),
        ("Phase", "changed"),
        ("Phase", "unchanged"),
        ("Phase", "added"),
    ]
    assert changed_sections(current, previous).removed == ("Phase",)


def test_review_comments_are_ignored_on_both_sides():
    commented = BASE.replace("Ship.\n", "Ship.\n> [!REVIEW] why now?\n")
    assert not changed_sections(BASE, commented).any_changes
    assert not changed_sections(commented, BASE).any_changes


def test_trailing_whitespace_line_endings_and_trailing_blank_lines_are_ignored():
    noisy = BASE.replace("Ship.", "Ship.   ").replace("\n", "\r\n") + "\n\n"
    assert not changed_sections(BASE, noisy).any_changes


def test_leading_whitespace_and_heading_level_do_count():
    assert statuses(BASE, BASE.replace("- [ ] b", "  - [ ] b"))[2] == ("Steps", "changed")
    assert statuses(BASE, BASE.replace("## Goal", "### Goal"))[1] == ("Goal", "changed")


def test_ticks_and_progress_markers_are_not_edits():
    # README: ticking never counts as a change (the canonical hash agrees); the markers read
    # "1 of 7 sections changed" for ticks alone after an execution.
    ticked = BASE.replace("- [ ] a", "- [x] a").replace("- [ ] b", "- [~] b [DONE:2]")
    assert not changed_sections(BASE, ticked).any_changes
    assert not changed_sections(ticked, BASE).any_changes
    # ...but a word in the same step still is one
    assert statuses(BASE, ticked.replace("- [x] a", "- [x] a, then c"))[2] == ("Steps", "changed")


def test_preamble_only_matches_a_preamble():
    previous = "intro\n# A\n"
    current = "#\nintro\n# A\n"  # an empty-titled heading is not the preamble
    diff = changed_sections(previous, current)
    assert [(c.title, c.status) for c in diff.changes] == [("", "added"), ("A", "unchanged")]
    assert diff.removed == ("",)


def test_empty_texts():
    assert changed_sections("", "").changes == ()
    diff = changed_sections("", BASE)
    assert {c.status for c in diff.changes} == {"added"}
    assert changed_sections(BASE, "").removed == ("Plan", "Goal", "Steps")
