"""The cyclic garbage collector around a UI command's start-up.

Start-up makes tens of thousands of objects that live as long as the app (Textual's DOM, styles,
planview's modules and their dataclasses), and the collector walks them again and again on the way
to the first frame: about 15 ms of the review's first frame on this machine. It waits until the
first frame is on the terminal, then runs with what start-up made frozen (later collections skip it).
"""

from __future__ import annotations

import gc


def pause() -> None:
    """No cyclic collection until `resume` (call it from the app's first-frame callback)."""
    gc.disable()


def resume() -> None:
    """Freeze what start-up made and collect again; idempotent, and a no-op unless `pause` ran."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
