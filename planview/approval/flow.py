"""The one approval flow: a person's review decision, recorded the same way whichever UI showed the plan.

The agent's `exit_plan_mode`, the session app's `/plan review`, the standalone `planview review`,
`planview approve`, and the UIs still to come (the browser review, ACP agents' clients, a Claude Code
hook) all end here with their own `channel` name (see `planview.approval.channels`). Only the UI
around it differs. `record_decision`:

- for an approval: refuses a process started as one of a session's tools, re-checks that the file
  still has the canonical hash that was shown, seals the exact bytes, appends the ledger event (with
  its channel) and writes the evidence packet - or returns the existing approval unchanged when this
  very content is already approved (`new` says which);
- for a refinement or "keep planning": records nothing and returns the decision with its feedback.

When the person signs for the team (`planview approve --sign`, or `[approval] sign = "ssh"` for every
approval from every channel), the same flow then has ssh-keygen sign a record of the approval and
appends it to the git notes (`planview.team.signing`); a tool process is refused first, with the
reason the marker alone does not stop an agent.

The caller decides what happens next (pin a session, print the artifact lines, send feedback).

A browser page's approve writes its comments into the plan first (the approval seals the bytes on
disk, comments included). When the approval is then not recorded (a torn ledger, a read-only home,
a full disk), `take_back` puts the plan back to its bytes from before that save: the page's own
approve route and `record_decision` (the terminal review that opened the page) both go through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from planview.approval.approvals import Approvals
from planview.approval.errors import ApprovalError
from planview.approval.records import ApprovalRecord
from planview.errors import PlanviewError
from planview.plan.decision import Approved, Keep, Refine, ReviewDecision, SavedComments

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.team.signing import SignedApproval

DecisionKind = Literal["approve", "refine", "keep"]


@dataclass(frozen=True)
class ReviewOutcome:
    """A person's review decision and what recording it did (the approval made or found, if any)."""

    decision: ReviewDecision
    record: ApprovalRecord | None = None  # the approval (new or the existing one of this content)
    new: bool = False  # a new ledger event was appended
    signed: SignedApproval | None = None  # the team's signed record (when signing)

    @property
    def kind(self) -> DecisionKind:
        if isinstance(self.decision, Approved):
            return "approve"
        return "refine" if isinstance(self.decision, Refine) else "keep"

    @property
    def feedback(self) -> str | None:
        return self.decision.text if isinstance(self.decision, Refine) else None


def approve(
    approvals: Approvals,
    plan: Path,
    *,
    channel: str,
    approver: str | None = None,
    shown_sha256: str | None = None,
    sign: bool | None = None,
    note: str | None = None,
) -> ReviewOutcome:
    """Seal and record an approval of `plan` (the text whose canonical hash was `shown_sha256`), and
    sign it for the team when `sign` is True (None: when `[approval] sign = "ssh"`)."""
    signing = _signing(approvals, sign)
    before = approvals.current(plan) if approvals.is_current(plan) else None
    record = approvals.approve(
        plan, approver, channel=channel, expected_canonical_sha256=shown_sha256, note=note
    )
    decision = Approved(Path(plan), record.canonical_sha256, channel, note=note)
    signed = None if signing is None else _sign(approvals, record, channel, signing)
    return ReviewOutcome(decision, record, new=before is None or before.seq != record.seq, signed=signed)


def _signing(approvals: Approvals, sign: bool | None) -> tuple[str | None] | None:
    """(signing_key,) when this approval is to be signed, else None; refuses a tool process first."""
    from planview.config import load_approval_settings

    settings = load_approval_settings(approvals.home)
    if not (settings.sign if sign is None else sign):
        return None
    from planview.approval.channels import refuse_tool_process
    from planview.team.signing import AGENT_GUARD, preflight

    try:
        refuse_tool_process()
    except ApprovalError as exc:
        raise ApprovalError(f"{exc}. {AGENT_GUARD}") from None
    try:
        preflight(approvals.project_root, settings.signing_key)
    except PlanviewError as exc:
        # Asked for by the config rather than by this command: say how to approve unsigned here.
        off = (
            '; or set [approval] sign = "off" in this project\'s .planview/config.toml'
            if sign is None
            else ""
        )
        raise ApprovalError(f"not approved: {str(exc).rstrip('.')}{off} (nothing was recorded)") from exc
    return (settings.signing_key,)


def _sign(
    approvals: Approvals, record: ApprovalRecord, channel: str, signing: tuple[str | None]
) -> SignedApproval:
    """Sign the sealed bytes of `record` (exactly what was approved) and store the team's record."""
    import hashlib

    from planview.team.signing import sign_approval

    data = approvals.artifact_path(record).read_bytes()
    if hashlib.sha256(data).hexdigest() != record.file_sha256 or approvals.project_root is None:
        raise ApprovalError(
            f"approval seq {record.seq} is recorded but cannot be signed: "
            + (
                "signing needs a git repository"
                if approvals.project_root is None
                else "its sealed copy changed"
            )
        )
    try:
        return sign_approval(
            approvals.project_root,
            record.plan,
            data,
            data.decode("utf-8"),
            channel=channel,
            signing_key=signing[0],
        )
    except PlanviewError as exc:
        raise ApprovalError(
            f"the plan is approved here (seq {record.seq}) but not signed for the team: {str(exc).rstrip('.')}; "
            f"fix that, then run `planview approve {record.plan} --sign`"
        ) from exc


def record_decision(
    approvals: Approvals,
    plan: Path,
    decision: ReviewDecision | None,
    *,
    channel: str,
    approver: str | None = None,
) -> ReviewOutcome:
    """What a review screen decided about `plan`, recorded: see the module docstring."""
    if decision is None:
        decision = Keep()
    if not isinstance(decision, Approved):
        return ReviewOutcome(decision)
    try:
        if Path(decision.plan).resolve() != Path(plan).resolve():
            raise ApprovalError(f"the review approved {decision.plan}, not {plan}; review the plan again")
        # A decision made on another surface than the caller's own (the browser page `w` opens from
        # the review screen) names its channel itself.
        outcome = approve(
            approvals,
            plan,
            channel=decision.channel or channel,
            approver=approver,
            shown_sha256=decision.canonical_sha256,
            note=decision.note,
        )
    except PlanviewError as exc:
        if decision.saved is None:
            raise
        raise ApprovalError(
            f"{str(exc).rstrip('.')}; {take_back(Path(decision.plan), decision.saved)}"
        ) from exc
    except BaseException:
        if decision.saved is not None:
            take_back(Path(decision.plan), decision.saved)
        raise
    return ReviewOutcome(decision, outcome.record, outcome.new, outcome.signed)


def take_back(plan: Path, saved: SavedComments) -> str:
    """Nothing was approved, so the comments saved with the approval go too: the plan's bytes from
    before that save, written only while the file still holds it. Returns what became of them."""
    from planview.plan.errors import PlanChangedError
    from planview.plan.store import PlanStore

    # The plan's own folder is the containment (the same checks: .md, no symlink, no hidden name).
    store = PlanStore(plan.parent, plans_dir=plan.parent)
    try:
        store.replace(plan, saved.before, expected_sha256=saved.written_sha256)
    except PlanChangedError:
        return "the plan changed on disk since the comments were saved, so it was left as it is"
    except (OSError, PlanviewError) as exc:
        return f"putting the plan back failed ({exc}); the comments saved with the approval are still in it"
    return "the comments saved with the approval were taken out of the plan again"
