"""One terminal sanitiser everywhere model, tool or plan text is shown, and JSON that cannot drive a terminal.

Each hostile string below goes through every place that draws it (transcript rows, todos, the
confirm dialog's text, the review body, status / audit / plans text, the headless run printer) and
every --json writer; none may let an escape byte, a C1 control or a bidi control through.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from planview.textsafe import json_for_terminal, sanitize_for_terminal

HOSTILE = {
    "ESC": "a\x1bcb",
    "CSI": "a\x1b[2J\x1b[31mb",
    "OSC 52": "a\x1b]52;c;ZWNobyBwd25lZA==\x07b",
    "OSC 8": "a\x1b]8;;https://evil.example\x1b\\b\x1b]8;;\x1b\\",
    "DCS": "a\x1bPq#0;2;0;0;0#0~~\x1b\\b",
    "C1": "a\x9b31m\x9d0;t\x9c\x85b",
    "bidi": "a\u202eb\u2066c\u2069\u202d",
}
BAD = set("\x1b\x9b\x9d\x9c\x90\x85\u202e\u2066\u2069\u202d\x07")


def clean(text: str) -> bool:
    return not (set(text) & BAD) and "52;c" not in text and "evil.example" not in text and "#0;2" not in text


@pytest.mark.parametrize("kind", HOSTILE)
def test_every_drawing_place_uses_the_sanitiser(kind: str) -> None:
    from planview.commands.approval import _for_terminal
    from planview.commands.plans import _printable
    from planview.tui.review.render import clean_text
    from planview.tui.widgets.todos import render_todos
    from planview.tui.widgets.transcript import render_tool

    text = HOSTILE[kind]

    class Todo:
        def __init__(self, status: str) -> None:
            self.text, self.status = text, status

    shown = {
        "sanitiser": sanitize_for_terminal(text),
        "transcript": render_tool(text, text).plain,
        "review": clean_text(text),
        "status/audit": _for_terminal(text),
        "plans": _printable(text),
    }
    for status in ("pending", "in_progress", "completed"):
        shown[f"todos {status}"] = render_todos([Todo(status)]).plain
    for place, out in shown.items():
        assert clean(out), (place, kind, out)
        assert "a" in out and "b" in out, (place, kind, out)


async def test_the_confirm_dialog_draws_sanitised_text() -> None:
    from textual.app import App
    from textual.widgets import Static

    from planview.tui.confirm import ConfirmScreen

    title, message = HOSTILE["OSC 52"] + HOSTILE["bidi"], HOSTILE["DCS"] + HOSTILE["C1"] + HOSTILE["CSI"]

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(ConfirmScreen(title, message))

    app = Host()
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ConfirmScreen)
        for widget_id in ("#confirm-title", "#confirm-message"):
            shown = screen.query_one(widget_id, Static).render()
            assert clean(str(shown)), (widget_id, str(shown))


def test_the_headless_printer_sanitises() -> None:
    from planview.commands.run import TextPrinter

    out = io.StringIO()
    printer = TextPrinter(out)
    for text in HOSTILE.values():
        assert clean(printer.clean(text))


@pytest.mark.parametrize("kind", HOSTILE)
def test_json_output_escapes_controls_and_bidi(kind: str) -> None:
    value = {"text": HOSTILE[kind], "nested": [HOSTILE[kind]]}
    out = json_for_terminal(value)
    assert out.isascii() or not (set(out) & BAD)
    assert not any(0x7F <= ord(ch) <= 0x9F or ch in "\u202e\u2066\u2069\u202d\x1b" for ch in out)
    assert json.loads(out) == value  # the data itself is unchanged


def test_gate_check_json_cannot_drive_a_terminal() -> None:
    calls = json.dumps({"tool": "mcp__x\u202e\x9b__q", "input": {}, "builtin": False}) + "\n"
    done = subprocess.run(
        [sys.executable, "-m", "planview", "gate", "check"], input=calls, capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "\u202e" not in done.stdout and "\x9b" not in done.stdout
    assert json.loads(done.stdout)["decision"] == "deny"


def test_the_fast_path_skips_only_text_the_patterns_would_leave_alone() -> None:
    """The fast path returns text unchanged when str.isprintable holds (newlines aside): no code
    point that the scrub or the JSON escape acts on may be printable (all 1,114,112 are checked)."""
    from planview import textsafe

    needs_work = textsafe._scrubbers()[0]
    unsafe = textsafe._json_unsafe()
    for code in range(0x110000):
        char = chr(code)
        if char != "\n" and (needs_work.match(char) or unsafe.match(char)):
            assert not char.isprintable(), hex(code)


def test_the_fast_paths_agree_with_the_full_scrub() -> None:
    """sanitize_for_terminal and json_for_terminal skip re for printable text; each of the 128
    ASCII characters, alone and between words, and some non-ASCII text, must come out as the full
    scrub leaves it."""
    from planview import textsafe

    needs_work, escapes, controls, separators = textsafe._scrubbers()

    def full_scrub(text: str) -> str:
        if needs_work.search(text) is None:
            return text
        text = separators.sub(" ", controls.sub("", escapes.sub("", text)))
        return text.expandtabs(4) if "\t" in text else text

    others = ["— • …", "a\u00a0b", "👩\u200d💻", "x\u202ey", "z\u2028w", "\u061c"]
    for text_or_code in [*range(128), *others]:
        char = chr(text_or_code) if isinstance(text_or_code, int) else text_or_code
        for text in (char, f"plan {char} step\n", f"\n{char * 3}"):
            assert textsafe.sanitize_for_terminal(text) == full_scrub(text), repr(text)
            shown = textsafe.json_for_terminal({"k": text})
            assert textsafe._json_unsafe().search(shown) is None and "\x1b" not in shown, repr(text)
            assert json.loads(shown) == {"k": text}
