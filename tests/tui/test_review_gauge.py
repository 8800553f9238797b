"""Gauge, scroll row and footer hints: pure text fitting."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.tui.review import gauge, hints
from planview.tui.review.text import is_empty_plan, plan_label


def test_gauge_reads_like_the_reference() -> None:
    assert gauge.gauge_text(40, 28, 1512) == "lines 41–68 of 1,512 (3%)"


def test_percent_is_zero_only_at_top_and_hundred_only_at_the_end() -> None:
    assert gauge.percent(0, 20, 100) == 0
    assert gauge.percent(80, 20, 100) == 100
    assert gauge.percent(1, 20, 10_000) == 1  # one line down is not "0%"
    assert gauge.percent(79, 20, 10_000) == 1
    assert gauge.percent(9_979, 20, 10_000) == 99  # not yet at the end
    assert gauge.percent(0, 20, 10) == 100  # everything is visible


def test_scroll_row_drops_the_range_first_then_shortens_the_section() -> None:
    wide = gauge.scroll_row("Rollout plan", True, 40, 28, 1512, 80)
    assert wide.section == "§ Rollout plan · changed" and wide.gauge == "lines 41–68 of 1,512 (3%)"
    assert len(wide.text) == 80
    mid = gauge.scroll_row("Rollout plan", True, 40, 28, 1512, 40)
    assert mid.section == "§ Rollout plan · changed" and mid.gauge == "3%"
    narrow = gauge.scroll_row("Rollout plan and everything after it", False, 40, 28, 1512, 24)
    assert narrow.gauge == "3%" and narrow.section.endswith("…") and len(narrow.text) <= 24
    alone = gauge.scroll_row(None, False, 40, 28, 1512, 40)
    assert alone.section == "" and alone.gauge == "lines 41–68 of 1,512 (3%)"


@pytest.mark.parametrize("width", [40, 58, 80, 120, 17, 5, 3])
def test_hints_are_whole_and_keep_the_way_out_and_the_key_list(width: int) -> None:
    specs = hints.REVIEW_HINTS
    text = hints.hints_text(specs, width)
    assert len(text) <= width
    assert text.startswith("Esc")  # the safe exit always survives
    shown, separator = hints.fit(specs, width)
    full, short = {(s[0], s[1]) for s in specs}, {(s[0], s[2]) for s in specs}
    assert all(h in full for h in shown) or all(h in short for h in shown) or len(shown) == 1
    keys = [k for k, _ in shown]
    assert keys == [s[0] for s in specs if s[0] in keys]  # priority order kept
    if len(shown) >= 2:
        assert keys[-1] == "?"  # it reveals the rest, so it stays whenever two hints fit


def test_hints_at_common_widths() -> None:
    full = (
        "Esc keep planning   a approve & run   r refine   n/p section   w web   / search   o outline   ? keys"
    )
    assert hints.hints_text(hints.REVIEW_HINTS, 118) == full
    short = "Esc keep  a approve  r refine  n/p  w web  / search  o outline  ? keys"
    assert hints.hints_text(hints.REVIEW_HINTS, 78) == short
    assert hints.hints_text(hints.REVIEW_HINTS, 58) == "Esc keep  a approve  r refine  n/p  w web  ? keys"
    assert hints.hints_text(hints.REVIEW_HINTS, 38) == "Esc keep  a approve  r refine  ? keys"
    assert hints.hints_text(hints.EDITOR_HINTS, 38) == "Esc back  Enter send  Ctrl+J newline"
    assert hints.hints_text(hints.REVIEW_HINTS, 18) == "Esc keep  ? keys"
    assert hints.hints_text(hints.REVIEW_HINTS, 10) == "Esc keep"


def test_empty_plan_and_label_rules() -> None:
    assert is_empty_plan("") and is_empty_plan("  \n\n") and is_empty_plan("<!-- nothing\n- here -->\n")
    assert not is_empty_plan("# Title\n")
    assert plan_label(Path("plans/2026-01-14-1030-add-rate-limiting.md")) == "add-rate-limiting"
    assert plan_label(Path("notes.md")) == "notes"
