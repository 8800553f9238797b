"""The review body's Markdown renderer: widths, markers, highlighting, sanitising, caching."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.plan.document import parse_plan
from planview.tui.review.render import RenderTheme, SectionRenderer, strip_text

THEME = RenderTheme()
CONTROL = {chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)]}


def render_all(text: str, width: int, renderer: SectionRenderer | None = None) -> list:
    renderer = renderer or SectionRenderer()
    return [line for s in parse_plan(text).sections for line in renderer.render(s.text, width, THEME).lines]


def lines_of(text: str, width: int = 80) -> list[str]:
    return [strip_text(line) for line in render_all(text, width)]


@pytest.mark.parametrize("width", [40, 80, 120])
def test_every_corpus_plan_fits_the_width(corpus: list[Path], width: int) -> None:
    renderer = SectionRenderer()
    for path in corpus:
        text = path.read_text(encoding="utf-8")
        lines = render_all(text, width, renderer)
        assert lines, path.name
        too_wide = [(path.name, strip_text(s)) for s in lines if s.cell_length > width]
        assert not too_wide, too_wide[:3]


def test_narrow_widths_never_overflow_tables_and_long_words() -> None:
    text = (
        "# T\n\n| a | b | c | d | e | f | g |\n|---|---|---|---|---|---|---|\n"
        "| 1 | 2 | 3 | 4 | 5 | 6 | 7 |\n\n" + "x" * 300 + "\n\n```\n" + "y" * 200 + "\n```\n"
    )
    for width in (1, 5, 12, 20, 33):
        assert all(s.cell_length <= width for s in render_all(text, width)), width


def test_task_items_use_box_markers() -> None:
    lines = lines_of("# Steps\n\n- [ ] write the test\n- [x] make it pass\n1. [X] numbered done\n")
    assert "◻ write the test" in lines
    assert "◼ make it pass" in lines
    assert any(line.strip() == "1. ◼ numbered done" for line in lines)
    assert not any("[ ]" in line or "[x]" in line for line in lines)


def test_lists_hang_their_continuation_lines() -> None:
    words = " ".join(f"word{i}" for i in range(40))
    lines = lines_of(f"- {words}\n", width=40)
    assert lines[0].startswith("• word0")
    assert all(line.startswith("  ") for line in lines[1:] if line)


def test_fence_without_language_is_plain_and_with_language_is_highlighted() -> None:
    renderer = SectionRenderer()
    plain = renderer.render("```\ndef f(x):\n    return 1\n```\n", 60, THEME)
    colours = {seg.style.color for line in plain.lines for seg in line if seg.text.strip() and seg.style}
    assert len(colours) == 1  # the code block's own foreground only: never guessed
    python = renderer.render("```python\ndef f(x):\n    return 1\n```\n", 60, THEME)
    colours = {seg.style.color for line in python.lines for seg in line if seg.text.strip() and seg.style}
    assert len(colours) >= 3
    assert [strip_text(line).rstrip() for line in python.lines[:2]] == [" def f(x):", "     return 1"]


def test_inline_markup_links_quotes_rules_and_headings() -> None:
    lines = lines_of(
        "# Title\n\nSome **bold**, *em* and `code` with [docs](https://example.com/x).\n\n"
        "> quoted words\n\n---\n\n### Sub\n"
    )
    assert lines[0] == "Title"
    assert "Some bold, em and code with docs (https://example.com/x)." in lines
    assert "▌ quoted words" in lines
    assert any(set(line) == {"─"} for line in lines)
    assert "Sub" in lines


def test_control_characters_never_reach_the_strips() -> None:
    nasty = (
        "# Plan \x1b]0;pwned\x07title\n\nred \x1b[31mtext\x1b[0m, bell \x07, csi \x9b2J, del \x7f, "
        "nul \x00, backspace \x08\r\n\n```bash\necho \x1b[2J\x1b[H\n```\n\n| a\x1b[5m | b |\n|---|---|\n| \x07 | \x1bc |\n"
    )
    for width in (40, 80):
        for strip in render_all(nasty, width):
            text = strip_text(strip)
            assert not CONTROL & set(text), repr(text)


def test_cache_renders_each_section_once_per_width() -> None:
    renderer = SectionRenderer()
    text = "# A\n\none\n\n## B\n\ntwo\n"
    render_all(text, 50, renderer)
    assert renderer.renders == 2
    render_all(text, 50, renderer)
    assert renderer.renders == 2
    render_all(text.replace("two", "three"), 50, renderer)
    assert renderer.renders == 3  # only the changed section
    render_all(text, 60, renderer)
    assert renderer.renders == 5


def test_source_lines_follow_the_text() -> None:
    renderer = SectionRenderer()
    section = parse_plan("# A\n\npara\n\n```\nx\ny\n```\n").sections[0]
    rendered = renderer.render(section.text, 40, THEME)
    pairs = list(zip((strip_text(s).strip() for s in rendered.lines), rendered.sources, strict=True))
    assert ("A", 0) in pairs and ("para", 2) in pairs and ("x", 5) in pairs and ("y", 6) in pairs
    assert list(rendered.sources) == sorted(rendered.sources)


def test_cjk_text_wraps_between_characters_to_fill_the_width() -> None:
    text = "設定" * 40 + " and then some English words " + "한국어 " * 12 + "\n"
    for width in (7, 20, 41):
        lines = render_all(text, width)
        assert all(s.cell_length <= width for s in lines)
        # Lines of wide text are filled (not broken early at the one space in the paragraph).
        assert lines[0].cell_length >= width - 1
    assert lines_of("- [x] " + "完了した作業" * 10 + "\n", width=20)[0].startswith("◼ 完了")


def test_task_marker_leaves_no_bracket_behind_when_the_text_wraps_early() -> None:
    for width in (12, 30):
        lines = lines_of("- [x] " + "プロジェクト" * 8 + "\n- [ ] averyveryveryverylongword\n", width=width)
        assert not any("[x]" in line or "[ ]" in line for line in lines), lines
        assert lines[0].startswith("◼ ") and any(line.startswith("◻ ") for line in lines)


def _code_lines(code: str, width: int) -> list[str]:
    return [line.rstrip() for line in lines_of(f"# T\n\n```\n{code}\n```\n", width) if line.strip()][1:]


def test_wrapped_code_marks_its_continuation_lines_and_breaks_at_spaces() -> None:
    # corpus 011 at 100 columns: the tail of a shell line wrapped to column 0 read as a command
    code = "rmdir .claude/plans                       # fails here unless it is empty (the intended safety valve)"
    lines = _code_lines(code, 60)
    assert lines[0].strip().startswith("rmdir .claude/plans") and len(lines) > 1
    assert all(line.lstrip().startswith("↪ ") for line in lines[1:])
    rebuilt = " ".join(line.strip().removeprefix("↪ ") for line in lines)
    assert rebuilt.split() == code.split()  # only the spaces at the breaks go
    assert all(len(line) <= 60 for line in lines_of(f"```\n{code}\n```\n", 60))


def test_wrapped_code_keeps_identifiers_whole_at_40_columns() -> None:
    code = "result = compute_total(first_value, second_value, third_value, fourth_value)"
    lines = _code_lines(code, 40)
    tokens = {"compute_total(first_value,", "second_value,", "third_value,", "fourth_value)"}
    shown = {t for line in lines for t in line.replace("↪", " ").split()}
    assert tokens <= shown, shown


def test_code_without_break_points_folds_and_is_still_marked() -> None:
    lines = _code_lines("x" * 100, 40)
    assert len(lines) == 3 and all(line.lstrip().startswith("↪ ") for line in lines[1:])
    assert "".join(line.strip().removeprefix("↪ ") for line in lines) == "x" * 100


def test_short_code_lines_are_untouched() -> None:
    assert _code_lines("ls -la  # two spaces kept", 40) == [" ls -la  # two spaces kept"]


FRONT = (
    "---\nname: Migration\ntodos:\n"
    + "".join(f"  - id: t{i}\n    status: pending\n" for i in range(30))
    + "---\n"
)


def test_front_matter_is_one_dim_line_until_asked_for() -> None:
    text = FRONT + "# Plan\n\nBody.\n"
    folded = lines_of(text)
    assert folded[0] == "⋯ front matter, 62 lines (f shows it)"
    assert "status: pending" not in "\n".join(folded) and "Plan" in folded
    renderer = SectionRenderer()
    full = [
        strip_text(line)
        for s in parse_plan(text).sections
        for line in renderer.render(s.text, 80, THEME, front_matter=True).lines
    ]
    assert sum("status: pending" in line for line in full) == 30  # every line, on request
    assert (
        renderer.render(parse_plan(text).sections[0].text, 80, THEME).lines
        != renderer.render(parse_plan(text).sections[0].text, 80, THEME, front_matter=True).lines
    )  # the cache keeps the two apart


def test_footnotes_render_as_references_and_definitions() -> None:
    text = (
        "# Plan\n\nUses the cache[^1] and the queue[^queue].\n\n"
        "## Notes\n\n[^1]: https://example.com/cache is the *source*\n    and more.\n\n[^queue]: see the ADR\n"
    )
    lines = lines_of(text, 40)
    shown = "\n".join(lines)
    assert "[^" not in shown  # neither reference nor definition is literal any more
    assert "Uses the cache[1] and the queue[queue]." in lines
    assert "[1] https://example.com/cache is the" in lines  # the definition is shown, not swallowed
    assert lines[lines.index("[1] https://example.com/cache is the") + 1].startswith("    source")  # hangs
    assert "[queue] see the ADR" in lines


def test_footnote_syntax_inside_code_stays_literal() -> None:
    lines = lines_of("# T\n\n`a[^1]` and\n\n```\nb[^2]\n```\n")
    assert "a[^1] and" in lines and " b[^2]" in [line.rstrip() for line in lines]
