"""The session's live mode: the one `ModeState` value, and what follows it when it moves.

`session/mode.py` says which moves are legal (pure); this holds the state a session moves, and the
three things that must change with it and nowhere else:

- the evidence packet: loaded (and verified) when a new approval pins the session, dropped when
  the pin goes - an unusable packet refuses the move, so nothing is pinned without its evidence;
- the plan-mode note: owed to the model after entering plan mode (or a restore into it);
- the exact-pin check (session/pin.py): forgotten whenever the pin changes.

It also answers the read-only questions about the pin that need the ledger and the plan file:
is the approved plan stale, does a path run under the current pin, why is the session planning
again. Announcing a move (saving, the ModeChanged event) is the session's job: this object holds
no callbacks and emits nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from planview.errors import PlanviewError
from planview.fileguard import stat_stamp
from planview.session import lifecycle
from planview.session import mode as modes
from planview.session.conversation import UserMessage
from planview.session.events import Mode
from planview.session.pin import PinBreak, PinCheck

if TYPE_CHECKING:
    from planview.approval.approvals import Approvals
    from planview.approval.records import ApprovalRecord
    from planview.plan.store import PlanStore


class ModeKeeper:
    def __init__(self, approvals: Approvals, store: PlanStore, mode: Mode) -> None:
        self.approvals = approvals
        self._store = store
        self.state = modes.ModeState(mode)
        self.packet: UserMessage | None = None  # the pinned approval's evidence, sent with every request
        self.note_pending = mode == "plan"  # the plan-mode note is owed with the next request
        self._pin_check = PinCheck(approvals)
        self._stale_seen: tuple[Any, bool] | None = None  # (pin seq + plan stat, answer) of is_stale

    def move(self, event: modes.ModeEvent) -> None:
        """Apply one transition (ModeError: forbidden; EvidenceError: not pinned, nothing changed)."""
        before, after = self.state, modes.transition(self.state, event)
        if after.pin is not None and (before.pin is None or before.pin.seq != after.pin.seq):
            packet = self.approvals.packet(after.pin)
            self.packet = lifecycle.packet_message(packet.to_json(), packet.sha256)
        elif after.pin is None:
            self.packet = None
        self.state = after
        if after.mode == "plan" and before.mode != "plan" or isinstance(event, modes.Restore):
            self.note_pending = after.mode == "plan"
        elif after.mode == "execute":
            self.note_pending = False
        if after.pin is None or before.pin is None or before.pin.seq != after.pin.seq:
            self._pin_check.forget()

    def adopt(self, other: ModeKeeper) -> None:
        """A writing subagent's child: the parent's exact pin and evidence (its own pin check)."""
        self.state, self.packet = other.state, other.packet

    def current_approval(self) -> ApprovalRecord | None:
        """The working plan's current approval with a usable packet (the person's toggle re-pins it)."""
        plan = self.state.plan
        if plan is None:
            return None
        try:
            current = self.approvals.current(plan) if self.approvals.is_current(plan) else None
            if current is not None:
                self.approvals.packet(current)  # an unusable packet: normal mode, not pinned
                return current
        except PlanviewError:
            pass
        return None

    def broken_pin(self) -> PinBreak | None:
        """None while the pinned approval holds (or nothing is pinned); else why it no longer does."""
        plan, pin = self.state.plan, self.state.pin
        if pin is None or plan is None:
            return None
        return self._pin_check.check(plan, pin)

    def is_stale(self) -> bool:
        """The plan's text changed after its approval (revoked here, or changed on disk right now)."""
        state = self.state
        if state.stale is not None:
            return True
        plan = state.plan
        if plan is None:
            return False
        if state.pin is None:  # e.g. resumed after a revocation: the ledger knows
            try:
                return self.approvals.status(plan).state == "stale"
            except PlanviewError:
                return False
        stamp = (state.pin.seq, stat_stamp(plan))
        if stamp[1] is not None and self._stale_seen is not None and self._stale_seen[0] == stamp:
            return self._stale_seen[1]  # the chip's periodic check: no re-hash while the file is untouched
        from planview.plan.canonical import canonical_sha256  # the Markdown parser: not at start-up

        try:
            stale = canonical_sha256(self._store.read(plan)) != state.pin.canonical_sha256
        except PlanviewError:
            return True
        self._stale_seen = (stamp, stale)
        return stale

    def is_current_pin(self, path: Path) -> bool:
        """The session executes `path` under an approval that still holds (re-approving is a no-op)."""
        plan, pin = self.state.plan, self.state.pin
        if pin is None or plan is None or Path(path).resolve() != plan.resolve():
            return False
        return self._pin_check.check(plan, pin) is None

    def plan_changed(self) -> str | None:
        """Why the session is planning again, for a refused write: the sections a revocation named."""
        state = self.state
        if state.mode != "plan" or state.stale is None or state.plan is None:
            return None
        named = f" (changed sections: {', '.join(state.stale)})" if state.stale else ""
        return (
            f"The approved plan {self._store.relative(state.plan)} changed after its approval{named}, so the "
            "session is back in plan mode until it is approved again"
        )
