"""Terminal safety for model-authored text: a plan file must not be able to drive the terminal.

`sanitize_for_terminal` removes ANSI / OSC / DCS escape sequences whole (so their payload does not
leak through as text), then every remaining C0 and C1 control character. Newlines stay, tabs
become spaces, carriage returns go (a bare CR would let text overwrite what is already on the line).
Bidirectional overrides and isolates go too: they can make a reviewer read text in a different
order than the one that was approved. Line count is never changed, so line numbers still match.

`say` is planview's one way to put text on a terminal (stdout or stderr): print() with every part
through the sanitiser, and writing that survives a terminal whose encoding cannot show a character
(`LC_ALL=C`, `PYTHONUTF8=0`: it is written escaped instead of raising UnicodeEncodeError). A test
walks planview/ and fails on any other print or stdout/stderr write.

`json_for_terminal` is the JSON side of the same rule: `--json` output keeps every character of
the data, but writes C0, DEL, C1, bidi controls and line separators as \\uXXXX escapes, so a
consumer that prints a field (or a terminal showing the raw output) cannot be driven either.
"""

from __future__ import annotations

import functools
import json
import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["json_for_terminal", "sanitize_for_terminal", "say"]


# Their character classes reach past U+2000, which takes re about a millisecond to compile; most
# commands print nothing that needs them, so they are compiled at the first text that does.
def _printable(text: str) -> bool:
    """True when nothing here would change `text`: every character this module removes or escapes is
    a control, format or separator character, and str.isprintable is False for all of those (and for
    a few harmless ones, such as a no-break space, which then take the slower exact path)."""
    return text.replace("\n", "").isprintable()


@functools.cache
def _scrubbers() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    needs_work = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
    escapes = re.compile(
        # OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \ or the C1 ST), payload included.
        # The payload never spans a newline, so removing one cannot change the line count.
        "(?:\x1b[\\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\\\|\x9c)"
        # CSI (ESC [ or the C1 CSI): parameters, intermediates, final byte.
        "|(?:\x1b\\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
        # Any other escape: ESC, intermediates, final byte (ESC c, ESC ( B, ESC 7, ...).
        "|\x1b[\x20-\x2f]*[\x30-\x7e]"
    )
    controls = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
    line_separators = re.compile("[\u2028\u2029]")
    return needs_work, escapes, controls, line_separators


def sanitize_for_terminal(text: str, *, tab_size: int = 4) -> str:
    """`text` without control characters or escape sequences; newlines kept, tabs as spaces."""
    if _printable(text):
        return text  # the common case, without re
    needs_work, escapes, controls, line_separators = _scrubbers()
    if needs_work.search(text) is None:
        return text
    text = escapes.sub("", text)
    text = controls.sub("", text)
    text = line_separators.sub(" ", text)
    if "\t" in text:
        text = text.expandtabs(tab_size)
    return text


@functools.cache
def _json_unsafe() -> re.Pattern[str]:
    """Everything json.dumps(ensure_ascii=False) leaves raw that a terminal acts on or reorders."""
    return re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def json_for_terminal(value: Any, **options: Any) -> str:
    """json.dumps(value, ensure_ascii=False, **options) with terminal-driving characters escaped.

    JSON itself escapes C0 (below U+0020); the rest are escaped here. They can only occur inside
    strings (JSON's own syntax is ASCII), so the result is the same JSON value.
    """
    text = json.dumps(value, ensure_ascii=False, **options)
    if _printable(text):
        return text
    unsafe = _json_unsafe()
    if unsafe.search(text) is None:
        return text
    return unsafe.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _escaped_for(text: str, encoding: str) -> str:
    """`text` with each character `encoding` cannot carry written as a JSON-style \\uXXXX escape
    (valid inside a --json string too; a character past U+FFFF as its surrogate pair)."""
    out = []
    for char in text:
        try:
            char.encode(encoding)
            out.append(char)
        except UnicodeEncodeError:
            code = ord(char)
            if code > 0xFFFF:
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
    return "".join(out)


def say(
    *parts: object,
    file: Any = None,
    sep: str = " ",
    end: str = "\n",
    flush: bool = False,
    colors: tuple[str, ...] = (),
) -> None:
    """print() for a terminal: the parts joined, sanitised, written; a character the stream's encoding
    cannot carry is written as a \\uXXXX escape (a C locale) instead of crashing the command.

    `colors`: SGR sequences planview itself put around already-sanitised text (`planview diff`'s
    marks); exactly those survive, anything else that drives the terminal is still removed."""
    import sys

    stream = sys.stdout if file is None else file
    text = sep.join(str(part) for part in parts)
    if colors:
        # Each allowed sequence becomes a private-use placeholder the sanitiser leaves alone.
        marks = {code: chr(0xF8F0 + n) for n, code in enumerate(dict.fromkeys(colors))}
        for code, mark in marks.items():
            text = text.replace(code, mark)
        text = sanitize_for_terminal(text)
        for code, mark in marks.items():
            text = text.replace(mark, code)
    else:
        text = sanitize_for_terminal(text)
    text += end
    try:
        stream.write(text)
    except UnicodeEncodeError:
        stream.write(_escaped_for(text, getattr(stream, "encoding", None) or "ascii"))
    if flush:
        stream.flush()
