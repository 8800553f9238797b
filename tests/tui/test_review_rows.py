"""The rows around the review body, as pure functions of width (title, summary, scroll row, hints)."""

from __future__ import annotations

from rich.style import Style

from planview.plan.diff import changed_sections
from planview.tui.review import gauge, hints, rows


def test_title_row_shows_the_path_only_when_both_fit() -> None:
    assert rows.title_row("Plan", "plans/p.md", 40).plain == "Plan" + " " * 26 + "plans/p.md"
    assert rows.title_row("Plan", "plans/p.md", 16).plain == "Plan"  # 4 + 3 gap + 10 > 16
    assert rows.title_row("A long title here", "x.md", 10).cell_len <= 10


def test_summary_counts_changed_and_removed_sections() -> None:
    before = "# T\n\n## A\n\none\n\n## B\n\ntwo\n\n## C\n\nthree\n"
    after = "# T\n\n## A\n\nONE\n\n## C\n\nthree\n"
    diff = changed_sections(before, after)
    assert rows.summary_text(diff, 3) == "1 of 3 sections changed since your last review · 1 section removed"
    assert rows.summary_text(changed_sections(after, after), 3) == ""


def test_scroll_row_colours_only_the_changed_mark() -> None:
    fitted = gauge.scroll_row("Risks", True, 0, 10, 100, 60)
    text = rows.scroll_row(fitted, "#ff0000")
    assert text.plain.startswith("§ Risks · changed") and text.plain.endswith(fitted.gauge)
    assert len(text.plain) == 60
    mark = text.plain.index("· changed")
    red = [s for s in text.spans if s.style == "#ff0000"]
    assert [(s.start, s.end) for s in red] == [(mark, mark + len("· changed"))]


def test_hint_row_is_hints_text_with_theme_colours() -> None:
    for width in (10, 40, 80):
        row = rows.hint_row(hints.REVIEW_HINTS, width, {"success": "#00ff00", "accent": "#0000ff"})
        assert row.plain == hints.hints_text(hints.REVIEW_HINTS, width)
    row = rows.hint_row(hints.REVIEW_HINTS, 80, {"success": "#00ff00", "accent": "#0000ff"})
    styles = {row.plain[s.start : s.end]: s.style for s in row.spans}
    assert Style.parse(styles["a"]).color.name == "#00ff00"
    assert Style.parse(styles["r"]).color.name == "#0000ff"


def test_summary_gives_way_at_narrow_widths() -> None:
    text = "2 of 8 sections changed since your last review"
    assert rows.fit_summary(text, 80) == text
    assert rows.fit_summary(text, 38) == "2 of 8 sections changed"  # at 40 columns it was cut mid-phrase
    assert rows.fit_summary(text, 12) == "2 of 8 sect…"
    both = "1 of 3 sections changed since your last review · 1 section removed"
    assert rows.fit_summary(both, 50) == "1 of 3 sections changed · 1 section removed"
