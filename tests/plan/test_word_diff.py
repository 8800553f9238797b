"""Word diffs between plan revisions: tokens, not characters; sections matched as the markers match them."""

from __future__ import annotations

import pytest

from planview.plan.word_diff import section_words, tokens, word_pieces

BEFORE = "# Plan\n\n## Goal\n\nShip the rate limiter to staging.\n\n## Steps\n\n- [ ] write it\n- [ ] test it\n\n## Old\n\ngone\n"
AFTER = "# Plan\n\n## Goal\n\nShip the new rate limiter to production.\n\n## Steps\n\n- [x] write it\n- [ ] test it\n\n## Risks\n\nNone.\n"


def current_text(pieces) -> str:
    return "".join(p.text for p in pieces if p.op != "delete")


def previous_text(pieces) -> str:
    return "".join(p.text for p in pieces if p.op != "insert")


def test_a_one_word_edit_reads_as_that_word() -> None:
    pieces = word_pieces("Deploy to staging first.\n", "Deploy to production first.\n")
    assert [(p.op, p.text) for p in pieces if p.op != "equal"] == [
        ("delete", "staging"),
        ("insert", "production"),
    ]


def test_tokens_are_words_spaces_and_punctuation() -> None:
    assert tokens("rate-limit  the API.") == ["rate", "-", "limit", "  ", "the", " ", "API", "."]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (BEFORE, AFTER),
        ("a\nb\nc", "a\nB\nc\nd"),
        ("", "new"),
        ("old", ""),
        ("x\n\n\n", "x\n"),
        ("same\n", "same\n"),
    ],
)
def test_pieces_rebuild_both_texts_exactly(before: str, after: str) -> None:
    pieces = word_pieces(before, after)
    assert current_text(pieces) == after
    assert previous_text(pieces) == before


def test_sections_changed_added_removed_and_ticks_are_no_change() -> None:
    sections = section_words(BEFORE, AFTER)
    assert [(s.title, s.status) for s in sections] == [
        ("Goal", "changed"),
        ("Risks", "added"),
        ("Old", "removed"),
    ]
    goal = sections[0]
    assert goal.inserted == (" new", "production") or "production" in "".join(goal.inserted)
    assert "staging" in "".join(goal.deleted)
    assert section_words(BEFORE, BEFORE) == ()
    # A ticked checkbox alone is not an edit (the canonical rule the approval hash uses).
    assert section_words(BEFORE, BEFORE.replace("- [ ] write", "- [x] write")) == ()
