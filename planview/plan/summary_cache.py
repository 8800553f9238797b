"""`planview plans`'s summaries of each plan (title, steps done/total), kept between calls.

Listing parsed every plan on every call: 5.8 s for 10,000 plans. A summary is kept in
`<home>/cache/plans.json` under the plan's file name with the stat stamp it was read at
(inode, size, mtime_ns, ctime_ns), and used again only while the file's stamp is the same. ctime
changes with every write, and no program can set it back (utime sets mtime only), so a same-size
edit with its mtime restored is still read again.

The cache is a convenience, never evidence (approve, status and audit never read it), and it is
never trusted: a file that is not the JSON this module writes, of another version, or with an
entry of the wrong shape is ignored (and rewritten); an entry whose stamp differs is read again. A
plan written within `RACY_NS` of the save is not cached: a second same-size write in the same clock
tick (file times have a coarse clock, ~4 ms) could carry the same stamp, the way git's "racily
clean" index entries can. Saves are atomic (planview/atomic.py) and only happen when an entry
changed; a home that cannot be written (a read-only checkout) lists without saving.
"""

from __future__ import annotations

import json
import os
import time
from collections import namedtuple
from pathlib import Path

__all__ = ["RACY_NS", "Summary", "SummaryCache"]

VERSION = 1
RACY_NS = 2_000_000_000  # a plan changed this recently is read again next time, not cached
MAX_CACHE_BYTES = 64 * 1024 * 1024


class Summary(namedtuple("Summary", "title steps_done steps_total unreadable")):
    """What the listing shows of one plan, as read at one stat stamp."""

    __slots__ = ()
    title: str
    steps_done: int
    steps_total: int
    unreadable: str | None


def stamp_of(info: os.stat_result) -> tuple[int, int, int, int]:
    """The stamp a summary is kept under: (inode, size, mtime_ns, ctime_ns)."""
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _entry(value: object) -> tuple[tuple[int, int, int, int], Summary] | None:
    """A cached entry if it has exactly the shape `save` writes, else None (read the plan again)."""
    if type(value) is not list or len(value) != 8:
        return None
    ino, size, mtime, ctime, title, done, total, unreadable = value
    if not (type(ino) is type(size) is type(mtime) is type(ctime) is type(done) is type(total) is int):
        return None  # (bool is not int here: `type`, not isinstance)
    if min(ino, size, mtime, ctime, done) < 0 or done > total or type(title) is not str:
        return None
    if unreadable is not None and type(unreadable) is not str:
        return None
    return (ino, size, mtime, ctime), Summary(title, done, total, unreadable)


class SummaryCache:
    """The summaries of one plans folder, loaded from `path` (the home's cache/plans.json)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._entries: dict[str, tuple[tuple[int, int, int, int], Summary]] = {}
        self._changed = False
        self._load()

    def _load(self) -> None:
        from planview.errors import PlanviewError
        from planview.fileguard import read_regular

        try:
            data = json.loads(read_regular(self.path, MAX_CACHE_BYTES, "plans cache"))
        except FileNotFoundError:
            return
        except (OSError, ValueError, RecursionError, PlanviewError):  # unreadable: rebuilt, never trusted
            self._changed = True
            return
        if (
            not isinstance(data, dict)
            or data.get("version") != VERSION
            or not isinstance(data.get("plans"), dict)
        ):
            self._changed = True
            return
        for name, value in data["plans"].items():
            entry = _entry(value) if isinstance(name, str) else None
            if entry is None:
                self._changed = True
                continue
            self._entries[name] = entry

    def get(self, name: str, stamp: tuple[int, int, int, int]) -> Summary | None:
        """The summary kept for `name` at exactly `stamp`, else None."""
        entry = self._entries.get(name)
        return entry[1] if entry is not None and entry[0] == stamp else None

    def put(self, name: str, stamp: tuple[int, int, int, int], summary: Summary) -> None:
        """Keep `summary` for `name` read at `stamp` (not when the file changed just now)."""
        if time.time_ns() - max(stamp[2], stamp[3]) < RACY_NS:
            if self._entries.pop(name, None) is not None:
                self._changed = True
            return
        if self._entries.get(name) != (stamp, summary):
            self._entries[name] = (stamp, summary)
            self._changed = True

    def keep_only(self, names: set[str]) -> None:
        """Forget plans no longer in the folder."""
        gone = [name for name in self._entries if name not in names]
        for name in gone:
            del self._entries[name]
        self._changed = self._changed or bool(gone)

    def save(self) -> None:
        """Write the cache if anything changed, atomically; a home that cannot be written is left as is."""
        if not self._changed or not self.path.parent.parent.is_dir():
            return
        from planview.atomic import atomic_write

        plans = {name: [*stamp, *summary] for name, (stamp, summary) in sorted(self._entries.items())}
        try:
            self.path.parent.mkdir(exist_ok=True)
            atomic_write(self.path, json.dumps({"version": VERSION, "plans": plans}, separators=(",", ":")))
        except OSError:
            return  # a read-only home: listing still works, it only reads every plan again
        self._changed = False
