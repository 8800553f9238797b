"""The audit trail: is the ledger intact, what was approved, and what changed since.

For the newest approval the report puts side by side what was authorised (the sealed plan, its hash,
its evidence packet, the files the plan mentions) and what was done (`git diff --stat` against the
commit recorded at approval time, plus untracked files), so a reviewer can match the two.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planview.approval.approvals import Approvals
from planview.approval.channels import shown as shown_channel
from planview.approval.ledger_chain import Verification
from planview.approval.records import ApprovalEntry, ApprovalRecord, PlanStatus, history
from planview.errors import PlanviewError
from planview.fileguard import read_regular

MAX_MENTIONS = 200
_BACKTICKED = re.compile(r"`([^`\n]{1,300})`")
_PATHLIKE = re.compile(
    r"(?<![\w/.@-])((?:\.{0,2}/)?(?:[\w@.+-]+/)*[\w@+-][\w@.+-]*(?:\.[A-Za-z0-9]{1,10}|/))"
)
_WORD = re.compile(r"[\w.-]*\w")  # a word, file names with dots and dashes included
_LOCATION = re.compile(r"(?::\d+(?:[-:]\d+)?|#L\d+(?:-L?\d+)?)$")


@dataclass(frozen=True)
class GitChanges:
    """What changed in the work tree since the commit recorded with the approval."""

    commit: str | None
    stat: str  # `git diff --stat <commit>` output ("" when nothing changed)
    changed: tuple[str, ...]  # tracked files that differ from the commit
    untracked: tuple[str, ...]
    note: str | None = None  # why part of this is unavailable


@dataclass(frozen=True)
class Evidence:
    """What the newest approval authorised beside what is there now: artifact, packet, plan file, git."""

    record: ApprovalRecord
    artifact_path: Path
    artifact_ok: bool  # the sealed bytes still hash to the recorded sha256
    packet_path: Path
    packet_ok: bool
    packet_note: str | None
    status: PlanStatus | None  # the plan file right now
    status_note: str | None
    git: GitChanges
    mentioned: tuple[str, ...]  # paths in the plan text that exist in the project
    named: tuple[str, ...] = ()  # changed files the plan names by file name only ("the README")


@dataclass(frozen=True)
class AuditReport:
    """`planview audit`'s answer: the ledger's check, every approval, and the newest one's evidence."""

    ledger_path: Path
    verification: Verification
    entries: tuple[ApprovalEntry, ...]
    newest: Evidence | None
    root: Path | None

    @property
    def ok(self) -> bool:
        evidence_ok = self.newest is None or (self.newest.artifact_ok and self.newest.packet_ok)
        return self.verification.ok and evidence_ok

    @property
    def exit_code(self) -> int:
        return 0 if self.ok else 1

    def to_dict(self) -> dict[str, Any]:
        problem = self.verification.problem
        data: dict[str, Any] = {
            "ok": self.ok,
            "ledger": {
                "path": str(self.ledger_path),
                "ok": self.verification.ok,
                "events": len(self.verification.events),
                "first_bad_seq": problem.seq if problem else None,
                "first_bad_line": problem.line if problem else None,
                "problem": problem.message if problem else None,
            },
            "approvals": [_entry_dict(entry) for entry in self.entries],
            "newest": None,
        }
        if self.newest is not None:
            ev = self.newest
            data["newest"] = {
                "approval": _record_dict(ev.record),
                "artifact_path": str(ev.artifact_path),
                "artifact_ok": ev.artifact_ok,
                "packet_path": str(ev.packet_path),
                "packet_ok": ev.packet_ok,
                "packet_note": ev.packet_note,
                "state": ev.status.state if ev.status else None,
                "changed_sections": list(ev.status.changed_sections) if ev.status else [],
                "state_note": ev.status_note,
                "git": {
                    "commit": ev.git.commit,
                    "diff_stat": ev.git.stat,
                    "changed": list(ev.git.changed),
                    "untracked": list(ev.git.untracked),
                    "note": ev.git.note,
                },
                "mentioned": list(ev.mentioned),
                "named": list(ev.named),
                "changed_not_in_plan": list(_not_in_plan(ev)),
            }
        return data

    def render(self) -> str:
        out: list[str] = []
        problem = self.verification.problem
        shown = self._show(self.ledger_path)
        if problem is None:
            out.append(f"ledger: {shown} ok - {len(self.verification.events)} event(s), hash chain verified")
        else:
            out.append(
                f"ledger: {shown} BROKEN at line {problem.line} (seq {problem.seq}): {problem.message}"
            )
            out.append(
                f"  only the {len(self.verification.events)} event(s) before it are listed; do not trust the rest"
            )
        if problem is None:
            out.append(f"approvals: {len(self.entries)}")
        else:  # what the lines after the break record cannot be known
            out.append(f"approvals: unknown ({len(self.entries)} before line {problem.line})")
        for entry in self.entries:
            rec = entry.record
            end = ""
            if entry.revocation is not None:
                sections = ", ".join(entry.revocation.changed_sections) or "plan changed"
                end = f"  revoked at seq {entry.revocation.seq} ({sections})"
            out.append(
                f"  seq {rec.seq:<4} {rec.at}  {rec.plan}  {rec.artifact}  by {rec.approver} "
                f"via {shown_channel(rec.channel)}{end}"
            )
        if self.newest is None:
            if problem is None:  # approve refuses while the ledger is broken: no hint to run it then
                out.append("no approvals yet: approve a plan with `planview approve PATH`")
            return "\n".join(out)
        ev = self.newest
        rec = ev.record
        out.append(f"newest approval: seq {rec.seq}")
        now = ev.status_note or ""
        if ev.status is not None:
            now = ev.status.state + (f" - {ev.status.detail}" if ev.status.state != "approved" else "")
        out.append(f"  plan:       {rec.plan}  (now: {now})")
        mark = "ok" if ev.artifact_ok else "MODIFIED since sealing"
        out.append(f"  sealed:     {self._show(ev.artifact_path)}  {mark}")
        out.append(f"  sha256:     {rec.file_sha256}  ({rec.bytes} bytes)")
        out.append(f"  canonical:  {rec.canonical_sha256}")
        pmark = "ok" if ev.packet_ok else f"NOT OK: {ev.packet_note}"
        out.append(f"  packet:     {self._show(ev.packet_path)}  sha256 {rec.packet_sha256}  {pmark}")
        out.append(f"  approver:   {rec.approver}")
        out.append(f"  channel:    {shown_channel(rec.channel)}")
        out.append(f"  at:         {rec.at}")
        out.append(f"  commit:     {rec.commit or '(none recorded)'}")
        git = ev.git
        if git.note:
            out.append(f"  git:        {git.note}")
        if git.commit:
            out.append(f"changed since approval (git diff --stat {git.commit[:12]}):")
            stat_lines = git.stat.splitlines() or ["(no changes to tracked files)"]
            out.extend(f"  {line}" for line in stat_lines)
        out.append(f"untracked files: {len(git.untracked)}")
        out.extend(f"  {path}" for path in git.untracked)
        touched = set(git.changed) | set(git.untracked)
        out.append(f"files the plan mentions: {len(ev.mentioned)}")
        for path in ev.mentioned:
            hit = any(_covers(path, t) for t in touched)
            out.append(f"  {path}  {'changed' if hit else 'unchanged'}")
        stray = _not_in_plan(ev)
        if stray:
            out.append(f"changed but not mentioned in the plan: {len(stray)}")
            out.extend(f"  {path}" for path in stray)
        return "\n".join(out)

    def _show(self, path: Path) -> str:
        if self.root is not None and path.is_relative_to(self.root):
            return path.relative_to(self.root).as_posix()
        return str(path)


def _covers(mentioned: str, touched: str) -> bool:
    return touched == mentioned or (mentioned.endswith("/") and touched.startswith(mentioned))


def _not_in_plan(ev: Evidence) -> tuple[str, ...]:
    touched = sorted(set(ev.git.changed) | set(ev.git.untracked))
    return tuple(t for t in touched if t not in ev.named and not any(_covers(m, t) for m in ev.mentioned))


def named_files(text: str, files: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """The files whose name a plan writes as a word, in any case and with or without its extension.

    A step says "mention it in the README": README.md is in the plan. Names shorter than three
    characters (`a.c`'s "a") would match ordinary words, so they count only with their extension.
    """
    words = {w.lower() for w in _WORD.findall(text)}
    found = []
    for path in files:
        name = path.rstrip("/").rsplit("/", 1)[-1]
        stem = name.split(".", 1)[0] if not name.startswith(".") else name
        if name.lower() in words or (len(stem) >= 3 and stem.lower() in words):
            found.append(path)
    return tuple(found)


def _record_dict(rec: ApprovalRecord) -> dict[str, Any]:
    return {
        "seq": rec.seq,
        "plan": rec.plan,
        "artifact": rec.artifact,
        "sha256": rec.file_sha256,
        "canonical_sha256": rec.canonical_sha256,
        "bytes": rec.bytes,
        "approver": rec.approver,
        "at": rec.at,
        "commit": rec.commit,
        "packet_sha256": rec.packet_sha256,
        "channel": rec.channel,
    }


def _entry_dict(entry: ApprovalEntry) -> dict[str, Any]:
    data = _record_dict(entry.record)
    rev = entry.revocation
    data["revoked"] = (
        None
        if rev is None
        else {
            "seq": rev.seq,
            "changed_sections": list(rev.changed_sections),
            "reason": rev.reason,
            "channel": rev.channel,
        }
    )
    return data


# -- git -------------------------------------------------------------------------------------


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, timeout=60, stdin=subprocess.DEVNULL, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _zsplit(data: bytes) -> tuple[str, ...]:
    return tuple(os.fsdecode(part) for part in data.split(b"\0") if part)


def git_changes(root: Path | None, commit: str | None) -> GitChanges:
    """Tracked changes against `commit` (working tree vs commit) and untracked, non-ignored files."""
    if root is None:
        return GitChanges(commit, "", (), (), note="not a git repository: no working-tree diff available")
    untracked_run = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    untracked = _zsplit(untracked_run.stdout) if untracked_run and untracked_run.returncode == 0 else ()
    if commit is None:
        return GitChanges(
            None, "", (), untracked, note="no commit was recorded at approval time (no commits yet?)"
        )
    exists = _git(root, "cat-file", "-e", f"{commit}^{{commit}}")
    if exists is None or exists.returncode != 0:
        return GitChanges(
            commit, "", (), untracked, note=f"commit {commit[:12]} is no longer in this repository"
        )
    stat = _git(root, "diff", "--stat", commit, "--")
    names = _git(root, "diff", "--name-only", "-z", commit, "--")
    if stat is None or names is None or stat.returncode != 0 or names.returncode != 0:
        return GitChanges(commit, "", (), untracked, note="git diff failed")
    return GitChanges(commit, os.fsdecode(stat.stdout).rstrip("\n"), _zsplit(names.stdout), untracked)


# -- plan mentions ---------------------------------------------------------------------------


def mentioned_paths(text: str, root: Path | None) -> tuple[str, ...]:
    """Paths written in the plan (backticked or path-like) that exist inside the project, in order."""
    if root is None:
        return ()
    real_root = Path(os.path.realpath(root))
    positioned: list[tuple[int, str]] = []
    for match in _BACKTICKED.finditer(text):
        positioned.extend((match.start(), word) for word in match.group(1).split())
    positioned.extend((m.start(), m.group(1)) for m in _PATHLIKE.finditer(text))
    positioned.sort(key=lambda item: item[0])  # document order
    found: list[str] = []
    seen: set[str] = set()
    for _, raw in positioned:
        if "://" in raw or raw.startswith(("-", "~", "$")):
            continue
        cleaned = _LOCATION.sub("", raw.strip("'\"()[]{}<>,;")).rstrip(".,:;")
        cleaned = cleaned.removeprefix("./")
        if not cleaned or cleaned in (".", "..") or cleaned.startswith("/"):
            continue
        target = Path(os.path.realpath(real_root / cleaned))
        if not target.is_relative_to(real_root) or target == real_root or not target.exists():
            continue
        rel = target.relative_to(real_root).as_posix()
        if rel.split("/")[0] in (".git", ".planview"):
            continue
        rel += "/" if target.is_dir() else ""
        if rel not in seen:
            seen.add(rel)
            found.append(rel)
        if len(found) >= MAX_MENTIONS:
            break
    return tuple(found)


# -- the report ------------------------------------------------------------------------------


def build_audit(approvals: Approvals) -> AuditReport:
    verification = approvals.ledger.verify()
    entries = tuple(history(verification.events))
    newest = _evidence(approvals, entries[-1].record) if entries else None
    return AuditReport(approvals.ledger.path, verification, entries, newest, approvals.project_root)


def _evidence(approvals: Approvals, record: ApprovalRecord) -> Evidence:
    artifact = approvals.artifact_path(record)
    try:
        sealed = read_regular(artifact)  # a FIFO in its place is refused, never read
        artifact_ok = hashlib.sha256(sealed).hexdigest() == record.file_sha256
        text = sealed.decode("utf-8", errors="replace")
    except (OSError, PlanviewError):
        artifact_ok, text = False, ""
    packet_path = artifact.with_suffix(".packet.json")
    try:
        approvals.packet(record)
        packet_ok, packet_note = True, None
    except PlanviewError as exc:
        packet_ok, packet_note = False, str(exc)
    status = status_note = None
    if approvals.ledger.verify().ok:
        try:
            status = approvals.status(approvals.plan_for_key(record.plan))
        except PlanviewError as exc:
            status_note = str(exc)
    else:
        status_note = "unknown: the ledger does not verify"
    changes = git_changes(approvals.project_root, record.commit)
    return Evidence(
        record=record,
        artifact_path=artifact,
        artifact_ok=artifact_ok,
        packet_path=packet_path,
        packet_ok=packet_ok,
        packet_note=packet_note,
        status=status,
        status_note=status_note,
        git=changes,
        mentioned=mentioned_paths(text, approvals.project_root),
        named=named_files(text, sorted(set(changes.changed) | set(changes.untracked))),
    )
