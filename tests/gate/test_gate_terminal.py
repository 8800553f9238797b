"""sanitize_for_terminal: a plan file cannot drive the terminal."""

from __future__ import annotations

import pytest

from planview.textsafe import sanitize_for_terminal

CASES = [
    ("plain text", "plain text"),
    ("", ""),
    ("line one\nline two\n", "line one\nline two\n"),
    ("tab\there", "tab here"),
    ("\tindented", "    indented"),
    ("a\tb\n\tc", "a   b\n    c"),
    ("windows\r\nline\r\n", "windows\nline\n"),
    ("over\rwrite", "overwrite"),
    ("bell\x07", "bell"),
    ("nul\x00byte", "nulbyte"),
    ("back\x08space", "backspace"),
    ("del\x7f", "del"),
    ("form\x0cfeed\x0bvt", "formfeedvt"),
    # CSI: colours, cursor movement, clearing the screen, private modes
    ("\x1b[31mred\x1b[0m", "red"),
    ("\x1b[1;38;5;196mbold\x1b[m", "bold"),
    ("\x1b[2J\x1b[Hcleared", "cleared"),
    ("\x1b[?1049hshown\x1b[?1049l", "shown"),
    ("\x1b[10A\x1b[2Kup", "up"),
    ("\x9b31mc1-csi", "c1-csi"),
    # OSC with BEL or ST terminators, payload removed too
    ("\x1b]0;evil title\x07after", "after"),
    ("\x1b]0;evil title\x1b\\after", "after"),
    ("\x1b]8;;https://evil.example\x07link\x1b]8;;\x07", "link"),
    ("\x1b]52;c;ZWNobyBwd25lZA==\x07clip", "clip"),
    ("\x9d0;c1 osc\x9cafter", "after"),
    # DCS / APC / PM strings
    ("\x1bPq#0;2;0;0;0\x1b\\sixel", "sixel"),
    ("\x1b_apc payload\x1b\\ok", "ok"),
    ("\x1b^pm\x1b\\ok", "ok"),
    # other escapes
    ("\x1bcreset", "reset"),
    ("\x1b(Bcharset", "charset"),
    ("\x1b7saved\x1b8", "saved"),
    ("lone escape\x1b", "lone escape"),
    ("unterminated \x1b]0;title", "unterminated 0;title"),
    ("osc \x1b]0;one\ntwo\x07 end", "osc 0;one\ntwo end"),
    # C1 controls
    ("next\x85line", "nextline"),
    ("c1\x80\x9f", "c1"),
    # bidi overrides and isolates (Trojan Source)
    ("access\u202e\u2066 admin\u2069\u2066", "access admin"),
    ("x\u2028y\u2029z", "x y z"),
    # unicode text is kept
    ("naïve café — 日本語 ✓ 🚀", "naïve café — 日本語 ✓ 🚀"),
    ("◻ step\n◼ done", "◻ step\n◼ done"),
]


@pytest.mark.parametrize(("raw", "clean"), CASES)
def test_sanitize(raw: str, clean: str) -> None:
    assert sanitize_for_terminal(raw) == clean


@pytest.mark.parametrize(("raw", "clean"), CASES)
def test_no_control_characters_survive(raw: str, clean: str) -> None:
    out = sanitize_for_terminal(raw)
    assert all(ch == "\n" or (ord(ch) >= 0x20 and not 0x7F <= ord(ch) <= 0x9F) for ch in out)
    assert out.count("\n") == raw.count("\n")  # line numbers still match the source


def test_idempotent() -> None:
    for raw, _ in CASES:
        once = sanitize_for_terminal(raw)
        assert sanitize_for_terminal(once) == once


def test_clean_text_is_returned_unchanged() -> None:
    text = "# Plan\n\n## Steps\n- [ ] one\n" * 100
    assert sanitize_for_terminal(text) is text


def test_tab_size_is_configurable() -> None:
    assert sanitize_for_terminal("\tx", tab_size=8) == "        x"
