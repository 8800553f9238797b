"""The canonical hash approvals pin: stable under ticking, sensitive to words."""

from __future__ import annotations

import hashlib

from planview.plan.canonical import canonical_sha256, canonical_text
from planview.plan.feedback import ReviewComment, apply_feedback
from planview.plan.steps import StepUpdate, extract_steps, set_steps

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
