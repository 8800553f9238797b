"""Pure fitting rules of the review renderer: table column widths and CJK wrapping."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from planview.tui.review.fit import fit_columns, wrap_wide


@given(st.lists(st.integers(1, 80), min_size=1, max_size=8), st.integers(1, 200))
def test_columns_fit_the_room_and_never_grow(natural: list[int], available: int) -> None:
    widths = fit_columns(natural, available)
    assert len(widths) == len(natural)
    assert all(1 <= w <= max(n, 1) for w, n in zip(widths, natural, strict=True))
    if available >= len(natural):
        assert sum(widths) <= available


def test_the_widest_column_gives_way_first() -> None:
    assert fit_columns([5, 40, 10], 35) == [5, 20, 10]
    assert fit_columns([5, 10], 40) == [5, 10]


def test_wide_text_breaks_between_characters_within_the_width() -> None:
    lines = wrap_wide(Text("計画を確認してから実行します。 then ascii words"), 10)
    assert all(line.cell_len <= 10 for line in lines)
    assert (
        "".join(line.plain for line in lines).replace(" ", "")
        == "計画を確認してから実行します。thenasciiwords"
    )


def test_closing_punctuation_never_starts_a_line() -> None:
    for width in range(4, 16):
        lines = wrap_wide(Text("新規、移動。次（設定）を確認してください、完了。"), width)
        assert all(line.cell_len <= width for line in lines)
        assert not any(line.plain[:1] in "、。）" for line in lines), (width, [x.plain for x in lines])


def test_small_kana_never_starts_a_line() -> None:
    for width in range(6, 20):  # from 6: "シャッ" is one 6-cell unit, folded when the line is narrower
        lines = wrap_wide(Text("エージェント設定とドキュメントのみ。シャッター"), width)
        assert not any(line.plain[:1] in "ュャッ" for line in lines), (width, [x.plain for x in lines])
