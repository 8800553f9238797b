"""The approval ledger: append-only, hash-chained JSON lines, checked from its head.

Each line is one event in canonical JSON (sorted keys, compact, UTF-8). Its `prev` field is the
SHA-256 of the previous line's bytes (without the newline); the first line carries `GENESIS`.
`seq` equals the line number. `ledger.head` beside the ledger records what planview last wrote:
the newest line's seq and hash, the ledger's length and the SHA-256 of all of it, and - while an
append is under way - the hash of the one line about to be written (`pending`). See docs/LEDGER.md.

Reading is incremental from the head: the bytes planview recorded are confirmed with one SHA-256
(no re-parse), only a `pending` line after them is parsed, and an approval query parses only the
lines that name its plan. Anything that does not match falls back to the full walk, which names
the first bad line. `verify()` (`planview audit`) always walks the whole chain.

Writers serialise on an exclusive `fcntl.flock` of `ledger.lock`; readers take a shared lock when
they can open the lock file read-only and read without one otherwise (a read-only home). An
append writes the pending head, then the line (O_APPEND + fsync), then the final head; a failed or
short write is rolled back to the old length under the lock. A torn last line from a crash is
reported; `repair()` (`planview audit --repair`) keeps a backup and removes only that line.
"""

from __future__ import annotations

import hashlib
import json
import os
from _thread import RLock  # threading's own RLock, without importing threading (start-up time)
from collections import namedtuple
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType

from planview.approval.errors import LedgerError
from planview.approval.ledger_format import (
    GENESIS,
    MAX_HEAD_BYTES,
    UNREADABLE,
    Head,
    canonical_json,
    line_event,
    parse_head,
    sha256_hex,
    utc_now,
)
from planview.fileguard import NotAFileError, TooLargeError, explain, open_regular, read_regular

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

    from planview.approval.ledger_chain import Verification, VerifiedPrefix

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock; refuse to write rather than risk a race
    fcntl = None  # type: ignore[assignment]

EVENT_TYPES = frozenset({"approved", "revoked", "rejected"})
_REPAIR_HINT = (
    "Run `planview audit` for details; planview never rewrites a ledger - move it aside "
    "(keep it as evidence) to start a new one."
)
_TORN_HINT = (
    "A write was interrupted: run `planview audit --repair` (it keeps a backup and removes only the "
    "unterminated last line)."
)


class Repair(namedtuple("Repair", "removed backup line")):
    """What `Ledger.repair` did: the bytes of the torn line removed and where the backup went."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    removed: int
    backup: Path | None
    line: int | None  # the torn line's number, when one was removed


class _Snapshot(
    namedtuple("_Snapshot", "data count last_hash trusted tail events hasher", defaults=(None, None))
):
    """A ledger read under the lock and found good: its bytes and how much of them is vouched for."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    data: bytes
    count: int  # events
    last_hash: str  # of the newest line (GENESIS when empty)
    trusted: int  # data[:trusted] is what ledger.head vouches for (never parsed on the fast path)
    tail: tuple[Mapping[str, Any], ...]  # events after `trusted` (parsed and chain-checked)
    events: tuple[Mapping[str, Any], ...] | None  # every event, when a full walk was needed
    hasher: Any  # sha256 of `data` so far (hashlib object), when the fast path computed it

    def digest(self) -> Any:
        """A sha256 object over `data` (a copy: the caller may go on updating it)."""
        return self.hasher.copy() if self.hasher is not None else hashlib.sha256(self.data)


class _LockState:
    """This Ledger object's hold on `ledger.lock`: re-entrant within the process."""

    __slots__ = ("depth", "exclusive", "fd", "guard")

    def __init__(self) -> None:
        self.depth = 0
        self.exclusive = False
        self.fd: int | None = None
        self.guard = RLock()


class Ledger:
    """`<home>/ledger.jsonl` plus `ledger.head` and `ledger.lock` beside it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.head_path = self.path.with_name("ledger.head")
        self.lock_path = self.path.with_name("ledger.lock")
        self._lock = _LockState()
        self._prefix: VerifiedPrefix | None = None
        self._parsed: tuple[str, tuple[Mapping[str, Any], ...]] | None = None  # (digest, events)

    # -- locking ---------------------------------------------------------------------------
    @contextmanager
    def locked(self, exclusive: bool = True) -> Iterator[None]:
        """Hold the ledger lock; re-entrant within this object (a shared hold cannot be upgraded).

        A shared hold on a home where `ledger.lock` cannot be opened read-only (never written, or a
        read-only home) reads without a lock: appends never leave a state a reader must not see
        except a half-written line, which verification reports as torn.
        """
        state = self._lock
        with state.guard:
            if state.depth:
                if exclusive and not state.exclusive:
                    raise RuntimeError("ledger lock: cannot upgrade a shared hold to exclusive")
                state.depth += 1
                try:
                    yield
                finally:
                    state.depth -= 1
                return
            if fcntl is None:  # pragma: no cover
                raise LedgerError(
                    "the approval ledger needs fcntl.flock (Linux or macOS); this platform has none"
                )
            fd = self._open_lock(exclusive)
            try:
                if fd is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
                state.depth, state.exclusive, state.fd = 1, exclusive, fd
                try:
                    yield
                finally:
                    state.depth, state.exclusive, state.fd = 0, False, None
                    if fd is not None:
                        fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                if fd is not None:
                    os.close(fd)

    def _open_lock(self, exclusive: bool) -> int | None:
        try:
            if exclusive:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                return open_regular(self.lock_path, os.O_RDWR | os.O_CREAT)
            return open_regular(self.lock_path, os.O_RDONLY)
        except NotAFileError as exc:
            raise LedgerError(str(exc)) from None
        except OSError as exc:
            if not exclusive:
                return None  # nothing to share a lock with, or a read-only home: read unlocked
            raise LedgerError(explain(exc, f"lock the approval ledger ({self.lock_path})")) from exc

    # -- reading ---------------------------------------------------------------------------
    def verify(self) -> Verification:
        """Walk every line, the chain and the head; report the first bad line instead of raising."""
        with self.locked(exclusive=False):
            data, head = self._read()
            from planview.approval.ledger_chain import Verification, check

            if not data and head is None:
                return Verification(ok=True, events=())
            result, self._prefix = check(data, head, self._prefix)
        return result

    def events(self, plan: str | None = None) -> tuple[Mapping[str, Any], ...]:
        """Events, verified from the head; with `plan`, those naming it (a fast query).

        With `plan` the caller still filters: when the head cannot vouch for the ledger (a head
        from an older planview) every event comes back, so that each is checked as it is read.
        Raises LedgerError naming the first bad line.
        """
        with self.locked(exclusive=False):
            snap = self._snapshot()
        if plan is None:
            return self._all_events(snap)
        if snap.events is not None:
            return snap.events  # the head did not vouch for it: every event, so all are checked
        return _events_naming(snap, plan)

    def last_seq(self) -> int:
        """The seq of the newest event (0 for an empty ledger), verified from the head."""
        with self.locked(exclusive=False):
            return self._snapshot().count

    def _all_events(self, snap: _Snapshot) -> tuple[Mapping[str, Any], ...]:
        if snap.events is not None:
            return snap.events
        key = sha256_hex(snap.data[: snap.trusted])
        if self._parsed is None or self._parsed[0] != key:
            self._parsed = (key, tuple(_parse_trusted(snap.data[: snap.trusted])))
        return self._parsed[1] + snap.tail

    def _read(self) -> tuple[bytes, Any]:
        try:
            data = read_regular(self.path)
        except FileNotFoundError:
            data = b""
        except NotAFileError as exc:
            raise LedgerError(str(exc)) from None
        except OSError as exc:
            raise LedgerError(explain(exc, f"read the approval ledger ({self.path})")) from exc
        return data, self._read_head()

    def _read_head(self) -> Any:
        try:
            raw = read_regular(self.head_path, MAX_HEAD_BYTES, "ledger head")
        except FileNotFoundError:
            return None
        except TooLargeError:
            return UNREADABLE
        except NotAFileError as exc:
            raise LedgerError(str(exc)) from None
        except OSError as exc:
            raise LedgerError(explain(exc, f"read {self.head_path}")) from exc
        return parse_head(raw)

    def _snapshot(self, *, appending: bool = False) -> _Snapshot:
        """The ledger as it is, vouched for by the head (fast) or by a full walk; LedgerError if bad."""
        data, head = self._read()
        snap = _from_head(data, head)
        if snap is not None:
            return snap
        if not data and head is None:
            return _Snapshot(data, 0, GENESIS, 0, (), ())
        from planview.approval.ledger_chain import check  # the head cannot vouch: walk every line

        result, self._prefix = check(data, head, self._prefix)
        if not result.ok:
            hint = _TORN_HINT if result.problem is not None and result.problem.torn else _REPAIR_HINT
            refusing = "; refusing to append to it" if appending else ""
            raise LedgerError(f"{self.path}: {result.describe()}{refusing}. {hint}")
        events = result.events
        last = sha256_hex(data[: len(data) - 1].rsplit(b"\n", 1)[-1]) if events else GENESIS
        return _Snapshot(data, len(events), last, len(data), (), events)

    # -- writing ---------------------------------------------------------------------------
    def append(self, event: Mapping[str, Any]) -> Mapping[str, Any]:
        """Append one event (seq, prev and `at` are filled in); refuses to write onto a bad ledger.

        Nothing half-written stays behind: a failed or short write is truncated back under the
        lock and raised as a LedgerError naming the cause (the disk is full, read-only, ...).
        """
        kind = event.get("type")
        if kind not in EVENT_TYPES:
            raise ValueError(f"unknown ledger event type {kind!r}; expected one of {sorted(EVENT_TYPES)}")
        if "seq" in event or "prev" in event:
            raise ValueError("seq and prev are assigned by the ledger")
        with self.locked(exclusive=True):
            snap = self._snapshot(appending=True)
            record = dict(event)
            record.setdefault("at", utc_now())
            record["seq"] = snap.count + 1
            record["prev"] = snap.last_hash
            line = canonical_json(record).encode("utf-8")
            digest = snap.digest()
            now = Head(snap.count, snap.last_hash, len(snap.data), digest.hexdigest(), sha256_hex(line))
            self._write_head(now)  # first: a line the head does not announce is a forgery
            self._append_line(line + b"\n", old_length=len(snap.data))
            digest.update(line + b"\n")
            done = Head(record["seq"], sha256_hex(line), len(snap.data) + len(line) + 1, digest.hexdigest())
            try:
                self._write_head(done)
            except LedgerError:
                pass  # the line is on disk and the pending head vouches for it; the next append catches up
        return record

    def _write_head(self, head: Head) -> None:
        from planview import atomic

        atomic.sweep_folder(self.head_path.parent)  # head temp files of appends killed mid-write
        try:
            atomic.atomic_write(self.head_path, head.to_json())
        except OSError as exc:
            raise LedgerError(
                explain(exc, f"update {self.head_path}") + "; nothing was recorded in the ledger"
            ) from exc

    def _append_line(self, data: bytes, *, old_length: int) -> None:
        created = not self.path.exists()
        try:
            fd = open_regular(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except NotAFileError as exc:
            raise LedgerError(str(exc)) from None
        except OSError as exc:
            raise LedgerError(
                explain(exc, f"record the event in {self.path}") + "; nothing was recorded"
            ) from exc
        try:
            try:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                os.fsync(fd)
            except OSError as exc:
                self._roll_back(fd, old_length, exc)
                raise LedgerError(
                    explain(exc, f"record the event in {self.path}") + "; nothing was recorded"
                ) from exc
        finally:
            os.close(fd)
        if created:
            _fsync_dir(self.path.parent)

    def _roll_back(self, fd: int, old_length: int, cause: OSError) -> None:
        """Truncate a failed append back to the ledger's old length (we hold the exclusive lock)."""
        try:
            os.ftruncate(fd, old_length)
            os.fsync(fd)
        except OSError as exc:
            raise LedgerError(
                explain(cause, f"record the event in {self.path}")
                + f"; the partial line could not be removed ({exc.strerror or exc}): once the cause is "
                "fixed, run `planview audit --repair`"
            ) from cause

    def repair(self) -> Repair:
        """Remove an unterminated last line (a write cut short by a crash), keeping a backup.

        Only that: any other problem is refused (the ledger is evidence; move it aside).
        """
        with self.locked(exclusive=True):
            data, head = self._read()
            from planview.approval.ledger_chain import check, split_lines

            lines, torn = split_lines(data)
            if torn is None:
                return Repair(0, None, None)
            keep = len(data) - len(torn)
            rest, _ = check(data[:keep], head, None)
            if not rest.ok:
                raise LedgerError(
                    f"{self.path}: besides the torn last line, {rest.describe()}; --repair removes only a "
                    "torn last line, so nothing was changed. Move the ledger aside (keep it as evidence)."
                )
            backup = self._backup(data)
            try:
                fd = open_regular(self.path, os.O_WRONLY)
                try:
                    os.ftruncate(fd, keep)
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError as exc:
                raise LedgerError(explain(exc, f"repair {self.path}") + f"; the backup is {backup}") from exc
            self._prefix = None
            return Repair(len(torn), backup, len(lines) + 1)

    def _backup(self, data: bytes) -> Path:
        from datetime import UTC, datetime

        from planview.atomic import open_dir, write_in_dir

        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        try:
            dir_fd = open_dir(self.path.parent)
            try:
                for n in range(1, 100):
                    name = f"{self.path.name}.{stamp}{'' if n == 1 else f'-{n}'}.bak"
                    if write_in_dir(dir_fd, name, data, mode=0o444, exclusive=True):
                        return self.path.with_name(name)
            finally:
                os.close(dir_fd)
        except OSError as exc:
            raise LedgerError(
                explain(exc, f"back up {self.path} before repairing it") + "; nothing was changed"
            ) from exc
        raise LedgerError(
            f"cannot back up {self.path}: too many backups named {stamp}; try again in a second"
        )


def _fsync_dir(folder: Path) -> None:
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass  # some filesystems refuse fsync on folders; the line itself is synced
    finally:
        os.close(dir_fd)


def _from_head(data: bytes, head: Any) -> _Snapshot | None:
    """The fast path: None unless the head vouches for the bytes and at most its pending line follows."""
    if not isinstance(head, Head) or head.length is None or len(data) < head.length:
        return None
    if head.length and data[head.length - 1 : head.length] != b"\n":
        return None
    hasher = hashlib.sha256(memoryview(data)[: head.length])  # no copy of a large ledger
    if hasher.hexdigest() != head.digest:
        return None
    rest = data[head.length :]
    if not rest:
        return _Snapshot(data, head.seq, head.sha256 or GENESIS, head.length, (), hasher=hasher)
    if head.pending is None or rest.count(b"\n") != 1 or not rest.endswith(b"\n"):
        return None
    raw = rest[:-1]
    if sha256_hex(raw) != head.pending:
        return None
    obj = line_event(raw, head.seq + 1, head.sha256 or GENESIS)
    if isinstance(obj, str):
        return None  # the full walk names the problem
    hasher.update(rest)
    return _Snapshot(data, head.seq + 1, head.pending, head.length, (obj,), hasher=hasher)


def _parse_trusted(data: bytes) -> Iterator[Mapping[str, Any]]:
    """Events of lines the head vouches for (they were checked when they were appended)."""
    for raw in data.split(b"\n")[:-1]:
        yield MappingProxyType(json.loads(raw))


def _events_naming(snap: _Snapshot, plan: str) -> tuple[Mapping[str, Any], ...]:
    """The events whose `plan` is `plan`: a byte search for its canonical `"plan":"..."` field, so
    only those lines are parsed (inside a JSON string a quote is always escaped, so the pattern
    cannot match string content)."""
    needle = b'"plan":' + canonical_json(plan).encode("utf-8")
    data, end = snap.data, snap.trusted
    found: list[Mapping[str, Any]] = []
    at = data.find(needle, 0, end)
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at, end)
        obj = json.loads(data[start:stop])
        if obj.get("plan") == plan:
            found.append(MappingProxyType(obj))
        at = data.find(needle, stop, end)
    found.extend(e for e in snap.tail if e.get("plan") == plan)
    return tuple(found)
