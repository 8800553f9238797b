"""The exact pin: a session executes only under the one approval event it received.

`PinCheck.check(plan, pin)` holds while the ledger's current approval of the plan *is* the pinned
event (same sequence number) and the file still has the pinned canonical hash. Another approval of
the plan appearing during the session - even one that matches the file, even one typed by a person
in another terminal - does not re-pin it: the session goes back to planning, asks for a review, and
withdraws that approval (one `revoked` event naming both). Left live, it would pass at `--resume`
for one made after the session stopped, so an approval the agent forged from its shell (the marker
unset) resumed in execute mode.

When the pinned approval is the plan's live one and the file changed, the check records one
`revoked` event naming the changed sections. The plan file is re-hashed only when its stat (size,
mtime_ns, ctime_ns, inode: fileguard.stat_stamp) or the ledger's changed since the check last held: a
long run of edits costs one `stat` pair per mutating call.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from planview.approval.approvals import Approvals
from planview.approval.channels import shown
from planview.approval.records import ApprovalRecord
from planview.errors import PlanviewError
from planview.fileguard import stat_stamp

Stamp = tuple[tuple[int, int, int, int] | None, ...]


@dataclass(frozen=True)
class PinBreak:
    """Why the pinned approval no longer holds."""

    sections: tuple[str, ...]  # the sections that changed since the pinned approval, when known
    detail: str  # one clause for the model and the transcript


class PinCheck:
    def __init__(self, approvals: Approvals) -> None:
        self.approvals = approvals
        self._held: tuple[int, Path, Stamp] | None = None  # (pin seq, plan, stamp) when it last held

    def _stamp(self, plan: Path) -> Stamp:
        return (stat_stamp(plan), stat_stamp(self.approvals.ledger.path))

    def forget(self) -> None:
        self._held = None

    def check(self, plan: Path, pin: ApprovalRecord) -> PinBreak | None:
        """None while `pin` is the plan's current approval; else why not (a revocation is recorded)."""
        stamp = self._stamp(plan)
        if self._held == (pin.seq, plan, stamp) and stamp[0] is not None:
            return None
        self._held = None
        try:
            status = self.approvals.status(plan)
            latest = status.record
            if status.state == "approved" and latest is not None and latest.seq == pin.seq:
                self._held = (pin.seq, plan, stamp)
                return None
            sections = self.approvals.changed_since(pin, plan)
            named = f"changed sections: {', '.join(sections)}" if sections else ""
            if latest is not None and latest.seq != pin.seq:
                # Not ours: approved (or revoked) again outside this session.
                if not status.revoked:  # live, even when the file moved on since: write_plan can move it back
                    self.approvals.withdraw(
                        latest,
                        f"approval seq {latest.seq} ({shown(latest.channel)}) appeared while a planview "
                        f"session was executing under approval seq {pin.seq}; a session honours only its "
                        "own approval, so this one is withdrawn: review and approve the plan again",
                    )
                outside = (
                    f"another approval of it appeared in the ledger (seq {latest.seq} by {latest.approver}, "
                    f"{shown(latest.channel)}); this session honours only the approval it was pinned to "
                    f"(seq {pin.seq})"
                )
                return PinBreak(sections, f"{named}; {outside}" if named else outside)
            revocation = self.approvals.check_and_revoke(plan)
            if revocation is not None:
                if revocation.changed_sections:
                    sections = revocation.changed_sections
                    named = f"changed sections: {', '.join(sections)}"
                return PinBreak(sections, named or revocation.reason)
            if not plan.exists():
                return PinBreak((), "the plan file was deleted")
            return PinBreak(sections, named or status.detail or "it no longer matches the approval")
        except PlanviewError as exc:  # fail closed: an approval that cannot be checked does not hold
            return PinBreak((), f"it could not be checked: {exc}")
