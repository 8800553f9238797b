"""Review comments as `> [!REVIEW] text` lines after the anchored block."""

from __future__ import annotations

from planview.plan.feedback import ReviewComment, apply_feedback, parse_feedback, strip_feedback

PLAN = """\
# Plan

First paragraph
continues here.

- item one
  - nested
- item two

```sh
echo hi
```
"""


def test_apply_puts_comments_after_the_anchored_block():
    out = apply_feedback(PLAN, [ReviewComment(4, "Why?"), ReviewComment(8, "Split this")])
    assert out == PLAN.replace("continues here.\n", "continues here.\n> [!REVIEW] Why?\n").replace(
        "- item two\n", "- item two\n> [!REVIEW] Split this\n"
    )


def test_parse_returns_anchor_lines_of_the_stripped_text():
    out = apply_feedback(PLAN, [ReviewComment(4, "Why?"), ReviewComment(8, "Split this")])
    assert parse_feedback(out) == (ReviewComment(4, "Why?"), ReviewComment(8, "Split this"))


def test_strip_restores_the_original_bytes():
    out = apply_feedback(PLAN, [ReviewComment(1, "title?"), ReviewComment(12, "after code")])
    assert strip_feedback(out) == PLAN
    assert strip_feedback(PLAN) is PLAN


def test_apply_is_idempotent_and_replaces_previous_comments():
    comments = [ReviewComment(4, "Why?")]
    once = apply_feedback(PLAN, comments)
    assert apply_feedback(once, comments) == once
    replaced = apply_feedback(once, [ReviewComment(1, "new")])
    assert "Why?" not in replaced and parse_feedback(replaced) == (ReviewComment(1, "new"),)
    assert apply_feedback(once, []) == PLAN


def test_anchor_inside_a_block_moves_to_the_block_end():
    out = apply_feedback(PLAN, [ReviewComment(3, "mid paragraph"), ReviewComment(10, "mid fence")])
    assert parse_feedback(out) == (ReviewComment(4, "mid paragraph"), ReviewComment(12, "mid fence"))
    assert "echo hi\n```\n> [!REVIEW] mid fence\n" in out


def test_nested_item_anchor_uses_the_innermost_item():
    out = apply_feedback(PLAN, [ReviewComment(7, "on nested")])
    assert "  - nested\n> [!REVIEW] on nested\n- item two" in out


def test_review_line_inside_a_fence_is_content():
    text = "# A\n\n```md\n> [!REVIEW] sample syntax\n```\n> [!REVIEW] real\n"
    assert parse_feedback(text) == (ReviewComment(5, "real"),)
    assert strip_feedback(text) == "# A\n\n```md\n> [!REVIEW] sample syntax\n```\n"


def test_unterminated_fence_makes_later_review_lines_content():
    text = "# A\n> [!REVIEW] kept as comment\n```\n> [!REVIEW] content\n"
    assert parse_feedback(text) == (ReviewComment(1, "kept as comment"),)
    assert strip_feedback(text) == "# A\n```\n> [!REVIEW] content\n"


def test_comment_anchored_in_an_unterminated_fence_goes_before_it():
    text = "para\n\n```\ncode\n"
    out = apply_feedback(text, [ReviewComment(4, "note")])
    assert out == "para\n> [!REVIEW] note\n\n```\ncode\n"
    assert apply_feedback(out, [ReviewComment(4, "note")]) == out


def test_comment_text_is_one_line_and_empty_comments_are_skipped():
    out = apply_feedback("para\n", [ReviewComment(1, "two\nlines  here"), ReviewComment(1, "  ")])
    assert out == "para\n> [!REVIEW] two lines here\n"


def test_several_comments_on_one_block_keep_their_order():
    out = apply_feedback("para\n", [ReviewComment(1, "b"), ReviewComment(1, "a")])
    assert out == "para\n> [!REVIEW] b\n> [!REVIEW] a\n"


def test_anchor_zero_and_out_of_range_anchors_are_clamped():
    out = apply_feedback(
        "para\n", [ReviewComment(0, "top"), ReviewComment(99, "end"), ReviewComment(-3, "neg")]
    )
    assert out == "> [!REVIEW] top\n> [!REVIEW] neg\npara\n> [!REVIEW] end\n"


def test_front_matter_stays_first():
    text = "---\na: 1\n---\n# T\n"
    out = apply_feedback(text, [ReviewComment(0, "top")])
    assert out == "---\na: 1\n---\n> [!REVIEW] top\n# T\n"


def test_crlf_files_get_crlf_comment_lines():
    text = "para\r\n\r\nnext\r\n"
    out = apply_feedback(text, [ReviewComment(1, "x")])
    assert out == "para\r\n> [!REVIEW] x\r\n\r\nnext\r\n"
    assert parse_feedback(out) == (ReviewComment(1, "x"),)
    assert strip_feedback(out) == text


def test_a_last_line_that_looks_like_a_comment_keeps_every_character():
    # Found by the property test: in a CRLF file whose open fence ends in a "> [!REVIEW] ..." line
    # with no newline, adding a comment elsewhere cut that line's last character.
    text = "```\r\n> [!REVIEW] a comment"
    out = apply_feedback(text, [ReviewComment(0, "0")])
    assert out == "> [!REVIEW] 0\r\n```\r\n> [!REVIEW] a comment"
    assert apply_feedback(out, [ReviewComment(0, "0")]) == out


def test_last_line_without_newline():
    out = apply_feedback("para", [ReviewComment(1, "x")])
    assert out == "para\n> [!REVIEW] x"
    assert strip_feedback(out) == "para"


def test_marker_variants_are_recognised():
    text = "p\n>[!REVIEW] tight\n   > [!review]   spaced  \n    > [!REVIEW] indented code\n"
    assert [c.text for c in parse_feedback(text)] == ["tight", "spaced"]
