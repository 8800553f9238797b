"""Ctrl+Alt+P as each kind of terminal really sends it, fed byte for byte to the parser."""

from __future__ import annotations

import pytest
from textual import events
from textual._xterm_parser import XTermParser

from planview.tui.chord_keys import ChordDriver, ChordParser
from planview.tui.session_screen import SessionScreen


def keys(parser: XTermParser, raw: bytes) -> list[str]:
    out = list(parser.feed(raw.decode("utf-8"))) + list(parser.feed(""))
    return [e.key for e in out if isinstance(e, events.Key)]


CTRL_ALT_P = {
    "tmux / screen / legacy xterm (ESC ^P)": b"\x1b\x10",
    "xterm modifyOtherKeys=2": b"\x1b[27;7;112~",
    "CSI u (xterm formatOtherKeys=1, kitty, foot, WezTerm)": b"\x1b[112;7u",
}


@pytest.mark.parametrize("raw", CTRL_ALT_P.values(), ids=CTRL_ALT_P.keys())
def test_ctrl_alt_p_is_one_chord_in_every_encoding(raw: bytes) -> None:
    assert keys(ChordParser(), raw) == ["alt+ctrl+p"]


def test_textual_alone_reads_two_of_them_as_the_palette_key() -> None:
    # The reason ChordParser exists; when Textual fixes this, this test says the override can go.
    assert keys(XTermParser(), CTRL_ALT_P["tmux / screen / legacy xterm (ESC ^P)"]) == ["ctrl+p"]
    assert keys(XTermParser(), CTRL_ALT_P["xterm modifyOtherKeys=2"]) == ["ctrl+p"]


def test_the_chord_is_bound_to_the_plan_toggle() -> None:
    binding = next(b for b in SessionScreen.BINDINGS if getattr(b, "id", None) == "plan.toggle")
    assert "alt+ctrl+p" in binding.key.split(",")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"\x10", ["ctrl+p"]),  # the palette key itself stays the palette key
        (b"\x1bp", ["alt+p"]),
        (b"p", ["p"]),
        (b"\x1b", ["escape"]),
        (b"\r", ["enter"]),
        (b"\x1b\r", ["enter"]),  # Textual's reading of ESC + Enter is unchanged
        (b"\x1b[A", ["up"]),
        (b"\x1b[1;5A", ["ctrl+up"]),
        (b"\x1b[27;5;106~", ["ctrl+j"]),  # modifyOtherKeys Ctrl+J (newline in the prompt)
        (b"\x1b[27;2;80~", ["P"]),  # shift alone: left to Textual
        (b"\x1b[27;6;112~", ["ctrl+shift+p"]),
        (b"\x1b[112;5u", ["ctrl+p"]),
        ("é".encode(), ["é"]),
    ],
)
def test_other_keys_read_as_before(raw: bytes, expected: list[str]) -> None:
    assert keys(ChordParser(), raw) == expected


def test_the_session_app_reads_the_terminal_with_the_chord_driver() -> None:
    from planview.tui.app import PlanviewApp

    assert PlanviewApp(None).get_driver_class() is ChordDriver
