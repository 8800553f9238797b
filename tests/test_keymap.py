"""The one key map (planview/keymap.py): the screens bind it, the footer, `?`, `/help`, README and the
browser page show it, `[keys]` rebinds it — and a drift between any of them fails here."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview import keymap
from planview.config import ConfigError, load_config
from tests.conftest import REPO


def _section(text: str, name: str) -> str:
    start = text.index(f"<!-- keys:{name} -->\n") + len(f"<!-- keys:{name} -->\n")
    return text[start : text.index(f"\n<!-- /keys:{name} -->")]


def test_readme_key_table_is_the_key_map() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert _section(readme, "review") == keymap.markdown_table(keymap.REVIEW), (
        "README's review key table drifted: paste planview.keymap.markdown_table(keymap.REVIEW) between the markers"
    )


def test_every_screen_binds_exactly_its_key_map_rows() -> None:
    from planview.tui.review.screen import ReviewScreen
    from planview.tui.session_screen import SessionScreen

    for screen, rows in ((ReviewScreen, keymap.REVIEW), (SessionScreen, keymap.SESSION)):
        bound = {(b.id, b.key, b.action) for b in screen.BINDINGS}
        mapped = {(k.id, k.keys, k.action) for row in rows for k in row.bindings}
        assert bound == mapped, screen.__name__
        for row in rows:
            for key in row.bindings:
                action = key.action.split("(")[0]
                assert hasattr(screen, f"action_{action}"), (screen.__name__, action)


def test_the_help_sheet_and_slash_help_list_every_row() -> None:
    from planview.tui.help_listing import KEYS as HELP_KEYS
    from planview.tui.review.keys import sheet

    entries = sheet()
    for row in keymap.REVIEW + keymap.SEARCH + keymap.CONFIRM + keymap.EDITOR:
        assert (row.display, row.description) in entries, row.description
    for row in keymap.SESSION:
        assert f"{row.hint_key} {row.description}" in HELP_KEYS


def test_ids_are_unique_and_footers_lead_with_the_safe_exit() -> None:
    ids = [k.id for rows in keymap.SCREENS.values() for row in rows for k in row.bindings]
    assert len(ids) == len(set(ids))
    for name in ("review", "search", "confirm", "editor"):
        first = keymap.footer_rows(keymap.SCREENS[name], {"approvable": True, "changed": True})[0]
        assert first.hint_key == "Esc", name


def test_config_rebinds_a_key_and_refuses_an_unknown_name(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[keys]\n"review.approve" = "ctrl+a"\n', encoding="utf-8")
    config = load_config(paths=(good,), env={})
    rows = keymap.with_overrides(keymap.REVIEW, config.keys)
    approve = next(row for row in rows if row.bindings and row.bindings[0].id == "review.approve")
    assert approve.hint_key == "Ctrl+A" and approve.display == "Ctrl+A"
    bad = tmp_path / "bad.toml"
    bad.write_text('[keys]\n"review.aprove" = "ctrl+a"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"no key called 'review.aprove'; rebind one of: .*review.approve"):
        load_config(paths=(bad,), env={})


async def test_a_rebound_key_works_and_the_footer_and_sheet_say_so(tmp_path: Path) -> None:
    from planview.tui.review.app import ReviewApp
    from planview.tui.review.keys import KeysHelp

    path = tmp_path / "plan.md"
    path.write_text("# Plan\n\n## Steps\n\n- [ ] one\n", encoding="utf-8")
    app = ReviewApp(path, home=tmp_path / "home", watch=False, keymap={"review.refine": "ctrl+r"})
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        screen = app.review
        assert "Ctrl+R refine" in screen.hints_text and " r refine" not in screen.hints_text
        await pilot.press("r")  # no longer the refine key
        assert not screen.editing
        await pilot.press("ctrl+r")
        assert screen.editing
        await pilot.press("escape", "question_mark")
        assert isinstance(app.screen, KeysHelp)
        assert ("Ctrl+R", "refine: write what should change") in app.screen.entries
