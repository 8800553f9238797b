"""Ctrl+Alt chords the way terminals really send them, so `Ctrl+Alt+P` reaches the app.

Textual 8.2.8 reads three of the four common encodings of Ctrl+Alt+<letter> as plain Ctrl+<letter>
(for Ctrl+Alt+P that is the command palette, not the plan-mode toggle):

- legacy / tmux / screen: ESC then the control character (`\\x1b\\x10`). Textual's parser knows ESC
  means alt, but drops it for keys it maps through its table of control characters.
- xterm modifyOtherKeys (`\\x1b[27;7;112~`): Textual reads it with its kitty rules, where alt is
  carried by the text and so skipped; here the third field is the key, not text.
- CSI u (`\\x1b[112;7u`, kitty keyboard protocol and xterm formatOtherKeys=1): already read right.

`ChordParser` fixes the first two and leaves every other sequence to Textual. `ChordDriver` is
Textual's Linux driver reading its input with that parser (Textual has no seam for the parser, so
its input loop is repeated here; textual is pinned exactly in pyproject.toml).
"""

from __future__ import annotations

import os
import re
import selectors
from codecs import getincrementaldecoder
from collections.abc import Iterable

from rich._loop import loop_last
from textual import events
from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.keys import _character_to_key

# xterm modifyOtherKeys=2, formatOtherKeys=0: CSI 27 ; <1 + modifier bits> ; <code point> ~
MODIFY_OTHER_KEYS = re.compile(r"\x1b\[27;(\d+);(\d+)~")
SHIFT, ALT, CTRL, SUPER = 1, 2, 4, 8


def _modify_other_keys(sequence: str) -> events.Key | None:
    match = MODIFY_OTHER_KEYS.fullmatch(sequence)
    if match is None:
        return None
    bits, code = int(match[1]) - 1, int(match[2])
    if not bits & (ALT | CTRL | SUPER) or not 32 < code < 0x110000:
        return None  # shift alone: the character itself, as Textual reads it
    character = chr(code)
    names = [
        name for bit, name in ((ALT, "alt"), (CTRL, "ctrl"), (SHIFT, "shift"), (SUPER, "super")) if bits & bit
    ]
    key = _character_to_key(character.lower() if bits & SHIFT else character)
    return events.Key("+".join(sorted(names) + [key]), None)


class ChordParser(XTermParser):
    """Textual's parser, keeping the alt of ESC + control character and of modifyOtherKeys."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        chord = _modify_other_keys(sequence)
        if chord is not None:
            yield chord
            return
        for key in super()._sequence_to_key_events(sequence, alt=alt):
            # ESC + ^P arrives here as ("\x10", alt=True) and came back as plain "ctrl+p".
            if alt and key.key.startswith("ctrl+") and "alt+" not in key.key:
                key = events.Key(f"alt+{key.key}", None)
            yield key


class ChordDriver(LinuxDriver):
    """Textual's Linux driver with `ChordParser` reading the keyboard, sized by the real terminal."""

    def _get_terminal_size(self) -> tuple[int, int]:
        from planview.tui.tty_size import terminal_size

        return terminal_size()

    def run_input_thread(self) -> None:  # textual 8.2.8 LinuxDriver.run_input_thread, parser swapped
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        fileno = self.fileno
        parser = ChordParser(self._debug)
        feed, tick = parser.feed, parser.tick
        decode = getincrementaldecoder("utf-8")().decode

        def process(selector_events: list, final: bool = False) -> None:
            for last, (_key, mask) in loop_last(selector_events):
                if mask & selectors.EVENT_READ:
                    data = decode(os.read(fileno, 1024 * 4), final=final and last)
                    if not data:
                        break
                    for event in feed(data):
                        self.process_message(event)
            for event in tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process(selector.select(0.1))
            selector.unregister(self.fileno)
            process(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _ in feed(""):
                    pass
            except (EOFError, ParseError):
                pass
