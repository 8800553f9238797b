"""The in-progress checkbox `- [~]`: steps, editing, the canonical hash, rendering, todo seeding, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from planview.cli import main
from planview.plan.canonical import canonical_sha256, canonical_text
from planview.plan.document import parse_plan
from planview.plan.steps import Step, StepUpdate, StepUpdateError, extract_steps, set_steps
from planview.session.events import Todo
from planview.session.todos import StepSeed, merge_steps
from planview.tui.review.render import TASK_MARKERS, RenderTheme, SectionRenderer, strip_text
from planview.tui.widgets.todos import render_todos

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
THEME = RenderTheme()

STEPS_020 = [
    ("prd (completed: 2026-01-22)", "completed"),
    ("research (started: 2026-01-22)", "in_progress"),
    ("tasks", "pending"),
    ("arquitetura", "pending"),
    ("implementacao", "pending"),
    ("qa", "pending"),
    ("docs", "pending"),
    ("finish", "pending"),
]


def plan_020(corpus: list[Path]) -> tuple[Path, str]:
    matches = [p for p in corpus if p.name.startswith("020-")]
    if not matches:
        pytest.skip("corpus plan 020-* not present")
    with open(matches[0], encoding="utf-8", newline="") as handle:
        return matches[0], handle.read()


def byte_diff(a: str, b: str) -> list[tuple[int, str, str]]:
    assert len(a) == len(b)
    return [(i, x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]


# -- steps ----------------------------------------------------------------------------------------


def test_corpus_020_has_one_completed_one_in_progress_and_six_pending(corpus: list[Path]) -> None:
    _, text = plan_020(corpus)
    found = extract_steps(text)
    assert found.source == "steps_section" and found.total == 8 and found.done == 1
    assert [(s.text, s.status) for s in found.steps] == STEPS_020
    assert [s.completed for s in found.steps] == [True] + [False] * 7
    assert all(s.has_checkbox for s in found.steps)
    assert found.steps[1].display == "research (started: 2026-01-22)"


@pytest.mark.parametrize(
    ("line", "status", "completed"),
    [
        ("- [ ] a", "pending", False),
        ("- [~] a", "in_progress", False),
        ("- [x] a", "completed", True),
        ("- [X] a", "completed", True),
        ("1. [~] a", "in_progress", False),
        ("> - [~] a", "in_progress", False),
        ("- [~] a [DONE:3]", "completed", True),  # a DONE marker wins over the box
    ],
)
def test_box_states(line: str, status: str, completed: bool) -> None:
    step = extract_steps(f"## Steps\n{line}\n").steps[0]
    assert (step.status, step.completed, step.text, step.has_checkbox) == (status, completed, "a", True)


@pytest.mark.parametrize("line", ["- [-] a", "- [/] a", "- [~]a", "- [~~] a", "- [ ~] a"])
def test_other_brackets_stay_in_the_text(line: str) -> None:
    step = extract_steps(f"## Steps\n{line}\n").steps[0]
    assert (step.status, step.has_checkbox) == ("pending", False)
    assert step.text == line[2:]


def test_a_list_of_in_progress_items_is_a_task_list_in_the_fallback() -> None:
    text = "# Plan\n\n- context\n- more context\n\nThen:\n\n1. [~] started\n2. next\n"
    found = extract_steps(text)
    assert found.source == "shallowest_list"
    assert [(s.text, s.status) for s in found.steps] == [("started", "in_progress"), ("next", "pending")]


def test_step_keeps_completed_and_status_in_agreement() -> None:
    base = {"index": 1, "text": "t", "display": "t", "has_checkbox": True, "line": 1, "notes": ()}
    assert Step(**base, completed=True).status == "completed"
    assert Step(**base, completed=False).status == "pending"
    assert Step(**base, completed=False, status="completed").completed is True
    assert Step(**base, completed=False, status="in_progress").completed is False


# -- set_steps ------------------------------------------------------------------------------------


def test_set_steps_on_020_changes_exactly_the_state_byte(corpus: list[Path]) -> None:
    _, text = plan_020(corpus)
    at = text.index("[~]") + 1
    done = set_steps(text, [{"step": 2, "status": "completed", "expected": "research (started: 2026-01-22)"}])
    assert byte_diff(text, done) == [(at, "~", "x")]
    reopened = set_steps(text, [StepUpdate(2, "pending")])
    assert byte_diff(text, reopened) == [(at, "~", " ")]
    assert set_steps(text, [StepUpdate(2, "in_progress")]) == text  # already in progress
    started = set_steps(text, [StepUpdate(3, "in_progress")])
    assert byte_diff(text, started) == [(text.index("- [ ] **tasks**") + 3, " ", "~")]
    again = set_steps(done, [StepUpdate(2, "in_progress")])
    assert again == text
    assert [s.status for s in extract_steps(started).steps][:3] == ["completed", "in_progress", "in_progress"]


def test_set_steps_keeps_crlf_and_capital_x() -> None:
    text = "## Steps\r\n- [~] one\r\n- [X] two\r\n- three\r\n"
    new = set_steps(
        text, [StepUpdate(1, "completed"), StepUpdate(2, "completed"), StepUpdate(3, "in_progress")]
    )
    assert new == "## Steps\r\n- [x] one\r\n- [X] two\r\n- [~] three\r\n"
    assert [s.status for s in extract_steps(new).steps] == ["completed", "completed", "in_progress"]


def test_in_progress_drops_done_markers() -> None:
    text = "## Steps\n- [x] build it [DONE:1]\n- [ ] next\n"
    new = set_steps(text, [StepUpdate(1, "in_progress")])
    assert new == "## Steps\n- [~] build it\n- [ ] next\n"
    assert extract_steps(new).steps[0].status == "in_progress"


def test_bad_status_names_the_three_choices_and_conflicts_are_refused() -> None:
    text = "## Steps\n- [~] one\n"
    with pytest.raises(StepUpdateError, match="'pending', 'in_progress' or 'completed'"):
        set_steps(text, [{"step": 1, "status": "started"}])
    with pytest.raises(StepUpdateError, match="both in_progress and completed"):
        set_steps(text, [StepUpdate(1, "completed"), StepUpdate(1, "in_progress")])


def test_expected_text_matches_with_or_without_the_marker() -> None:
    text = "## Steps\n- [~] **research**\n"
    assert (
        set_steps(text, [StepUpdate(1, "completed", expected="[~] research")])
        == "## Steps\n- [x] **research**\n"
    )
    assert (
        set_steps(text, [StepUpdate(1, "completed", expected="research")]) == "## Steps\n- [x] **research**\n"
    )


# -- canonical hash -------------------------------------------------------------------------------


def test_corpus_020_hash_is_the_same_for_every_state_of_every_step(corpus: list[Path]) -> None:
    _, text = plan_020(corpus)
    base = canonical_sha256(text)
    for status in ("pending", "in_progress", "completed"):
        updated = set_steps(text, [StepUpdate(n, status) for n in range(1, 9)])
        assert canonical_sha256(updated) == base, status
    assert "[~]" not in canonical_text(text)


@pytest.mark.parametrize("box", ["[ ]", "[~]", "[x]", "[X]"])
def test_hash_ignores_the_box_state(box: str) -> None:
    assert canonical_sha256(f"# P\n\n- {box} step\n1. {box} other\n") == canonical_sha256(
        "# P\n\n- step\n1. other\n"
    )


def test_hash_still_sees_text_brackets_and_code() -> None:
    plain = canonical_sha256("# P\n\n- [ ] step\n")
    assert canonical_sha256("# P\n\n- [-] step\n") != plain
    assert canonical_sha256("# P\n\n- [/] step\n") != plain
    assert canonical_sha256("# P\n\n- step [~] later\n") != plain
    fenced = "# P\n\n```\n- [~] literal\n```\n"
    assert canonical_sha256(fenced) != canonical_sha256(fenced.replace("[~]", "[ ]"))


# -- rendering ------------------------------------------------------------------------------------


def lines_of(text: str, width: int = 80) -> list:
    renderer = SectionRenderer()
    return [line for s in parse_plan(text).sections for line in renderer.render(s.text, width, THEME).lines]


def test_markers_are_single_width_and_distinct() -> None:
    assert len(set(TASK_MARKERS.values())) == 3
    assert all(cell_len(marker) == 1 for marker in TASK_MARKERS.values())


def test_in_progress_items_render_with_their_own_marker(corpus: list[Path]) -> None:
    _, text = plan_020(corpus)
    plain = [strip_text(line) for line in lines_of(text)]
    assert "◧ research (started: 2026-01-22)" in plain
    assert "◼ prd (completed: 2026-01-22)" in plain and "◻ tasks" in plain
    assert not any("[~]" in line for line in plain)


def test_in_progress_marker_has_its_own_style_and_works_in_ordered_lists() -> None:
    strips = lines_of("# Steps\n\n1. [~] started\n2. [ ] waiting\n")
    plain = [strip_text(s) for s in strips]
    assert "1. ◧ started" in [p.strip() for p in plain]
    styles = {}
    for strip in strips:
        for segment in strip:
            if segment.text.strip() in ("◧", "◻"):
                styles[segment.text.strip()] = segment.style
    assert styles["◧"] != styles["◻"]


def test_todo_panel_marks_in_progress_items() -> None:
    text = render_todos((Todo("a", "completed"), Todo("b", "in_progress"), Todo("c"))).plain
    assert text.splitlines()[1:] == ["◼ a", "◧ b", "◻ c"]


# -- todo seeding ---------------------------------------------------------------------------------


def test_in_progress_step_seeds_an_in_progress_todo(corpus: list[Path]) -> None:
    _, text = plan_020(corpus)
    seeds = [StepSeed.from_step(s) for s in extract_steps(text).steps]
    result = merge_steps((), seeds)
    assert [(t.text, t.status) for t in result.todos] == STEPS_020


def test_seed_status_rules() -> None:
    assert StepSeed("a").todo_status == "pending"
    assert StepSeed("a", completed=True).todo_status == "completed"
    assert StepSeed("a", status="in_progress").todo_status == "in_progress"
    assert StepSeed("a", True, "in_progress").todo_status == "completed"
    existing = (Todo("research", "pending"),)  # an existing item keeps its status
    merged = merge_steps(
        existing, [StepSeed("Research", status="in_progress"), StepSeed("b", status="in_progress")]
    )
    assert merged.todos == (Todo("research", "pending"), Todo("b", "in_progress"))


# -- CLI ------------------------------------------------------------------------------------------


def test_steps_command_shows_the_tilde_box(corpus: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = plan_020(corpus)
    assert main(["steps", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == [
        "[x] 1. prd (completed: 2026-01-22)",
        "[~] 2. research (started: 2026-01-22)",
        "[ ] 3. tasks",
    ]
    assert main(["steps", str(path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["text"], r["status"]) for r in rows] == STEPS_020
    assert [r["completed"] for r in rows] == [True] + [False] * 7


# -- properties -----------------------------------------------------------------------------------

FRAGMENTS = [
    "# Title",
    "## Steps",
    "## Goal",
    "",
    "",
    "para with _emphasis_ and user_id",
    "- [ ] pending step",
    "- [~] started step",
    "- [x] done step",
    "* [X] done too",
    "+ plain bullet",
    "1. [~] numbered start",
    "2) [ ] second",
    "10. [DONE:3] marked",
    "- [~] marked [DONE:2]",
    "- [-] cancelled elsewhere",
    "- [/] half done elsewhere",
    "  - [~] nested note",
    "   continued text",
    "-",
    "- [~]",
    "```",
    "~~~",
    "> - [~] quoted item",
    "> [!REVIEW] a comment",
    "\t- [~] tab item",
    "- # heading item",
]

markdownish = (
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)), max_size=25)
    .flatmap(lambda lines: st.tuples(st.just(lines), st.sampled_from(["\n", "\r\n"]), st.booleans()))
    .map(lambda t: t[1].join(t[0]) + (t[1] if t[2] and t[0] else ""))
)


@FAST
@given(markdownish, st.data())
def test_three_state_round_trip(text: str, data: st.DataObject) -> None:
    before = extract_steps(text).steps
    assume(before)
    statuses = ("pending", "in_progress", "completed")
    wanted = data.draw(st.lists(st.sampled_from(statuses), min_size=len(before), max_size=len(before)))
    updates = [StepUpdate(s.index, w) for s, w in zip(before, wanted, strict=True)]
    try:
        new = set_steps(text, updates)
    except StepUpdateError as refused:
        assert "cannot take a checkbox" in str(refused)
        return
    after = extract_steps(new).steps
    assert [s.status for s in after] == wanted
    assert [s.completed for s in after] == [w == "completed" for w in wanted]
    assert [s.text for s in after] == [s.text for s in before]
    assert set_steps(new, updates) == new  # idempotent
    assert canonical_sha256(new) == canonical_sha256(text)
    assert new.count("\r\n") == text.count("\r\n")
