"""The real terminal's size, whatever the standard output is.

Textual's Linux driver asks `shutil.get_terminal_size()`, which reads standard output and falls back
to 80x24 when it is redirected: `planview review PLAN --json > decision.json` (how the Claude hook's
tmux window runs it) drew its first frame at the window's size and then redrew at 80x24. The size is
read from the controlling terminal instead, then from the streams the app draws on and reads from.
"""

from __future__ import annotations

import os
import shutil


def terminal_size() -> tuple[int, int]:
    """(columns, lines) of the controlling terminal (/dev/tty), else of stderr or stdin, else the
    `COLUMNS`/`LINES` / 80x24 fallback Textual used."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:
        fd = -1
    try:
        for candidate in (fd, 2, 0, 1):
            if candidate < 0:
                continue
            try:
                size = os.get_terminal_size(candidate)
            except (OSError, ValueError):
                continue
            if size.columns > 0 and size.lines > 0:
                return size.columns, size.lines
    finally:
        if fd >= 0:
            os.close(fd)
    width, height = shutil.get_terminal_size()
    return width or 80, height or 24
