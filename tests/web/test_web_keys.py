"""Every key the review page handles is on its keyboard sheet (and nothing the sheet lists is dead)."""

from __future__ import annotations

import re
from pathlib import Path

import planview.web

CLIENT = Path(planview.web.__file__).parent / "assets" / "client.js"


def _function(source: str, name: str) -> str:
    start = source.index(f"function {name}(")
    end = source.index("\n  }\n", start)
    return source[start:end]


def test_the_sheet_lists_every_key_the_page_handles() -> None:
    source = CLIENT.read_text(encoding="utf-8")
    handled = set(re.findall(r'key === "([^"]+)"', _function(source, "onKey")))
    sheet = _function(source, "buildSheet")
    listed = {
        key.strip() for entry in re.findall(r'\["([^"]+)", "[^"]+"\]', sheet) for key in entry.split(" / ")
    }
    assert handled == {"Escape", "?", "j", "k", "c", "e", "s", "a", "d"}, (
        handled
    )  # what this test was written for
    assert {"Esc" if key == "Escape" else key for key in handled} == listed
