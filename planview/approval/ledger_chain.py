"""The full walk of the ledger: every line, the chain and the head, naming the first bad line.

`planview audit` always walks; a reader or an appender walks only when `ledger.head` cannot vouch
for the bytes (see ledger.py), so this module is imported only then.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from planview.approval.ledger_format import GENESIS, UNREADABLE, line_event, sha256_hex

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


@dataclass(frozen=True)
class LedgerProblem:
    """The first bad line the full walk found, and what is wrong with it."""

    line: int  # 1-based line of the ledger file (equals the seq it should carry)
    message: str

    @property
    def seq(self) -> int:
        return self.line

    @property
    def torn(self) -> bool:
        return self.message.startswith("torn last line")


@dataclass(frozen=True)
class Verification:
    """The full walk's verdict: the events that verified and the first problem, if any."""

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


@dataclass(frozen=True)
class VerifiedPrefix:
    """Lines already walked in this process: re-checked with one sha256 over their bytes instead of a re-parse."""

    length: int  # bytes of complete, verified lines
    digest: str  # sha256 of data[:length]
    events: tuple[Mapping[str, Any], ...]
    hashes: tuple[str, ...]


def split_lines(data: bytes) -> tuple[list[bytes], bytes | None]:
    """Complete lines (without newlines) and the torn tail, if the data does not end in a newline."""
    if not data:
        return [], None
    parts = data.split(b"\n")
    tail = parts.pop()
    return parts, (tail if tail else None)


def check(
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
    lines, torn = split_lines(data[offset:])

    def bad(line: int, message: str) -> Verification:
        return Verification(ok=False, events=tuple(events[: line - 1]), problem=LedgerProblem(line, message))

    for number, raw in enumerate(lines, start=len(events) + 1):
        expected_prev = hashes[-1] if hashes else GENESIS
        obj = line_event(raw, number, expected_prev)
        if isinstance(obj, str) and obj != "chain":
            return bad(number, obj), None
        if obj == "chain":
            found = json.loads(raw)
            if found.get("prev") != expected_prev:
                if number == 1:
                    return bad(
                        1, "prev is not the genesis value (a line was removed or inserted before it)"
                    ), None
                if number >= 3 and found.get("prev") == hashes[-2]:
                    return bad(
                        number - 1, f"inserted (line {number} chains to line {number - 2}, skipping it)"
                    ), None
                if found.get("seq") == number:
                    return bad(
                        number - 1,
                        f"changed after it was written (its hash no longer matches the prev of line {number})",
                    ), None
                return bad(
                    number, f"out of place: carries seq {found.get('seq')!r} (a line was removed or moved)"
                ), None
            return bad(
                number,
                f"carries seq {found.get('seq')!r}, expected {number} (a line was removed, inserted or moved)",
            ), None
        events.append(obj)  # type: ignore[arg-type]
        hashes.append(sha256_hex(raw))

    length = offset + sum(len(raw) + 1 for raw in lines)
    verified = VerifiedPrefix(length, sha256_hex(data[:length]), tuple(events), tuple(hashes))
    if torn is not None:
        torn_at = len(events) + 1
        return bad(
            torn_at, f"torn last line ({len(torn)} bytes without a newline: a write was interrupted)"
        ), verified
    return check_head(data, events, hashes, head, bad), verified


def check_head(
    data: bytes,
    events: list[Mapping[str, Any]],
    hashes: list[str],
    head: Any,
    bad: Callable[[int, str], Verification],
) -> Verification:
    count = len(hashes)
    if head is None:
        if count == 0:
            return Verification(ok=True, events=())
        return bad(count, "ledger.head is missing, so the newest line cannot be confirmed")
    if head is UNREADABLE:
        return bad(max(count, 1), "ledger.head is unreadable")
    seq = head.seq
    if seq > count:
        return bad(count + 1, f"line(s) {count + 1}..{seq} were removed from the end")
    if seq >= 1 and hashes[seq - 1] != head.sha256:
        return bad(seq, "changed after it was written (its hash no longer matches ledger.head)")
    if head.length is not None:
        end = end_of_line(data, seq)
        if end != head.length or sha256_hex(data[:end]) != head.digest:
            return bad(
                1,
                f"lines 1..{seq} are not the bytes planview wrote (ledger.head's digest differs): "
                "the ledger was rewritten and its hash chain recomputed",
            )
    if seq == count:
        return Verification(ok=True, events=tuple(events))
    if seq == count - 1 and head.length is not None and head.pending == hashes[-1]:
        return Verification(ok=True, events=tuple(events))  # an append whose final head was not written
    return bad(seq + 1, "appended outside planview (ledger.head does not know it)")


def end_of_line(data: bytes, seq: int) -> int:
    """Byte offset just past line `seq` (0 for seq 0)."""
    end = 0
    for _ in range(seq):
        end = data.index(b"\n", end) + 1
    return end
