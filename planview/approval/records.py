"""What the ledger says about approvals: the records read back from its events, and their history.

Events are checked field by field as they are read (`history`): the hash chain proves the ledger was
not edited after the fact, not that its events carry the fields planview reads.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Mapping

from planview.approval.errors import LedgerError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any, Literal

    PlanState = Literal["approved", "stale", "not approved"]


class ApprovalRecord(
    namedtuple(
        "ApprovalRecord",
        "seq plan canonical_sha256 file_sha256 artifact bytes approver at commit packet_sha256 channel note",
        defaults=(None, None, None),
    )
):
    """One `approved` ledger event, read back field by field."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    seq: int
    plan: str  # path relative to the project root
    canonical_sha256: str
    file_sha256: str  # of the sealed artifact's bytes
    artifact: str  # "artifact:<uuid>"
    bytes: int
    approver: str
    at: str  # UTC ISO 8601
    commit: str | None  # git HEAD at approval time
    packet_sha256: str | None
    channel: str | None  # how the person approved (see approval/channels.py); None: before channels
    note: str | None  # what the person said with the approval (the review's `a` line); None: nothing


class Revocation(
    namedtuple("Revocation", "seq plan changed_sections reason revokes channel", defaults=(None, None))
):
    """One `revoked` ledger event: which approval it ended and why."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    seq: int
    plan: str
    changed_sections: tuple[str, ...]
    reason: str
    revokes: int | None  # seq of the approval it revoked
    channel: str | None  # what noticed the change and recorded it


class ApprovalEntry(namedtuple("ApprovalEntry", "record revocation")):
    """An approval with the revocation that ended it, if any (the history's unit)."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    record: ApprovalRecord
    revocation: Revocation | None  # set once the approval was revoked


class PlanStatus(
    namedtuple(
        "PlanStatus",
        "plan state record changed_sections revoked detail empty",
        defaults=((), False, "", False),
    )
):
    """What `planview status` says of one plan: approved, stale or not approved, and why."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    plan: str
    state: PlanState
    record: ApprovalRecord | None  # the newest approval of the plan (even when revoked)
    changed_sections: tuple[str, ...]
    revoked: bool
    detail: str
    empty: bool  # nothing to approve (planview.approval.approvals.plan_is_empty)

    @property
    def exit_code(self) -> int:
        return 0 if self.state == "approved" else 1


# Field types an event must carry to be read as an approval or revocation. The chain proves the
# ledger was not edited after the fact, not that whoever wrote it (by hand, with a recomputed chain)
# wrote planview's fields: a malformed event is a LedgerError, never a KeyError or a wrong answer.
_TEXT, _NUMBER, _MAYBE_TEXT = (str,), (int,), (str, type(None))
# name -> (accepted types, required)
_EVENT_FIELDS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "approved": {
        "plan": (_TEXT, True),
        "canonical_sha256": (_TEXT, True),
        "file_sha256": (_TEXT, True),
        "artifact": (_TEXT, True),
        "bytes": (_NUMBER, True),
        "approver": (_TEXT, True),
        "commit": (_MAYBE_TEXT, False),
        "packet_sha256": (_MAYBE_TEXT, False),
        "channel": (_MAYBE_TEXT, False),
        "note": (_MAYBE_TEXT, False),
    },
    "revoked": {
        "plan": (_TEXT, True),
        "reason": (_MAYBE_TEXT, False),
        "revokes": ((int, type(None)), False),
        "changed_sections": ((list, type(None)), False),
        "channel": (_MAYBE_TEXT, False),
    },
}


def _check_event(event: Mapping[str, Any]) -> None:
    """LedgerError when an approved/revoked event lacks a field planview reads, or has the wrong type."""
    kind = event.get("type")
    for name, (kinds, required) in _EVENT_FIELDS.get(kind if isinstance(kind, str) else "", {}).items():
        if name not in event and not required:
            continue
        value = event.get(name)
        malformed = isinstance(value, bool) or not isinstance(value, kinds)
        if not malformed and isinstance(value, list):
            malformed = not all(isinstance(item, str) for item in value)
        if malformed:
            problem = "has no" if name not in event else "has a malformed"
            raise LedgerError(
                f"ledger event seq {event.get('seq')!r}: the {kind} event {problem} {name!r} field (written "
                "outside planview), so nothing in it can be trusted as approved. Run `planview audit`, move "
                "the ledger aside (keep it as evidence) and approve the plan again"
            )


def record_from_event(event: Mapping[str, Any]) -> ApprovalRecord:
    return ApprovalRecord(
        seq=int(event["seq"]),
        plan=str(event["plan"]),
        canonical_sha256=str(event["canonical_sha256"]),
        file_sha256=str(event["file_sha256"]),
        artifact=str(event["artifact"]),
        bytes=int(event["bytes"]),
        approver=str(event["approver"]),
        at=str(event["at"]),
        commit=event.get("commit"),
        packet_sha256=event.get("packet_sha256"),
        channel=event.get("channel"),
        note=event.get("note"),
    )


def revocation_from_event(event: Mapping[str, Any]) -> Revocation:
    return Revocation(
        seq=int(event["seq"]),
        plan=str(event["plan"]),
        changed_sections=tuple(event.get("changed_sections") or ()),
        reason=str(event.get("reason", "")),
        revokes=event.get("revokes"),
        channel=event.get("channel"),
    )


def history(events: tuple[Mapping[str, Any], ...]) -> list[ApprovalEntry]:
    """Every approval in ledger order, each with the revocation that ended it (if any)."""
    entries: list[ApprovalEntry] = []
    open_by_plan: dict[str, int] = {}  # plan -> index into entries of its live approval
    for event in events:
        _check_event(event)
        kind, plan = event.get("type"), str(event.get("plan"))
        if kind == "approved":
            open_by_plan[plan] = len(entries)
            entries.append(ApprovalEntry(record_from_event(event), None))
        elif kind == "revoked" and plan in open_by_plan:
            index = open_by_plan.pop(plan)
            entries[index] = ApprovalEntry(entries[index].record, revocation_from_event(event))
    return entries
