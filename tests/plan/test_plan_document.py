"""The document model: sections at headings, blocks with source ranges, fences, front matter."""

from __future__ import annotations

from planview.plan.document import Block, parse_plan
from planview.plan.lines import split_lines

PLAN = """\
# Title

Intro *text*.

## Goal

Ship it.

## Steps

- [ ] one
  - note
- [x] two
"""


def titles(text: str) -> list[tuple[str, int, int, int]]:
    return [(s.title, s.level, s.start, s.end) for s in parse_plan(text).sections]


def test_sections_split_at_atx_headings_with_exact_line_ranges():
    assert titles(PLAN) == [("Title", 1, 1, 4), ("Goal", 2, 5, 8), ("Steps", 2, 9, 13)]


def test_section_text_is_the_exact_source_lines():
    doc = parse_plan(PLAN)
    goal = doc.sections[1]
    assert goal.text == "## Goal\n\nShip it.\n"
    assert doc.sections[2].text == "## Steps\n\n- [ ] one\n  - note\n- [x] two"
    assert [s.index for s in doc.sections] == [0, 1, 2]


def test_preamble_section_holds_text_before_first_heading():
    doc = parse_plan("intro line\n\n# Head\nbody\n")
    first, second = doc.sections
    assert (first.title, first.level, first.start, first.end) == ("", 0, 1, 2)
    assert (second.title, second.level, second.start, second.end) == ("Head", 1, 3, 4)


def test_no_preamble_when_the_first_line_is_a_heading():
    assert parse_plan("# A\n").sections[0].level == 1
    assert len(parse_plan("# A\n").sections) == 1


def test_empty_text_has_no_sections_and_single_newline_has_one_line():
    empty = parse_plan("")
    assert empty.sections == () and empty.lines == () and empty.title is None
    blank = parse_plan("\n")
    assert blank.lines == ("",)
    assert [(s.start, s.end, s.level) for s in blank.sections] == [(1, 1, 0)]


def test_lines_drop_only_the_phantom_final_line():
    assert split_lines("a\nb\n") == ("a", "b")
    assert split_lines("a\nb") == ("a", "b")
    assert split_lines("a\n\n") == ("a", "")


def test_setext_headings_are_sections_covering_both_lines():
    text = "Top\n===\n\npara\n\nSub\n---\nbody\n"
    doc = parse_plan(text)
    assert [(s.title, s.level, s.start, s.end) for s in doc.sections] == [
        ("Top", 1, 1, 5),
        ("Sub", 2, 6, 8),
    ]
    assert doc.sections[0].blocks[0] == Block("heading", 1, 2, 1)


def test_heading_titles_strip_inline_markup_and_closing_hashes():
    assert titles("## **Bold** `code` and [link](http://x) ##\n")[0][0] == "Bold code and link"
    assert titles("# user_id in snake_case.py\n")[0][0] == "user_id in snake_case.py"


def test_document_title_is_the_first_h1():
    assert parse_plan("## Sub\n# Main\n# Other\n").title == "Main"
    assert parse_plan("## Only sub\n").title is None


def test_headings_inside_backtick_and_tilde_fences_are_not_sections():
    text = "# Real\n```yaml\n# not a heading\n```\n~~~\n## nor this\n~~~\n## Next\n"
    assert titles(text) == [("Real", 1, 1, 7), ("Next", 2, 8, 8)]


def test_unterminated_fence_makes_the_rest_of_the_file_code():
    text = "# A\n```\n# B\n\n## C\n"
    doc = parse_plan(text)
    assert [s.title for s in doc.sections] == ["A"]
    assert doc.sections[0].blocks[-1] == Block("code", 2, 5, 0)


def test_longer_fence_is_only_closed_by_an_equally_long_fence():
    text = "````\n```\n# inside\n```\n````\n# out\n"
    assert [t for t, *_ in titles(text)] == ["", "out"]


def test_indented_code_and_quoted_or_listed_headings_are_not_sections():
    text = "# A\n\n    # indented code\n\n> # quoted\n\n- # in a list\n"
    assert [t for t, *_ in titles(text)] == ["A"]


def test_yaml_front_matter_is_recognised_and_not_a_heading():
    text = "---\ntitle: x\nowner: me\n---\n# Plan\nbody\n"
    doc = parse_plan(text)
    assert doc.front_matter == (1, 4)
    assert [(s.title, s.level, s.start, s.end) for s in doc.sections] == [("", 0, 1, 4), ("Plan", 1, 5, 6)]
    assert doc.sections[0].blocks == (Block("front_matter", 1, 4, 0),)
    # Without front matter the same shape would be a rule + setext heading.
    assert parse_plan("text\n---\n").front_matter is None


def test_unclosed_front_matter_is_a_rule_not_front_matter():
    doc = parse_plan("---\nnot closed\n")
    assert doc.front_matter is None


def test_blocks_carry_kinds_and_ranges_without_trailing_blank_lines():
    text = (
        "# T\n"  # 1
        "\n"
        "para one\n"  # 3
        "para two\n"  # 4
        "\n"
        "- item\n"  # 6
        "  - nested\n"  # 7
        "\n"
        "- item two\n"  # 9
        "\n"
        "```py\n"  # 11
        "x = 1\n"
        "```\n"  # 13
        "> quote\n"  # 14
        "\n"
        "| a | b |\n"  # 16
        "|---|---|\n"
        "| 1 | 2 |\n"  # 18
        "\n"
        "***\n"  # 20
        "<div>\n"  # 21
        "</div>\n"
    )
    blocks = parse_plan(text).sections[0].blocks
    assert blocks == (
        Block("heading", 1, 1, 1),
        Block("paragraph", 3, 4, 0),
        Block("list_item", 6, 7, 0),
        Block("list_item", 7, 7, 1),
        Block("list_item", 9, 9, 0),
        Block("code", 11, 13, 0),
        Block("quote", 14, 14, 0),
        Block("table", 16, 18, 0),
        Block("rule", 20, 20, 0),
        Block("html", 21, 22, 0),
    )


def test_crlf_keeps_its_carriage_returns_and_line_numbers():
    text = "# A\r\nbody\r\n## B\r\nmore\r\n"
    doc = parse_plan(text)
    assert [(s.title, s.start, s.end) for s in doc.sections] == [("A", 1, 2), ("B", 3, 4)]
    assert doc.sections[0].text == "# A\r\nbody\r"
    assert doc.lines[0] == "# A\r"


def test_lone_carriage_return_is_not_a_line_break():
    doc = parse_plan("# A\rstill line one\n## B\n")
    assert [(s.start, s.end) for s in doc.sections] == [(1, 1), (2, 2)]


def test_section_at_finds_the_section_of_a_line():
    doc = parse_plan(PLAN)
    assert doc.section_at(6).title == "Goal"
    assert doc.section_at(99) is None
    assert doc.blocks[0] == Block("heading", 1, 1, 1)
