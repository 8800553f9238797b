"""The lazy layout (only recently drawn sections kept in memory) draws exactly what the eager one did."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from planview.plan.document import parse_plan
from planview.tui.review import lines as lines_module
from planview.tui.review.lines import LaidOutLines
from planview.tui.review.render import SectionRenderer
from planview.tui.review.theme import RenderTheme

WIDTHS = (38, 100)


def laid_out(text: str, width: int) -> LaidOutLines:
    document = parse_plan(text)
    out = LaidOutLines(width, [s.start for s in document.sections])
    out.add(
        document.sections, SectionRenderer(max_lines=5), RenderTheme(), False, count=len(document.sections)
    )
    return out


def drawn(out: LaidOutLines, order: list[int]) -> dict[int, tuple[str, int, tuple]]:
    rows = {}
    for i in order:
        strip = out.strips[i]
        rows[i] = (out.line_text(i), out.sources[i], tuple((s.text, s.style) for s in strip))
    return rows


def eager_and_lazy(text: str, width: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines_module, "WINDOW_LINES", 10**9)
    eager = laid_out(text, width)
    expected = drawn(eager, list(range(eager.total)))
    monkeypatch.setattr(lines_module, "WINDOW_LINES", 40)
    lazy = laid_out(text, width)
    assert (lazy.total, lazy.starts) == (eager.total, eager.starts)
    # Read back to front, then in jumps (G, g, a search): sections leave the window and are drawn again.
    jumps = list(range(0, lazy.total, 97))
    random.Random(width).shuffle(jumps)
    assert drawn(lazy, list(reversed(range(lazy.total)))) == expected
    assert drawn(lazy, jumps) == {i: expected[i] for i in jumps}
    biggest = max((lazy.section_length(k) for k in range(lazy.done)), default=0)
    assert lazy._window_lines <= 40 + biggest  # memory follows the window, not the plan


@pytest.mark.parametrize("width", WIDTHS)
def test_lazy_layout_matches_the_eager_one_on_the_samples(
    width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in sorted((Path(__file__).resolve().parents[2] / "plans").glob("*.md")):
        eager_and_lazy(path.read_text(encoding="utf-8"), width, monkeypatch)


@pytest.mark.parametrize("width", WIDTHS)
def test_lazy_layout_matches_the_eager_one_on_the_corpus(
    width: int, corpus: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in corpus:
        eager_and_lazy(path.read_text(encoding="utf-8"), width, monkeypatch)


def test_a_plan_that_fits_has_no_trailing_gap_line_even_when_drawn_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lines_module, "WINDOW_LINES", 1)
    out = laid_out("# Plan\n\nOne.\n\n## Two\n\nTwo.\n", 80)
    assert [out.line_text(i) for i in range(out.total)] == ["Plan", "", "One.", "", "Two", "", "Two."]
    assert out.line_text(out.total - 1) == "Two." and out.line_text(0) == "Plan"
