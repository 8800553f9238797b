"""Steps: which items are steps, their state and text; checkbox editing."""

from __future__ import annotations

import pytest

from planview.errors import PlanviewError
from planview.plan.canonical import canonical_sha256
from planview.plan.steps import StepUpdate, StepUpdateError, extract_steps, set_steps

PLAN = """\
# Plan

## Context

- prose bullet that is not a step

## Steps

1. [ ] Add **user_id** to `snake_case.py`
   - read the schema
     - [x] deeper note
2. [x] Write the migration
3. [X] Backfill
4. Ship it [DONE:4]
5. No checkbox here

## Risks

- a risk
"""


def texts(text: str) -> list[str]:
    return [s.text for s in extract_steps(text).steps]


def test_steps_are_the_top_level_items_of_the_steps_section():
    steps = extract_steps(PLAN)
    assert steps.source == "steps_section" and steps.section_title == "Steps"
    assert [s.text for s in steps.steps] == [
        "Add user_id to snake_case.py",
        "Write the migration",
        "Backfill",
        "Ship it",
        "No checkbox here",
    ]
    assert [s.index for s in steps.steps] == [1, 2, 3, 4, 5]
    assert [s.line for s in steps.steps] == [9, 12, 13, 14, 15]


def test_checkbox_states_and_done_markers():
    steps = extract_steps(PLAN).steps
    assert [s.completed for s in steps] == [False, True, True, True, False]
    assert [s.has_checkbox for s in steps] == [True, True, True, False, False]
    assert (extract_steps(PLAN).done, extract_steps(PLAN).total) == (3, 5)


def test_nested_items_are_notes_never_steps():
    first = extract_steps(PLAN).steps[0]
    assert first.notes == ("read the schema", "[x] deeper note")


@pytest.mark.parametrize(
    "heading",
    [
        "## Steps",
        "### steps",
        "# STEPS",
        "## 4. Steps:",
        "## **Steps**",
        "## ✅ Steps",
        "## Steps (in order)",
        "## IV. Steps",
    ],
)
def test_steps_heading_any_level_case_numbering_and_markup(heading):
    text = f"# T\n\n- not a step\n\n{heading}\n\n- [ ] real\n"
    assert texts(text) == ["real"]


def test_qualified_steps_heading_is_used_when_there_is_no_plain_one():
    text = "# T\n\n- prose\n\n## Implementation Steps\n\n1. build\n2. test\n"
    assert texts(text) == ["build", "test"]
    both = "## Implementation Steps\n\n- no\n\n## Steps\n\n- yes\n"
    assert texts(both) == ["yes"]


@pytest.mark.parametrize(
    "heading", ["## Next steps after launch", "## Stepson", "## Step 1: Setup", "## Footsteps of giants"]
)
def test_other_titles_are_not_the_steps_heading(heading):
    assert extract_steps(f"{heading}\n\n- item\n").source == "shallowest_list"


def test_steps_section_includes_its_subsections_but_stops_at_a_sibling():
    text = "## Steps\n\n### Phase 1\n\n- a\n\n### Phase 2\n\n- b\n\n## Risks\n\n- r\n"
    assert texts(text) == ["a", "b"]


def test_bullet_kinds_and_ordered_markers():
    text = "## Steps\n- dash\n\n* star\n\n+ plus\n\n1. dot\n\n1) paren\n"
    assert texts(text) == ["dash", "star", "plus", "dot", "paren"]


def test_items_in_code_fences_are_ignored():
    text = "## Steps\n\n- [ ] real\n\n```md\n- [ ] fake\n```\n~~~\n1. fake too\n~~~\n"
    assert texts(text) == ["real"]


def test_unterminated_fence_hides_later_items():
    assert texts("## Steps\n- a\n```\n- b\n") == ["a"]


def test_markup_is_stripped_without_damaging_identifiers():
    text = "## Steps\n- **Bold** _it_ *em* `code_span` [link](http://x) user_id snake_case.py 2*3*4\n"
    assert texts(text) == ["Bold it em code_span link user_id snake_case.py 2*3*4"]


@pytest.mark.parametrize(
    "raw, text",
    [
        ("edit planview/plan/__init__.py", "edit planview/plan/__init__.py"),
        ("__init__.py and __main__.py", "__init__.py and __main__.py"),
        ("multiply 2*3*4", "multiply 2*3*4"),
        ("see *this*.", "see this."),
        ("_two words_ and __strong__", "two words and strong"),
        ("`__init__` <https://x.io/a_b_c.py>", "__init__ https://x.io/a_b_c.py"),
        ("escaped \\*star\\* &amp; Vec<T>", "escaped *star* & Vec<T>"),
        ("![alt text](img.png) done", "alt text done"),
    ],
)
def test_markup_stripping_cases(raw, text):
    assert texts(f"## Steps\n- {raw}\n") == [text]


def test_multi_line_step_text_is_joined():
    assert texts("## Steps\n- first line\n  second line\n") == ["first line second line"]


def test_long_step_keeps_full_text_and_a_200_char_display():
    long = "word " * 100
    step = extract_steps(f"## Steps\n- {long}\n").steps[0]
    assert step.text == long.strip()
    assert len(step.display) == 200 and step.display.endswith("…")
    assert step.text.startswith(step.display[:-1])
    short = extract_steps("## Steps\n- short\n").steps[0]
    assert short.display == "short"


def test_nothing_is_capped():
    items = "".join(f"- [ ] step {i}\n" for i in range(500))
    assert extract_steps("## Steps\n" + items).total == 500


def test_fallback_is_the_shallowest_list_without_a_steps_heading():
    text = "# T\n\nIntro.\n\n1. first\n   - note\n2. second\n\n## More\n\n- third\n"
    steps = extract_steps(text)
    assert steps.source == "shallowest_list" and steps.section_title is None
    assert [s.text for s in steps.steps] == ["first", "second", "third"]
    assert steps.steps[0].notes == ("note",)


def test_fallback_prefers_task_lists_over_prose_bullets():
    text = "# T\n\n- prose\n- more prose\n\n## Work\n\n- [ ] do a\n- do b\n- [x] do c\n"
    assert texts(text) == ["do a", "do b", "do c"]


def test_fallback_uses_nested_task_lists_when_only_they_have_checkboxes():
    text = "- Task 1\n  - [ ] crit a\n  - [x] crit b\n- Task 2\n  - [ ] crit c\n"
    steps = extract_steps(text).steps
    assert [s.text for s in steps] == ["crit a", "crit b", "crit c"]


def test_steps_section_without_items_does_not_fall_back():
    steps = extract_steps("- elsewhere\n\n## Steps\n\nTo be decided.\n")
    assert steps.steps == () and steps.source == "steps_section"


def test_no_lists_at_all():
    steps = extract_steps("# Title\n\nJust prose.\n")
    assert steps.steps == () and steps.source == "none"


def test_other_bracket_states_are_not_checkboxes():
    # `[~]` is the in-progress checkbox (tests/test_plan_progress_marker.py); `[-]` and `[/]` stay text.
    step = extract_steps("## Steps\n- [-] cancelled\n").steps[0]
    assert (step.has_checkbox, step.completed, step.text) == (False, False, "[-] cancelled")


def test_ordered_list_starting_at_two_and_lazy_lines():
    steps = extract_steps("## Steps\n2. two\nlazy\n3. three\n").steps
    assert [s.text for s in steps] == ["two lazy", "three"]


def test_steps_inside_a_quote_when_that_is_the_shallowest_list():
    steps = extract_steps("## Steps\n> - [ ] quoted\n> - [x] done\n").steps
    assert [(s.text, s.completed) for s in steps] == [("quoted", False), ("done", True)]


# --- set_steps ---------------------------------------------------------------------------------


def test_set_steps_changes_only_the_checkbox_characters():
    new = set_steps(PLAN, [{"step": 1, "status": "completed"}, {"step": 2, "status": "pending"}])
    expected = PLAN.replace("1. [ ] Add", "1. [x] Add").replace("2. [x] Write", "2. [ ] Write")
    assert new == expected
    assert [s.completed for s in extract_steps(new).steps] == [True, False, True, True, False]


def test_set_steps_leaves_matching_state_alone_including_capital_x():
    assert set_steps(PLAN, [StepUpdate(3, "completed")]) == PLAN


def test_reopening_drops_the_done_marker():
    new = set_steps(PLAN, [StepUpdate(4, "pending")])
    assert "4. [ ] Ship it\n" in new
    assert "[DONE:4]" not in new
    assert new.replace("4. [ ] Ship it\n", "4. Ship it [DONE:4]\n") == PLAN


def test_a_step_without_a_checkbox_gains_one():
    new = set_steps(PLAN, [StepUpdate(5, "completed")])
    assert new == PLAN.replace("5. No checkbox here", "5. [x] No checkbox here")
    step = extract_steps(new).steps[4]
    assert step.has_checkbox and step.completed and step.text == "No checkbox here"
    pending = set_steps("- bare\n", [StepUpdate(1, "pending")])
    assert pending == "- [ ] bare\n"


def test_text_on_the_line_below_the_marker_gets_the_checkbox_on_the_marker_line():
    new = set_steps("## Steps\n-\n  text below\n", [StepUpdate(1, "completed")])
    assert new == "## Steps\n- [x]\n  text below\n"
    step = extract_steps(new).steps[0]
    assert (step.text, step.completed, step.has_checkbox) == ("text below", True, True)


def test_an_empty_step_cannot_gain_a_checkbox():
    # Giving it content would pull the next lines into it and change the plan's structure.
    with pytest.raises(StepUpdateError, match="step 1 starts with nothing"):
        set_steps("## Steps\n-\nTitle\n-\n", [StepUpdate(1, "completed")])


def test_crlf_is_preserved():
    text = PLAN.replace("\n", "\r\n")
    new = set_steps(text, [StepUpdate(1, "completed"), StepUpdate(4, "pending"), StepUpdate(5, "completed")])
    assert "\r\n" in new and new.count("\n") == text.count("\n") == new.count("\r\n")
    assert new.replace("\r\n", "\n") == set_steps(
        PLAN, [StepUpdate(1, "completed"), StepUpdate(4, "pending"), StepUpdate(5, "completed")]
    )


def test_quoted_step_is_edited_in_place():
    assert set_steps("## Steps\n> - [ ] q\n", [StepUpdate(1, "completed")]) == "## Steps\n> - [x] q\n"


def test_out_of_range_refuses_everything_and_names_the_step():
    with pytest.raises(StepUpdateError) as caught:
        set_steps(PLAN, [StepUpdate(1, "completed"), StepUpdate(9, "completed")])
    assert "step 9" in str(caught.value) and "5 steps" in str(caught.value)
    assert caught.value.steps == (9,)
    assert isinstance(caught.value, PlanviewError)


def test_expected_text_mismatch_refuses_everything():
    with pytest.raises(StepUpdateError, match=r"step 2 no longer matches.*Write the migration"):
        set_steps(PLAN, [StepUpdate(1, "completed"), StepUpdate(2, "pending", expected="Something else")])


def test_expected_text_matches_modulo_markup_case_and_whitespace():
    new = set_steps(PLAN, [StepUpdate(1, "completed", expected="Add **user_id**  to `snake_case.py`")])
    assert extract_steps(new).steps[0].completed
    display = extract_steps(f"## Steps\n- {'x' * 300}\n").steps[0].display
    assert set_steps(f"## Steps\n- {'x' * 300}\n", [StepUpdate(1, "completed", expected=display)])


def test_no_steps_at_all_is_out_of_range():
    with pytest.raises(StepUpdateError, match="no steps"):
        set_steps("# Plan\n\nprose\n", [StepUpdate(1, "completed")])


@pytest.mark.parametrize(
    "update, message",
    [
        ({"step": 1, "status": "done"}, "status must be"),
        ({"step": "one", "status": "completed"}, "step must be"),
        ({"step": True, "status": "completed"}, "step must be"),
        ({"status": "completed"}, "step must be"),
        ({"step": 1, "status": "completed", "expected": 3}, "expected must be"),
        ("nonsense", "must be an object"),
    ],
)
def test_malformed_updates_are_refused(update, message):
    with pytest.raises(StepUpdateError, match=message):
        set_steps(PLAN, [update])


def test_conflicting_updates_for_one_step_are_refused():
    with pytest.raises(StepUpdateError, match="both pending and completed"):
        set_steps(PLAN, [StepUpdate(1, "completed"), StepUpdate(1, "pending")])


def test_numeric_string_step_and_single_mapping_are_accepted():
    new = set_steps(PLAN, {"step": "1", "status": "completed"})
    assert extract_steps(new).steps[0].completed


def test_no_updates_returns_the_text_unchanged():
    assert set_steps(PLAN, []) is PLAN


def test_step_starting_with_a_fence_cannot_gain_a_checkbox():
    text = "## Steps\n- ```sh\n  make\n  ```\n- [ ] fine\n"
    with pytest.raises(StepUpdateError, match="step 1 starts with a code fence"):
        set_steps(text, [StepUpdate(2, "completed"), StepUpdate(1, "completed")])
    # A step that already has a checkbox can always be ticked.
    assert "- [x] fine" in set_steps(text, [StepUpdate(2, "completed")])


def test_reopening_removes_a_marker_only_continuation_line():
    text = "## Steps\n- first line\n  [DONE:1]\n  more\n- next\n"
    assert extract_steps(text).steps[0].completed
    new = set_steps(text, [StepUpdate(1, "pending")])
    assert new == "## Steps\n- [ ] first line\n  more\n- next\n"
    assert [s.completed for s in extract_steps(new).steps] == [False, False]


def test_ticking_a_step_of_a_plan_without_steps_section_or_checklist_keeps_every_step() -> None:
    # Fallback plans use every top-level list; a first box in one list must not make it the only one.
    text = "# Plan\n\n## Problem\n\n- slow start\n- no cache\n\n## Solution\n\n- add a cache\n- warm it\n"
    before = extract_steps(text)
    assert before.source == "shallowest_list" and before.total == 4
    edited = set_steps(text, [StepUpdate(4, "completed")])
    after = extract_steps(edited)
    assert [s.text for s in after.steps] == [s.text for s in before.steps]
    assert [s.status for s in after.steps] == ["pending", "pending", "pending", "completed"]
    assert canonical_sha256(edited) == canonical_sha256(text)
    # Step numbers stay valid for the next update.
    again = extract_steps(set_steps(edited, [StepUpdate(1, "in_progress")]))
    assert [s.status for s in again.steps] == ["in_progress", "pending", "pending", "completed"]


@pytest.mark.parametrize("marker", ["1.", "-"])
def test_box_after_five_spaces_is_code_text_not_a_checkbox(marker: str) -> None:
    # CommonMark: 5+ spaces after the marker start indented code, which the canonical hash keeps
    # verbatim; flipping that "[x]" would make a tick invalidate the plan's approval.
    text = f"## Steps\n{marker}     [x] a\n"
    (step,) = extract_steps(text).steps
    assert not step.has_checkbox and step.status == "pending"
    with pytest.raises(StepUpdateError, match="indented code"):
        set_steps(text, [StepUpdate(1, "pending")])
