"""Hypothesis properties of the plan core (modest example counts to keep the suite fast)."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from planview.plan.canonical import canonical_sha256
from planview.plan.diff import changed_sections
from planview.plan.document import parse_plan
from planview.plan.feedback import ReviewComment, apply_feedback, parse_feedback, strip_feedback
from planview.plan.steps import StepUpdate, StepUpdateError, extract_steps, set_steps

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Lines that exercise the interesting Markdown: headings, setext underlines, lists with and
# without checkboxes, nesting, fences (closed or not), quotes, review lines, tables, markers.
FRAGMENTS = [
    "# Title",
    "## Steps",
    "### steps",
    "## Goal",
    "Title",
    "===",
    "---",
    "***",
    "",
    "",
    "para with _emphasis_ and **bold** and user_id",
    "- [ ] pending step",
    "- [x] done step",
    "* [X] done too",
    "+ plain bullet",
    "1. first",
    "2) [ ] second",
    "10. [DONE:3] marked",
    "  - nested note",
    "    - [ ] deeper",
    "   continued text",
    "-",
    "- ",
    "[DONE:1]",
    "- step [DONE:2] with marker",
    "```",
    "```python",
    "~~~",
    "````",
    "    indented code",
    "> quote",
    "> - [ ] quoted item",
    "> [!REVIEW] a comment",
    "> [!REVIEW]",
    "| a | b |",
    "|---|---|",
    "<div>",
    "<!-- comment",
    "-->",
    "\t- tab item",
    "- ```",
    "- # heading item",
]

markdownish = (
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=30)
    .flatmap(lambda lines: st.tuples(st.just(lines), st.sampled_from(["\n", "\r\n"]), st.booleans()))
    .map(lambda t: t[1].join(t[0]) + (t[1] if t[2] and t[0] else ""))
)

any_text = st.one_of(st.text(max_size=200), markdownish)


@FAST
@given(any_text)
def test_parsing_never_raises_and_sections_cover_every_line_once(text):
    doc = parse_plan(text)
    covered = [line for s in doc.sections for line in range(s.start, s.end + 1)]
    assert covered == list(range(1, len(doc.lines) + 1))
    assert "\n".join(s.text for s in doc.sections) == "\n".join(doc.lines)
    for section in doc.sections:
        for block in section.blocks:
            assert section.start <= block.start <= block.end <= section.end
    extract_steps(text)  # never raises either


@FAST
@given(markdownish, st.data())
def test_set_steps_then_extract_steps_round_trips(text, data):
    before = extract_steps(text).steps
    assume(before)
    wanted = data.draw(st.lists(st.booleans(), min_size=len(before), max_size=len(before)))
    updates = [
        StepUpdate(s.index, "completed" if w else "pending") for s, w in zip(before, wanted, strict=True)
    ]
    try:
        new = set_steps(text, updates)
    except StepUpdateError as refused:
        # The only refusal for in-range updates: a step that cannot take a checkbox in place.
        assert "cannot take a checkbox" in str(refused)
        return
    after = extract_steps(new).steps
    assert [s.completed for s in after] == wanted
    assert [s.text for s in after] == [s.text for s in before]
    assert all(s.has_checkbox for s in after)
    # Idempotent: setting the same states again changes nothing.
    assert set_steps(new, updates) == new
    # Ticking never changes the canonical hash.
    assert canonical_sha256(new) == canonical_sha256(text)


@FAST
@given(markdownish, st.lists(st.tuples(st.integers(-2, 40), st.text(max_size=20)), max_size=5))
def test_apply_feedback_is_idempotent_and_strippable(text, raw):
    comments = [ReviewComment(anchor, body) for anchor, body in raw]
    once = apply_feedback(text, comments)
    assert apply_feedback(once, comments) == once
    assert strip_feedback(once) == strip_feedback(text)
    assert strip_feedback(strip_feedback(text)) == strip_feedback(text)
    written = [" ".join(body.split()) for _, body in raw if body.split()]
    assert sorted(c.text for c in parse_feedback(once)) == sorted(written)


@FAST
@given(any_text)
def test_a_text_compared_with_itself_has_no_changed_sections(text):
    diff = changed_sections(text, text)
    assert not diff.any_changes
    assert len(diff.changes) == len(parse_plan(strip_feedback(text)).sections)


@FAST
@given(markdownish, st.data())
def test_canonical_hash_is_unchanged_by_checkbox_flips(text, data):
    steps = extract_steps(text).steps
    assume(steps)
    step = data.draw(st.sampled_from(steps))
    status = "pending" if step.completed else "completed"
    try:
        flipped = set_steps(text, [StepUpdate(step.index, status)])
    except StepUpdateError:
        return
    assert canonical_sha256(flipped) == canonical_sha256(text)
    lf = text.replace("\r\n", "\n")
    if "\r" not in lf:  # a pure CRLF file hashes like its LF twin
        assert canonical_sha256(flipped.replace("\r\n", "\n")) == canonical_sha256(text)
