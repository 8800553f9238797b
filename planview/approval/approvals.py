"""Approvals: approve and seal a plan, tell whether an approval is still current, revoke it once.

Everything is read back from the ledger (verified on every read), so an approval survives restarts
and a tampered ledger fails closed: nothing reads as approved until a human looks at it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from planview.approval.channels import SESSION_PIN_CHECK, refuse_tool_process
from planview.approval.errors import ApprovalError, EvidenceError
from planview.approval.ledger import Ledger
from planview.approval.ledger_format import utc_now
from planview.approval.records import (
    ApprovalEntry,
    ApprovalRecord,
    PlanStatus,
    Revocation,
    history,
    record_from_event,
    revocation_from_event,
)
from planview.errors import PlanviewError
from planview.home import HomeLayout

# What only approve, revoke and the evidence need (the packet, the seal, git, the approver's name)
# is imported where it is used: `planview status` and the Claude hook load none of it.
TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from planview.approval.packet import EvidencePacket

__all__ = ["AUTO_REVOKER", "Approvals", "git_head", "path_text", "section_changes"]

AUTO_REVOKER = "planview (plan changed after approval)"
WITHDRAWER = "planview (approval appeared during a pinned session)"


def git_head(root: Path | None) -> str | None:
    if root is None:
        return None
    import subprocess

    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "-q", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=15,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = done.stdout.strip()
    return sha if done.returncode == 0 and sha else None


EMPTY_PLAN = (
    "the plan is empty: there is nothing to approve; write the plan (goal, steps, verification) first"
)


def plan_is_empty(text: str) -> bool:
    """The one rule for "nothing to approve": approve refuses such a plan and status says so."""
    from planview.plan.canonical import canonical_text

    return not text.strip() or not canonical_text(text).strip()


def section_changes(previous: str, current: str) -> tuple[str, ...]:
    """Titles of the sections that differ, ignoring what the canonical hash ignores (checkboxes, ...)."""
    from planview.plan.canonical import canonical_text
    from planview.plan.diff import changed_sections

    diff = changed_sections(canonical_text(previous), canonical_text(current))
    names: list[str] = []
    for change in diff.changes:
        title = change.title or "(preamble)"
        if change.status == "changed":
            names.append(title)
        elif change.status == "added":
            names.append(f"{title} (added)")
    names.extend(f"{title or '(preamble)'} (removed)" for title in diff.removed)
    return tuple(names)


class Approvals:
    """Approvals of the plans in `<home>/plans`, recorded in `<home>/ledger.jsonl`."""

    def __init__(self, home: Path, project_root: Path | None = None) -> None:
        from planview.plan.store import PlanStore

        self.home = Path(home).absolute()
        if project_root is None and self.home.name == ".planview":
            project_root = self.home.parent
        self.project_root = Path(project_root).absolute() if project_root is not None else None
        self.store = PlanStore(self.home, project_root=self.project_root)
        layout = HomeLayout(self.home)
        self.ledger = Ledger(layout.ledger)
        self.artifacts_dir = layout.artifacts

    # -- paths -----------------------------------------------------------------------------
    def _contained(self, plan_path: str | Path) -> Path:
        from planview.plan.errors import PlanPathError

        try:
            return self.store.check_path(plan_path)
        except PlanPathError as exc:
            where = self.store.relative(self.store.plans_dir)
            raise ApprovalError(
                f"{exc}; only plans saved in the plans folder can be approved (copy it into {where} "
                "and approve the copy)"
            ) from exc

    def check_approvable(self, plan_path: str | Path) -> Path:
        """The path approve would take, or the ApprovalError it would raise: for a UI that offers
        Approve (`review --web --approve`) to refuse before offering what can only fail."""
        return self._contained(plan_path)

    def check_recordable(self, plan_path: str | Path, canonical_sha256: str) -> None:
        """Raise what `approve` would raise before it writes a byte: a session's tool process, a
        plan outside the plans folder, a ledger that cannot be locked for writing (a read-only
        home) or does not verify (torn, tampered). For a page that answers "approved" while the
        flow that records it runs later (the terminal review's `w`), so the page never says
        approved for what cannot be recorded. A read-only home that already holds this very
        approval passes, as `approve` returns it."""
        refuse_tool_process()
        path = self._contained(plan_path)
        try:
            with self.ledger.locked(exclusive=True):
                self.ledger.events(plan=self.plan_key(path))
        except PlanviewError:
            if self._already_approved(self.plan_key(path), canonical_sha256) is None:
                raise

    def plan_key(self, plan_path: str | Path) -> str:
        """The ledger's name for a plan: its path relative to the project root (else to the home)."""
        path = self._contained(plan_path)
        for base in (self.project_root, self.home):
            if base is not None and path.is_relative_to(base):
                return path.relative_to(base).as_posix()
        return path.as_posix()

    def plan_for_key(self, key: str) -> Path:
        """The plan file a ledger name stands for (plan_key's inverse): the key is relative to the
        project root when the plan was inside it, else to the home (a PLANVIEW_HOME outside the
        project), so the base is the one whose join lands in the plans folder."""
        path = Path(key)
        if path.is_absolute():
            return path
        plans = Path(os.path.realpath(self.store.plans_dir))
        for base in (self.project_root, self.home):
            if base is not None and Path(os.path.realpath(base / path)).parent == plans:
                return base / path
        return (self.project_root or self.home) / path

    def _display(self, path: Path) -> str:
        """A path as the model's tools would name it: relative to the project root when inside it."""
        if self.project_root is not None and path.is_relative_to(self.project_root):
            return path.relative_to(self.project_root).as_posix()
        return str(path)

    def _read(self, path: Path) -> tuple[bytes, str]:
        from planview.plan.errors import PlanNotFoundError, PlanStoreError
        from planview.plan.store import MAX_PLAN_BYTES, decode_plan, read_plan_bytes

        shown = self.store.relative(path)
        try:
            data = read_plan_bytes(path)
            if len(data) > MAX_PLAN_BYTES:
                raise ApprovalError(
                    f"{shown} is over {MAX_PLAN_BYTES // 1024} KiB; shorten the plan, then approve it"
                )
            return data, decode_plan(path, data)
        except PlanNotFoundError as exc:
            raise ApprovalError(
                f"plan not found: {shown}; write the plan first (`planview plans` lists saved plans)"
            ) from exc
        except PlanStoreError as exc:  # a folder, a FIFO, unreadable, not UTF-8: the store says which
            raise ApprovalError(str(exc)) from exc

    def _read_for_approval(self, path: Path) -> tuple[bytes, str]:
        data, text = self._read(path)
        if plan_is_empty(text):
            raise ApprovalError(
                f"plan is empty: {self.store.relative(path)}; there is nothing to approve - write the plan "
                "(goal, steps, verification) first; planview never fabricates one"
            )
        return data, text

    # -- queries ---------------------------------------------------------------------------
    def history(self) -> list[ApprovalEntry]:
        return history(self.ledger.events())

    @staticmethod
    def _latest(events: tuple[Mapping[str, Any], ...], plan: str) -> ApprovalEntry | None:
        found = None
        for entry in history(events):
            if entry.record.plan == plan:
                found = entry
        return found

    def current(self, plan_path: Path) -> ApprovalRecord | None:
        """The newest approval of the plan that was not revoked since (it may be stale: see status)."""
        plan = self.plan_key(plan_path)
        entry = self._latest(self.ledger.events(plan=plan), plan)
        return entry.record if entry is not None and entry.revocation is None else None

    def is_current(self, plan_path: Path) -> bool:
        """True only when an unrevoked approval's canonical hash equals the plan file's right now."""
        try:
            return self.status(plan_path).state == "approved"
        except PlanviewError:
            return False  # missing plan, broken ledger, ...: fail closed (approve says why)

    def status(self, plan_path: Path) -> PlanStatus:
        path = self._contained(plan_path)
        plan = self.plan_key(path)
        entry = self._latest(self.ledger.events(plan=plan), plan)
        if entry is None:
            _, text = self._read(path)  # a missing plan is an error, not "not approved"
            if plan_is_empty(text):
                return PlanStatus(plan, "not approved", None, empty=True, detail=EMPTY_PLAN)
            return PlanStatus(plan, "not approved", None, detail="no approval recorded for this plan")
        record, revocation = entry.record, entry.revocation
        revoked = revocation is not None
        if not path.exists():
            return PlanStatus(plan, "stale", record, revoked=revoked, detail="the plan file is gone")
        data, text = self._read(path)
        if not revoked and hashlib.sha256(data).hexdigest() == record.file_sha256:
            # The very bytes that were sealed, so their canonical hash too: no Markdown parse needed
            # (it is most of `planview status`'s start-up).
            return PlanStatus(
                plan, "approved", record, detail=f"approved by {record.approver} at {record.at}"
            )
        from planview.plan.canonical import canonical_sha256

        if plan_is_empty(text):
            return PlanStatus(plan, "stale", record, revoked=revoked, empty=True, detail=EMPTY_PLAN)
        if canonical_sha256(text) == record.canonical_sha256 and not revoked:
            return PlanStatus(
                plan, "approved", record, detail=f"approved by {record.approver} at {record.at}"
            )
        changed = section_changes(self._sealed_text(record), text)
        if revocation is not None and not changed:
            detail = f"the approval was revoked (seq {revocation.seq}); approve the plan again"
        else:
            detail = "changed since approval: " + (", ".join(changed) or "formatting only")
        return PlanStatus(plan, "stale", record, changed_sections=changed, revoked=revoked, detail=detail)

    # -- events ----------------------------------------------------------------------------
    def approve(
        self,
        plan_path: Path,
        approver: str | None = None,
        *,
        channel: str,
        expected_canonical_sha256: str | None = None,
        note: str | None = None,
    ) -> ApprovalRecord:
        """Seal the plan and record the approval; the same canonical content again returns the same record.

        A reviewer approves what they saw: pass the canonical hash of the text shown, and a plan that
        changed since (the agent saved it again mid-review) is refused instead of sealed unseen.
        `channel` says how the person approved (see approval/channels.py); a process a planview
        session started as one of its tools is refused here, whichever path it took. `note`: what the
        person said with the approval, kept in the event.
        """
        from planview.approval.identity import resolve_approver
        from planview.approval.packet import build_packet
        from planview.approval.seal import packet_path, read_artifact, seal
        from planview.plan.canonical import canonical_sha256

        refuse_tool_process()
        path = self._contained(plan_path)
        data, text = self._read_for_approval(path)
        canonical = canonical_sha256(text)
        if expected_canonical_sha256 is not None and canonical != expected_canonical_sha256:
            raise ApprovalError(
                f"{self.store.relative(path)} changed after it was shown for review, so nothing was approved; "
                "review it again"
            )
        who = resolve_approver(approver, cwd=self.project_root)
        plan = self.plan_key(path)
        from contextlib import ExitStack

        lock = ExitStack()
        try:
            lock.enter_context(self.ledger.locked(exclusive=True))
        except PlanviewError:  # a read-only home: this very content may be approved already
            existing = self._already_approved(plan, canonical)
            if existing is None:
                raise
            return existing
        with lock:
            entry = self._latest(self.ledger.events(plan=plan), plan)
            if entry is not None and entry.revocation is None and entry.record.canonical_sha256 == canonical:
                read_artifact(self.artifacts_dir, entry.record.artifact)  # still there?
                return entry.record
            sealed = seal(self.artifacts_dir, data, canonical)
            at, commit = utc_now(), git_head(self.project_root)
            packet = build_packet(
                path_text(sealed.path),
                plan=plan,
                artifact=sealed.artifact,
                sha256=sealed.sha256,
                size=sealed.bytes,
                canonical_sha256=canonical,
                approver=who,
                at=at,
                commit=commit,
                artifact_path=self._display(sealed.path),
            )
            event = self.ledger.append(
                {
                    "type": "approved",
                    "plan": plan,
                    "canonical_sha256": canonical,
                    "file_sha256": sealed.sha256,
                    "artifact": sealed.artifact,
                    "bytes": sealed.bytes,
                    "approver": who,
                    "at": at,
                    "commit": commit,
                    "packet_sha256": packet.sha256,
                    "channel": channel,
                    **({"note": note} if note else {}),
                }
            )
            try:
                packet.save(packet_path(self.artifacts_dir, sealed.artifact))
            except OSError:
                pass  # the approval is recorded; `packet()` rebuilds a missing packet to its hash
        return record_from_event(event)

    def _already_approved(self, plan: str, canonical: str) -> ApprovalRecord | None:
        """The live approval of exactly this content, read under a shared hold (which a read-only
        home allows), or None."""
        from planview.approval.seal import read_artifact

        try:
            with self.ledger.locked(exclusive=False):
                entry = self._latest(self.ledger.events(plan=plan), plan)
            if entry is None or entry.revocation is not None or entry.record.canonical_sha256 != canonical:
                return None
            read_artifact(self.artifacts_dir, entry.record.artifact)  # still there?
        except PlanviewError:
            return None
        return entry.record

    def check_and_revoke(self, plan_path: Path, *, channel: str = SESSION_PIN_CHECK) -> Revocation | None:
        """If the plan no longer matches its live approval, record one `revoked` event naming the changes."""
        from planview.plan.canonical import canonical_sha256

        path = self._contained(plan_path)
        plan = self.plan_key(path)
        with self.ledger.locked(exclusive=True):
            entry = self._latest(self.ledger.events(plan=plan), plan)
            if entry is None or entry.revocation is not None:
                return None
            record = entry.record
            event: dict[str, Any] = {
                "type": "revoked",
                "plan": plan,
                "artifact": record.artifact,
                "revokes": record.seq,
                "approver": AUTO_REVOKER,
                "channel": channel,
            }
            if path.exists():
                data, text = self._read(path)
                canonical = canonical_sha256(text)
                if canonical == record.canonical_sha256:
                    return None
                changed = section_changes(self._sealed_text(record), text)
                reason = f"{plan} changed after approval seq {record.seq}: " + (
                    ", ".join(changed) or "formatting"
                )
                event.update(
                    canonical_sha256=canonical, file_sha256=hashlib.sha256(data).hexdigest(), bytes=len(data)
                )
            else:
                changed = ()
                reason = f"{plan} was deleted after approval seq {record.seq}"
            event.update(reason=reason, changed_sections=list(changed))
            return revocation_from_event(self.ledger.append(event))

    def withdraw(
        self, record: ApprovalRecord, reason: str, *, channel: str = SESSION_PIN_CHECK
    ) -> Revocation | None:
        """Record one `revoked` event ending `record` while it is still its plan's live approval (None
        otherwise): a session withdraws an approval that appeared while it was pinned to another."""
        with self.ledger.locked(exclusive=True):
            entry = self._latest(self.ledger.events(plan=record.plan), record.plan)
            if entry is None or entry.revocation is not None or entry.record.seq != record.seq:
                return None
            event: dict[str, Any] = {
                "type": "revoked",
                "plan": record.plan,
                "artifact": record.artifact,
                "revokes": record.seq,
                "approver": WITHDRAWER,
                "channel": channel,
                "reason": reason,
                "changed_sections": [],
            }
            return revocation_from_event(self.ledger.append(event))

    def reject(self, plan_path: Path, approver: str | None = None, reason: str = "", *, channel: str) -> int:
        """Record that a reviewer declined this version of the plan; returns the event's seq."""
        from planview.approval.identity import resolve_approver
        from planview.plan.canonical import canonical_sha256

        path = self._contained(plan_path)
        data, text = self._read(path)
        event = self.ledger.append(
            {
                "type": "rejected",
                "plan": self.plan_key(path),
                "canonical_sha256": canonical_sha256(text),
                "file_sha256": hashlib.sha256(data).hexdigest(),
                "bytes": len(data),
                "approver": resolve_approver(approver, cwd=self.project_root),
                "reason": reason,
                "channel": channel,
            }
        )
        return int(event["seq"])

    def changed_since(self, record: ApprovalRecord, plan_path: Path) -> tuple[str, ...]:
        """The sections of the plan file that differ from what `record` sealed (() when the file is gone)."""
        path = self._contained(plan_path)
        if not path.exists():
            return ()
        _, text = self._read(path)
        return section_changes(self._sealed_text(record), text)

    def _sealed_text(self, record: ApprovalRecord) -> str:
        """The sealed plan as approved; a sealed copy edited since (even into non-UTF-8) is an error."""
        from planview.approval.seal import read_artifact

        data = read_artifact(self.artifacts_dir, record.artifact)
        if hashlib.sha256(data).hexdigest() != record.file_sha256:
            raise ApprovalError(
                f"sealed artifact {self.artifact_path(record)} was modified after sealing (approval seq "
                f"{record.seq}), so the plan cannot be compared with it - move it aside (keep it as "
                "evidence) and approve the plan again"
            )
        return data.decode("utf-8")  # the recorded hash is of bytes approve decoded as UTF-8

    # -- evidence --------------------------------------------------------------------------
    def artifact_path(self, record: ApprovalRecord) -> Path:
        from planview.approval.seal import artifact_path

        return artifact_path(self.artifacts_dir, record.artifact)

    def packet(self, record: ApprovalRecord) -> EvidencePacket:
        """The evidence packet of an approval, verified against the hash its ledger event recorded."""
        from planview.approval.packet import EvidencePacket, build_packet
        from planview.approval.seal import packet_path

        path = packet_path(self.artifacts_dir, record.artifact)
        if record.packet_sha256 is None:
            raise EvidenceError(
                f"approval seq {record.seq} recorded no evidence packet; approve the plan again"
            )
        if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == record.packet_sha256:
            return EvidencePacket.load(path, record.packet_sha256)
        newest = [e.record for e in self.history() if e.record.artifact == record.artifact][-1:]
        is_newest = bool(newest) and newest[0].seq == record.seq
        if path.exists() and is_newest:
            EvidencePacket.load(path, record.packet_sha256)  # raises: the saved packet was modified
        # Missing (a crash before it was saved), or superseded by a newer approval of the same
        # artifact: rebuild from the sealed plan and accept it only if it hashes as recorded.
        packet = build_packet(
            path_text(self.artifact_path(record)),
            plan=record.plan,
            artifact=record.artifact,
            sha256=record.file_sha256,
            size=record.bytes,
            canonical_sha256=record.canonical_sha256,
            approver=record.approver,
            at=record.at,
            commit=record.commit,
            artifact_path=self._display(self.artifact_path(record)),
        )
        if packet.sha256 != record.packet_sha256:
            raise EvidenceError(
                f"the evidence packet of approval seq {record.seq} cannot be rebuilt to its recorded hash; "
                "approve the plan again"
            )
        if is_newest:
            packet.save(path)
        return packet


def path_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError as exc:
        raise ApprovalError(f"sealed artifact {path} is missing; approve the plan again") from exc
    except UnicodeDecodeError as exc:  # sealing requires UTF-8, so the artifact was edited since
        raise ApprovalError(
            f"sealed artifact {path} was modified after sealing (it is no longer UTF-8 text); move it aside "
            "(keep it as evidence) and approve the plan again"
        ) from exc
