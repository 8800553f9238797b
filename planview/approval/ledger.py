"""The approval ledger: append-only, hash-chained JSON lines.

Each line is one event in canonical JSON (sorted keys, compact, UTF-8). Its `prev` field is the
SHA-256 of the previous line's bytes (without the newline); the first line carries `GENESIS`.
`seq` equals the line number. A small `ledger.head` file beside the ledger records the seq and
hash of the last line, so that editing or deleting the *last* line is caught too (a chain alone
cannot see that). See docs/LEDGER.md.

Writers serialise on an exclusive `fcntl.flock` of `ledger.lock` and append with O_APPEND + fsync;
readers take a shared lock so they never see half a line from a live writer. A torn last line (a
crash mid-write) is reported, never dropped or repaired: the ledger is evidence.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from planview.approval.errors import LedgerError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock; refuse to write rather than risk a race
    fcntl = None  # type: ignore[assignment]

GENESIS = "0" * 64
EVENT_TYPES = frozenset({"approved", "revoked", "rejected"})
_REPAIR_HINT = (
    "Run `planview audit` for details; planview never repairs a ledger - move it aside "
    "(keep it as evidence) to start a new one."
)


def canonical_json(value: Any) -> str:
    """Sorted keys, no insignificant whitespace, non-ASCII kept as UTF-8, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def utc_now() -> str:
    """UTC ISO 8601 with a `Z`, to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class LedgerProblem:
    line: int  # 1-based line of the ledger file (equals the seq it should carry)
    message: str

    @property
    def seq(self) -> int:
        return self.line


@dataclass(frozen=True)
class Verification:
    ok: bool
    events: tuple[Mapping[str, Any], ...]  # events that verified, in order (all of them when ok)
    problem: LedgerProblem | None = None

    @property
    def first_bad_seq(self) -> int | None:
        return self.problem.seq if self.problem else None

    def describe(self) -> str:
        if self.problem is None:
            return f"ledger ok: {len(self.events)} event(s), chain verified"
        return f"ledger broken at line {self.problem.line} (seq {self.problem.seq}): {self.problem.message}"


@dataclass
class _LockState:
    depth: int = 0
    exclusive: bool = False
    fd: int | None = None
    guard: threading.RLock = field(default_factory=threading.RLock)


class Ledger:
    """`<home>/ledger.jsonl` plus `ledger.head` and `ledger.lock` beside it."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.head_path = self.path.with_name("ledger.head")
        self.lock_path = self.path.with_name("ledger.lock")
        self._lock = _LockState()
        self._prefix: VerifiedPrefix | None = None

    # -- locking ---------------------------------------------------------------------------
    @contextmanager
    def locked(self, exclusive: bool = True) -> Iterator[None]:
        """Hold the ledger lock; re-entrant within this object (a shared hold cannot be upgraded)."""
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
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
                state.depth, state.exclusive, state.fd = 1, exclusive, fd
                try:
                    yield
                finally:
                    state.depth, state.exclusive, state.fd = 0, False, None
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    # -- reading ---------------------------------------------------------------------------
    def verify(self) -> Verification:
        """Check every line, the chain and the head; report the first bad line instead of raising."""
        if not self.path.exists() and not self.head_path.exists():
            return Verification(ok=True, events=())
        with self.locked(exclusive=False):
            data = self.path.read_bytes() if self.path.exists() else b""
            head = self._read_head()
            result, self._prefix = _check(data, head, self._prefix)
        return result

    def events(self) -> tuple[Mapping[str, Any], ...]:
        """All events, verified; raises LedgerError naming the first bad line."""
        result = self.verify()
        if not result.ok:
            raise LedgerError(f"{self.path}: {result.describe()}. {_REPAIR_HINT}")
        return result.events

    def _read_head(self) -> Any:
        try:
            raw = self.head_path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return _UNREADABLE

    # -- writing ---------------------------------------------------------------------------
    def append(self, event: Mapping[str, Any]) -> Mapping[str, Any]:
        """Append one event (seq, prev and `at` are filled in); refuses to write onto a bad ledger."""
        kind = event.get("type")
        if kind not in EVENT_TYPES:
            raise ValueError(f"unknown ledger event type {kind!r}; expected one of {sorted(EVENT_TYPES)}")
        if "seq" in event or "prev" in event:
            raise ValueError("seq and prev are assigned by the ledger")
        with self.locked(exclusive=True):
            existing = self.path.read_bytes() if self.path.exists() else b""
            result, self._prefix = _check(existing, self._read_head(), self._prefix)
            if not result.ok:
                raise LedgerError(
                    f"{self.path}: {result.describe()}; refusing to append to it. {_REPAIR_HINT}"
                )
            lines = _split(existing)[0]
            record = dict(event)
            record.setdefault("at", utc_now())
            record["seq"] = len(lines) + 1
            record["prev"] = sha256_hex(lines[-1]) if lines else GENESIS
            line = canonical_json(record).encode("utf-8")
            self._append_line(line + b"\n", created=not existing)
            from planview.atomic import atomic_write

            head = {"seq": record["seq"], "sha256": sha256_hex(line)}
            atomic_write(self.head_path, canonical_json(head) + "\n")
        return record

    def _append_line(self, data: bytes, *, created: bool) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            dir_fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)


_UNREADABLE = object()


def _split(data: bytes) -> tuple[list[bytes], bytes | None]:
    """Complete lines (without newlines) and the torn tail, if the data does not end in a newline."""
    if not data:
        return [], None
    parts = data.split(b"\n")
    tail = parts.pop()
    return parts, (tail if tail else None)


@dataclass(frozen=True)
class VerifiedPrefix:
    """Lines already verified: re-checked with one sha256 over their bytes instead of a re-parse."""

    length: int  # bytes of complete, verified lines
    digest: str  # sha256 of data[:length]
    events: tuple[Mapping[str, Any], ...]
    hashes: tuple[str, ...]


def _check(
    data: bytes, head: Any, prefix: VerifiedPrefix | None
) -> tuple[Verification, VerifiedPrefix | None]:
    events: list[Mapping[str, Any]] = []
    hashes: list[str] = []
    offset = 0
    if (
        prefix is not None
        and len(data) >= prefix.length
        and sha256_hex(data[: prefix.length]) == prefix.digest
    ):
        events, hashes, offset = list(prefix.events), list(prefix.hashes), prefix.length
    lines, torn = _split(data[offset:])

    def bad(line: int, message: str) -> Verification:
        return Verification(ok=False, events=tuple(events[: line - 1]), problem=LedgerProblem(line, message))

    for number, raw in enumerate(lines, start=len(events) + 1):
        try:
            obj = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            return bad(number, "not valid UTF-8 (edited or corrupted)"), None
        except ValueError:
            return bad(number, "not valid JSON (edited or corrupted)" if raw else "blank line inserted"), None
        if not isinstance(obj, dict):
            return bad(number, "not a JSON object (edited or inserted)"), None
        try:
            canonical = canonical_json(obj).encode("utf-8")
        except ValueError:
            canonical = b""
        if canonical != raw:
            return bad(number, "not in canonical form (edited by hand)"), None
        expected_prev = hashes[-1] if hashes else GENESIS
        if obj.get("prev") != expected_prev:
            if number == 1:
                return bad(
                    1, "prev is not the genesis value (a line was removed or inserted before it)"
                ), None
            if number >= 3 and obj.get("prev") == hashes[-2]:
                return bad(
                    number - 1, f"inserted (line {number} chains to line {number - 2}, skipping it)"
                ), None
            if obj.get("seq") == number:
                return bad(
                    number - 1,
                    f"changed after it was written (its hash no longer matches the prev of line {number})",
                ), None
            return bad(
                number, f"out of place: carries seq {obj.get('seq')!r} (a line was removed or moved)"
            ), None
        if obj.get("seq") != number:
            return bad(
                number,
                f"carries seq {obj.get('seq')!r}, expected {number} (a line was removed, inserted or moved)",
            ), None
        if not isinstance(obj.get("type"), str) or not isinstance(obj.get("at"), str):
            return bad(number, "missing its type or time"), None
        events.append(MappingProxyType(obj))
        hashes.append(sha256_hex(raw))

    length = offset + sum(len(raw) + 1 for raw in lines)
    verified = VerifiedPrefix(length, sha256_hex(data[:length]), tuple(events), tuple(hashes))
    if torn is not None:
        torn_at = len(events) + 1
        return bad(
            torn_at, f"torn last line ({len(torn)} bytes without a newline: a write was interrupted)"
        ), verified
    return _check_head(events, hashes, head, bad), verified


def _check_head(events: list, hashes: list[str], head: Any, bad) -> Verification:
    count = len(hashes)
    if head is None:
        # A crash between the first append and writing the head leaves one line and no head.
        if count <= 1:
            return Verification(ok=True, events=tuple(events))
        return bad(count, "ledger.head is missing, so the last line cannot be confirmed")
    if head is _UNREADABLE or not isinstance(head, dict) or not isinstance(head.get("seq"), int):
        return bad(max(count, 1), "ledger.head is unreadable")
    seq, digest = head["seq"], head.get("sha256")
    if seq > count:
        return bad(count + 1, f"line(s) {count + 1}..{seq} were removed from the end")
    if seq == count or seq == count - 1:
        # seq == count - 1: a crash between appending a line and updating the head.
        if seq >= 1 and hashes[seq - 1] != digest:
            return bad(seq, "changed after it was written (its hash no longer matches ledger.head)")
        return Verification(ok=True, events=tuple(events))
    return bad(seq + 2, "appended outside planview (ledger.head does not know it)")
