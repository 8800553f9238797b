"""The ledger's on-disk format: one event per line in canonical JSON, and `ledger.head`.

Shared by the reader and appender (`ledger.py`) and the full walk (`ledger_chain.py`); it holds
no I/O. See docs/LEDGER.md for the format.
"""

from __future__ import annotations

import hashlib
import json
from collections import namedtuple
from types import MappingProxyType

from planview.nesting import too_deep_json

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

GENESIS = "0" * 64
MAX_HEAD_BYTES = 4096
UNREADABLE = object()  # a head that exists but cannot be read: only the full walk can judge the ledger


def canonical_json(value: Any) -> str:
    """Sorted keys, no insignificant whitespace, non-ASCII kept as UTF-8, no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def utc_now() -> str:
    """UTC ISO 8601 with a `Z`, to the second."""
    from datetime import UTC, datetime  # only appends stamp a time

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Head(namedtuple("Head", "seq sha256 length digest pending", defaults=(None, None, None))):
    """`ledger.head`: what planview last wrote. `length`/`digest` are None in a head written by a
    planview before they existed (such a head is checked by the full walk, strictly)."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    seq: int
    sha256: str | None
    length: int | None
    digest: str | None
    pending: str | None

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "seq": self.seq,
            "sha256": self.sha256,
            "bytes": self.length,
            "digest": self.digest,
        }
        if self.pending is not None:
            data["pending"] = self.pending
        return canonical_json(data) + "\n"


def parse_head(raw: bytes) -> Any:
    if too_deep_json(raw):
        return UNREADABLE
    try:
        obj = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return UNREADABLE
    if not isinstance(obj, dict):
        return UNREADABLE
    seq, sha, length, digest, pending = (obj.get(k) for k in ("seq", "sha256", "bytes", "digest", "pending"))
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        return UNREADABLE
    if "bytes" in obj:  # the current format: every field must be right, or the head is unreadable
        ok = (
            isinstance(sha, str)
            and isinstance(length, int)
            and not isinstance(length, bool)
            and length >= 0
            and isinstance(digest, str)
            and (pending is None or isinstance(pending, str))
        )
        return Head(seq, sha, length, digest, pending) if ok else UNREADABLE
    return Head(seq, sha if isinstance(sha, str) else None)


def line_event(raw: bytes, number: int, expected_prev: str) -> Mapping[str, Any] | str:
    """The event on one line, or a problem message (used by the full walk and the fast path)."""
    if too_deep_json(raw):
        return "nested too deeply (edited or corrupted)"
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return "not valid UTF-8 (edited or corrupted)"
    except (ValueError, RecursionError):
        return "not valid JSON (edited or corrupted)" if raw else "blank line inserted"
    if not isinstance(obj, dict):
        return "not a JSON object (edited or inserted)"
    try:
        canonical = canonical_json(obj).encode("utf-8")
    except ValueError:
        canonical = b""
    if canonical != raw:
        return "not in canonical form (edited by hand)"
    if obj.get("prev") != expected_prev or obj.get("seq") != number:
        return "chain"
    if not isinstance(obj.get("type"), str) or not isinstance(obj.get("at"), str):
        return "missing its type or time"
    return MappingProxyType(obj)
