"""The canonical hash approvals pin: stable under ticking, sensitive to words."""

from __future__ import annotations

import hashlib

import pytest

from planview.plan.canonical import ITEM_LINE, canonical_sha256, canonical_text
from planview.plan.feedback import ReviewComment, apply_feedback, parse_feedback, strip_feedback
from planview.plan.steps import StepUpdate, StepUpdateError, extract_steps, set_steps

PLAN = """\
# Plan

## Steps

1. [ ] Add the column
2. [x] Backfill [DONE:2]
3. Ship

```md
- [ ] literal example [DONE:9]
```
"""

H = canonical_sha256(PLAN)


def test_hash_is_the_sha256_of_the_canonical_text():
    assert H == hashlib.sha256(canonical_text(PLAN).encode()).hexdigest()
    assert len(H) == 64


def test_ticking_and_reopening_steps_never_changes_it():
    ticked = set_steps(
        PLAN, [StepUpdate(1, "completed"), StepUpdate(2, "pending"), StepUpdate(3, "completed")]
    )
    assert ticked != PLAN
    assert canonical_sha256(ticked) == H


def test_capital_x_and_done_markers_are_normalised():
    assert canonical_sha256(PLAN.replace("[x] Backfill", "[X] Backfill")) == H
    assert canonical_sha256(PLAN.replace(" [DONE:2]", "")) == H
    assert canonical_sha256(PLAN.replace("3. Ship", "3. Ship [DONE:3]")) == H


def test_review_comments_line_endings_and_trailing_whitespace_are_ignored():
    commented = apply_feedback(PLAN, [ReviewComment(4, "ok?")])
    assert canonical_sha256(commented) == H
    assert canonical_sha256(PLAN.replace("\n", "\r\n")) == H
    assert canonical_sha256(PLAN.replace("Add the column", "Add the column  ") + "\n\n") == H
    assert canonical_sha256("\ufeff" + PLAN) == H


def test_any_word_change_changes_it():
    assert canonical_sha256(PLAN.replace("column", "columns")) != H
    assert canonical_sha256(PLAN.replace("# Plan", "# Plan B")) != H
    assert canonical_sha256(PLAN + "4. More\n") != H
    assert (
        canonical_sha256(PLAN.replace("1. [ ] Add", "1. [ ]  Add")) == H
    )  # spacing after a box is not a word


def test_code_is_content_even_when_it_looks_like_a_checkbox():
    assert canonical_sha256(PLAN.replace("- [ ] literal", "- [x] literal")) != H
    assert canonical_sha256(PLAN.replace(" [DONE:9]", "")) != H


def test_text_mentioning_brackets_elsewhere_is_kept():
    text = "Use [x] as a placeholder.\n"
    assert canonical_text(text) == text


def test_empty_and_blank_plans():
    assert canonical_text("") == "" and canonical_text("\n\n") == ""
    assert canonical_sha256("") == hashlib.sha256(b"").hexdigest()


def test_runs_of_100k_blanks_before_brackets_are_read_in_one_pass():
    """DONE_MARKER was unanchored with a leading `[ \\t]*`: quadratic on runs of blanks (a 250 KB
    plan took minutes to approve). The result is asserted, not the time: benchmarks/canonical_blanks.py."""
    blanks = " \t" * 50_000
    text = (
        f"# Plan\n\n## Steps\n\n- [ ] one{blanks}[DONE:\n- [ ] two{blanks}[DONE:7]\n- [ ] three{blanks}[x\n"
    )
    steps = extract_steps(text).steps
    assert len(steps) == 3
    assert [s.status for s in steps] == ["pending", "completed", "pending"]
    assert steps[1].text == "two"
    canonical = canonical_text(text)
    assert canonical.splitlines()[5] == "- two"  # the marker and the blanks before it go
    assert canonical.splitlines()[4] == f"- one{blanks}[DONE:"  # not a marker: kept
    reopened = set_steps(text, [StepUpdate(2, "pending")])
    assert "[DONE:7]" not in reopened and extract_steps(reopened).steps[1].status == "pending"
    assert canonical_sha256(reopened) == canonical_sha256(text)


# A review comment is a `>` line: parsed in place it lazily pulls the lines below it into a quote.
# The hash reads the plan without its comments, so the steps must be read the same way, or a tick
# lands on a box the hash keeps (or a box the hash strips is not a step). Found by
# test_canonical_hash_is_unchanged_by_checkbox_flips.
REPORTED = "> [!REVIEW] a comment\n| a | b |\n10. [DONE:3] marked\n\n    - [ ] deeper"


def test_a_review_comment_does_not_turn_indented_code_into_a_step():
    """The reported input: with the comment parsed in place, `    - [ ] deeper` was a step (the
    quote swallowed the paragraph above it); without it, it is indented code, which the hash keeps.
    Ticking it changed the hash, so a tick would have revoked an approval."""
    assert canonical_text(REPORTED) == "| a | b |\n10. marked\n\n    - [ ] deeper\n"
    assert extract_steps(REPORTED).steps == extract_steps(strip_feedback(REPORTED)).steps == ()
    # Nothing to tick; and editing the code by hand is a text change the hash sees.
    assert canonical_sha256(REPORTED.replace("[ ] deeper", "[x] deeper")) != canonical_sha256(REPORTED)


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        # Found by a wider run of the same property (20,000 random plans, every step, every status).
        ("===\n> [!REVIEW] a comment\n-\n    - [ ] deeper\n  - [x] nested done\n", ["nested done"]),
        ("-\n1. [x]\n- ```\n> [!REVIEW] a comment\n  - [x] nested done\n", [""]),
        # Here the comment closed a quote that would otherwise hold the fence: the nested item was a
        # step, though without the comment it is inside the item's unclosed fence (code the hash keeps).
        ("\n> quote\n- ```\n> [!REVIEW]\n  - [x] nested done\n````", ["```"]),
        ("para\n===\n- ```\n\n- ```\n> [!REVIEW]\n  > - [ ] indented quote\n", ["```", "```"]),
        (
            "## Goal\r\n|---|---|\r\n   > [!REVIEW] three\r\n- \r\n     - [ ] five\r\n````\r\n"
            "### steps\r\n> [!REVIEW] a comment\r\n# Title\r\n- [ ]",
            [],
        ),
    ],
)
def test_every_tick_keeps_the_hash_when_review_comments_sit_among_the_steps(text, steps):
    found = extract_steps(text).steps
    assert [s.text for s in found] == steps
    # The comments change nothing about the steps but their line numbers.
    bare = extract_steps(strip_feedback(text)).steps
    assert [(s.text, s.status, s.has_checkbox) for s in found] == [
        (s.text, s.status, s.has_checkbox) for s in bare
    ]
    pinned = canonical_sha256(text)
    for step in found:
        for status in ("completed", "in_progress", "pending"):
            try:
                edited = set_steps(text, [StepUpdate(step.index, status)])
            except StepUpdateError as refused:
                assert "cannot take a checkbox" in str(refused)
                continue
            assert canonical_sha256(edited) == pinned, (step, status, edited)
            assert extract_steps(edited).steps[step.index - 1].status == status
            assert parse_feedback(edited) == parse_feedback(text)  # the comments are untouched


def test_step_lines_and_edits_are_in_the_file_with_its_comments():
    text = "# P\n\n## Steps\n\n- [ ] one\n> [!REVIEW] why?\n> [!REVIEW] and?\n- two [DONE:1]\n  more\n"
    steps = extract_steps(text).steps
    assert [(s.text, s.line, s.status) for s in steps] == [
        ("one", 5, "pending"),
        ("two more", 8, "completed"),
    ]
    edited = set_steps(text, [StepUpdate(1, "completed"), StepUpdate(2, "pending")])
    assert edited == "# P\n\n## Steps\n\n- [x] one\n> [!REVIEW] why?\n> [!REVIEW] and?\n- [ ] two\n  more\n"
    assert canonical_sha256(edited) == canonical_sha256(text)


def test_a_lone_cr_is_a_space_to_the_parser_so_it_opens_no_fence_for_the_hash():
    """markdown-it (and so the steps) read a lone CR as a space: `a\\r```` is a paragraph and
    `- [ ] one` a step. canonical_text turned the CR into a line break before parsing, so it saw a
    fence opening and kept the box as code: ticking the step changed the hash."""
    text = "a\r```\n- [ ] one\n"
    assert [s.text for s in extract_steps(text).steps] == ["one"]
    ticked = set_steps(text, [StepUpdate(1, "completed")])
    assert ticked == "a\r```\n- [x] one\n"
    assert canonical_sha256(ticked) == canonical_sha256(text)
    assert canonical_text(text) == "a\n```\n- one\n"  # the CR still becomes a line break
    # And the other way round: a fence the parser does see keeps its box as code.
    fenced = "a\n```\r- [ ] one\n```\n"
    assert canonical_sha256(fenced.replace("[ ]", "[x]")) != canonical_sha256(fenced)


def test_a_deeply_quoted_line_that_is_not_an_item_is_read_in_one_pass():
    """The item-line pattern steps used, `(?:[ \\t]*>[ \\t]?)*`, backtracked exponentially on a quoted
    line that is not an item (22 levels: 5 s); canonical_text now runs the one pattern on every
    line holding a `[`. The result is asserted, not the time."""
    line = "> " * 5_000 + "x [x]"
    assert canonical_text(line) == line + "\n"
    assert ITEM_LINE.match("> " * 5_000 + "- [~] y").group("state") == "~"
