"""The port each plan's browser review last used, so a second review reuses the same origin.

The browser keeps the page's theme choice per origin (`localStorage`), so the same port means the
same saved theme. Kept beside the review baselines as `<home>/reviews/<plan key>.port`; a missing,
unreadable or taken port just means a fresh one.
"""

from __future__ import annotations

from pathlib import Path

from planview.atomic import atomic_write
from planview.plan.reviews import ReviewBaselines


def _port_file(home: Path, plan: Path) -> Path:
    baselines = ReviewBaselines(home)
    return baselines.folder / f"{baselines.key_for(plan)}.port"


def remembered_port(home: Path | None, plan: Path) -> int | None:
    if home is None:
        return None
    try:
        port = int(_port_file(home, plan).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None
    return port if 1024 <= port <= 65535 else None


def remember_port(home: Path | None, plan: Path, port: int) -> None:
    if home is None:
        return
    path = _port_file(home, plan)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, f"{port}\n".encode("ascii"))
    except OSError:
        pass  # only a convenience: the next review picks a new port (and the default theme)
