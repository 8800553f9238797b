"""Textual bindings from the one key map (planview/keymap.py), with the `[keys]` overrides applied."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from textual.app import App
from textual.binding import Binding, BindingType

from planview.keymap import KeyRow, with_overrides


def bindings(rows: Sequence[KeyRow], *, footer: bool = False) -> list[BindingType]:
    """One Binding per key of `rows`; with `footer` (a screen drawing Textual's own Footer) the rows
    that have a label are shown there, a binding with several spellings by its first."""
    out: list[BindingType] = []
    for row in rows:
        shown = footer and bool(row.label)
        for key in row.bindings:
            display = key.alternatives[0] if shown and len(key.alternatives) > 1 else None
            out.append(
                Binding(
                    key.keys,
                    key.action,
                    row.label or row.description,
                    show=shown,
                    key_display=display,
                    priority=key.priority,
                    id=key.id,
                )
            )
    return out


def app_overrides(app: App) -> Mapping[str, str]:
    """The `[keys]` rebinds the app was started with (Textual's keymap, set by `App.set_keymap`)."""
    keymap = getattr(app, "_keymap", None)
    return keymap if isinstance(keymap, Mapping) else {}


def resolved(app: App, rows: Sequence[KeyRow]) -> tuple[KeyRow, ...]:
    """`rows` as the app binds them (the config's rebinds applied): what hints and `?` must show."""
    return with_overrides(rows, app_overrides(app))
