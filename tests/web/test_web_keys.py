"""The browser page's keys come from the one key map (planview/keymap.py WEB): its `?` sheet is drawn
from the rows in its data island, and the keys its handler reacts to are exactly those rows' keys."""

from __future__ import annotations

import re
from pathlib import Path

import planview.web
from planview import keymap

CLIENT = Path(planview.web.__file__).parent / "assets" / "client.js"


def _function(source: str, name: str) -> str:
    start = source.index(f"function {name}(")
    end = source.index("\n  }\n", start)
    return source[start:end]


def test_the_handler_reacts_to_exactly_the_key_maps_keys() -> None:
    source = CLIENT.read_text(encoding="utf-8")
    handled = set(re.findall(r'key === "([^"]+)"', _function(source, "onKey")))
    mapped = {name for row in keymap.WEB for key in row.bindings for name in key.alternatives}
    assert handled == mapped, handled ^ mapped


def test_the_sheet_is_drawn_from_the_data_island_not_written_in_the_page() -> None:
    sheet = _function(CLIENT.read_text(encoding="utf-8"), "buildSheet")
    assert "data.keys" in sheet
    assert not re.search(r'\["[^"]+", "[^"]+"\]', sheet)  # no hand-kept ["key", "what"] pairs


def test_the_page_model_carries_the_rows_for_this_page() -> None:
    rows = keymap.web_keys(approve=False, diff=False)
    assert {"shown": "j / k", "what": "next / previous block"} in rows
    assert not any(row["shown"] in ("a", "d") for row in rows)
    shown = {row["shown"] for row in keymap.web_keys(approve=True, diff=True)}
    assert {"a", "d", "Escape", "?"} <= shown
