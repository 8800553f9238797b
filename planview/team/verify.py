"""`planview verify`: every commit of a pull request is covered by a plan the right people signed.

Passes only when every commit in merge-base(base, head)..head names an approved plan (`Plan:
sha256:…` trailer), each path it changes is inside that plan's scope, each path's rule (the base's
policy.toml, last match wins) is met by valid signatures from distinct principals, and every record
relied on verifies against the allowed_signers of the BASE commit - never the head's, so a pull
request that adds its own key gains nothing. A record counts for a commit only when its base is a
proper ancestor of that commit (approved before the work, on this history) and it is attached to
that base. Anything missing, malformed or unverifiable is a finding with its reason.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from planview.team import git, notes, sshsig
from planview.team.errors import PolicyError, TeamError
from planview.team.policy import (
    POLICY_PATH,
    SIGNERS_PATH,
    TEAM_FILES,
    Policy,
    parse_policy,
    parse_signers,
    policy_digest,
)
from planview.team.record import MalformedRecord, SignedRecord, parse_line
from planview.team.scope import plan_scope

TRAILER = "Plan"
_TRAILER_VALUE = re.compile(r"sha256:([0-9a-f]{64})")


@dataclass(frozen=True)
class Finding:
    """One reason verify fails: the commit and path it is about (None: the whole check) and why."""

    reason: str
    commit: str | None = None
    path: str | None = None

    def line(self, subjects: dict[str, str]) -> str:
        where = []
        if self.commit:
            where.append(f"commit {self.commit[:12]} ({subjects.get(self.commit, '')[:60]})")
        if self.path is not None:
            where.append(f"path {self.path}")
        return f"{': '.join(where) or 'verify'}: {self.reason}"


@dataclass(frozen=True)
class Approval:
    """A record on the notes ref as verify judged it (valid, or why not)."""

    where: str
    plan: str | None
    principal: str | None
    base: str | None
    at: str | None
    channel: str | None
    problem: str | None


@dataclass(frozen=True)
class Report:
    """The outcome of one verify run; `ok` only when there is no finding."""

    base_ref: str
    base: str
    head: str
    merge_base: str | None
    commits: tuple[str, ...]
    subjects: dict[str, str]
    findings: tuple[Finding, ...]
    approvals: tuple[Approval, ...]
    covered: dict[str, tuple[str, ...]] = field(default_factory=dict)  # commit -> principals relied on

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "base_ref": self.base_ref,
            "base": self.base,
            "head": self.head,
            "merge_base": self.merge_base,
            "commits": [
                {
                    "commit": c,
                    "subject": self.subjects.get(c, ""),
                    "ok": not any(f.commit == c for f in self.findings),
                    "approved_by": list(self.covered.get(c, ())),
                }
                for c in self.commits
            ],
            "findings": [{"commit": f.commit, "path": f.path, "reason": f.reason} for f in self.findings],
            "approvals": [a.__dict__ for a in self.approvals],
        }

    def render(self) -> str:
        lines = [f"planview verify: {len(self.commits)} commit(s) in {self.base_ref}..{self.head[:12]}"]
        lines += [f"  FAIL {f.line(self.subjects)}" for f in self.findings]
        for commit in self.commits:
            if not any(f.commit == commit for f in self.findings):
                who = ", ".join(self.covered.get(commit, ())) or "nothing to approve"
                lines.append(f"  ok   commit {commit[:12]} ({self.subjects.get(commit, '')[:60]}): {who}")
        lines.append("verified" if self.ok else f"NOT verified: {len(self.findings)} finding(s)")
        return "\n".join(lines)


@dataclass(frozen=True)
class _Commit:
    """What verify reads of one commit: parents, author email, subject, Plan trailers, changed paths."""

    sha: str
    parents: tuple[str, ...]
    author_email: str
    subject: str
    plans: tuple[str, ...]
    paths: tuple[str, ...] = ()


def _commits(root: Path, fork: str, head: str) -> list[_Commit]:
    """The range's commits, oldest first, each with what it changed: two git calls for the whole range."""
    fmt = f"%x1e%H%x00%P%x00%ae%x00%s%x00%(trailers:key={TRAILER},valueonly,separator=%x1f)"
    out = git.run_git(root, ["log", "--reverse", "--topo-order", f"--format={fmt}", f"{fork}..{head}"])
    commits = []
    for chunk in out.stdout.decode("utf-8", "replace").split("\x1e")[1:]:
        parts = chunk.rstrip("\n").split("\x00")
        plans = tuple(v.strip() for v in parts[4].split("\x1f") if v.strip())
        commits.append(_Commit(parts[0], tuple(parts[1].split()), parts[2], parts[3], plans))
    if not commits:
        return commits
    # A merge counts only what it changed against every parent (-c: its own resolution); what a parent
    # brought is judged on that parent's own commits, which lie in the range too.
    args = ["diff-tree", "--stdin", "--always", "-r", "--name-only", "-z", "--no-renames", "-c", "--root"]
    feed = "".join(f"{c.sha}\n" for c in commits).encode()
    tokens = git.run_git(root, args, input=feed).stdout.decode("utf-8", "surrogateescape").split("\0")
    paths: dict[str, list[str]] = {}
    index, current = 0, None
    for token in tokens:
        # Output is in input order: a token is the next commit's header only when it is that very id
        # (a path named like the next commit's id would need that id before the commit exists).
        if index < len(commits) and token == commits[index].sha:
            current = commits[index].sha
            paths[current] = []
            index += 1
        elif token and current is not None:
            paths[current].append(token)
    return [replace(c, paths=tuple(dict.fromkeys(paths.get(c.sha, ())))) for c in commits]


class _Judge:
    """Judges the records of the plans the range names, each once, against the base's signers."""

    def __init__(self, root: Path, head: str, signers: bytes | None) -> None:
        self.root, self.head, self.signers = root, head, signers
        self.parsed: list[tuple[notes.NoteLine, SignedRecord]] = []
        self.judged: list[tuple[notes.NoteLine, SignedRecord | None, str | None]] = []
        self.malformed: list[str] = []
        self._plans: dict[str, list[tuple[notes.NoteLine, SignedRecord, str | None]]] = {}
        self._descendants: dict[str, frozenset[str]] = {}
        for line in notes.note_lines(root):
            try:
                self.parsed.append((line, parse_line(line.text)))
            except MalformedRecord as exc:
                self.malformed.append(f"{line.where()}: {exc}")
                self.judged.append((line, None, str(exc)))

    def descendants(self, base: str) -> frozenset[str]:
        """The commits of which `base` is a proper ancestor, up to head (one rev-list per base)."""
        if base not in self._descendants:
            out = git.git_text(self.root, ["rev-list", "--ancestry-path", f"{base}..{self.head}"])
            self._descendants[base] = frozenset(out.split())
        return self._descendants[base]

    def _problem(self, line: notes.NoteLine, record: SignedRecord) -> str | None:
        p = record.payload
        if self.signers is None:
            return f"no {SIGNERS_PATH} at the base to verify it against"
        if line.commit != p.base:
            return f"signed for base {p.base[:12]} but attached to {line.commit[:12]} (replayed)"
        data = record.plan_text.encode("utf-8")
        if hashlib.sha256(data).hexdigest() != p.plan_sha256:
            return "the plan text in the record is not the text that was signed (plan_sha256 differs)"
        from planview.plan.canonical import canonical_sha256

        if canonical_sha256(record.plan_text) != p.plan_canonical_sha256:
            return "the plan text's canonical SHA-256 is not the one signed"
        try:
            if plan_scope(record.plan_text) != p.scope:
                return "the signed scope is not the plan's scope: front matter"
        except PolicyError as exc:
            return f"the plan's scope cannot be read: {exc}"
        if git.resolve_commit(self.root, p.base) != p.base:
            return f"its base {p.base[:12]} is not a commit in this repository"
        if p.base != self.head and not self.descendants(p.base):
            return f"its base {p.base[:12]} is not an ancestor of head (approved on another history)"
        actual = policy_digest({n: git.file_at(self.root, p.base, n) for n in TEAM_FILES})
        if actual != dict(p.policy):
            return "the team policy it names is not the policy at its base"
        return sshsig.verify(record.payload_json.encode("utf-8"), record.signature, p.principal, self.signers)

    def for_plan(self, plan: str) -> list[tuple[notes.NoteLine, SignedRecord, str | None]]:
        if plan not in self._plans:
            found = [
                (ln, r, self._problem(ln, r))
                for ln, r in self.parsed
                if r.payload.plan_canonical_sha256 == plan
            ]
            self._plans[plan] = found
            self.judged.extend(found)
        return self._plans[plan]


def _load_policy(root: Path, base: str, base_ref: str) -> tuple[bytes | None, Policy | None, list[Finding]]:
    findings: list[Finding] = []
    signers = git.file_at(root, base, SIGNERS_PATH)
    policy_bytes = git.file_at(root, base, POLICY_PATH)
    policy = None
    if signers is None:
        findings.append(
            Finding(
                f"{SIGNERS_PATH} is missing at the base {base_ref}; merge it there first (planview team init)"
            )
        )
    else:
        try:
            parse_signers(signers)
        except PolicyError as exc:
            findings.append(Finding(f"at the base {base_ref}: {exc}"))
            signers = None
    if policy_bytes is None:
        findings.append(
            Finding(
                f"{POLICY_PATH} is missing at the base {base_ref}; merge it there first (planview team init)"
            )
        )
    else:
        try:
            policy = parse_policy(policy_bytes)
        except PolicyError as exc:
            findings.append(Finding(f"at the base {base_ref}: {exc}"))
    return signers, policy, findings


def _plan_of(commit: _Commit) -> tuple[str | None, str | None]:
    """(canonical sha256 the commit names, or None with the reason)."""
    if not commit.plans:
        return None, f"names no plan (no `{TRAILER}: sha256:<canonical sha256>` trailer)"
    if len(commit.plans) > 1:
        return None, f"names {len(commit.plans)} plans; a commit carries one {TRAILER} trailer"
    found = _TRAILER_VALUE.fullmatch(commit.plans[0])
    if found is None:
        return None, f"its {TRAILER} trailer {commit.plans[0][:80]!r} is not sha256:<64 hex digits>"
    return found.group(1), None


def _judge_commit(
    root: Path, commit: _Commit, policy: Policy | None, judge: _Judge
) -> tuple[list[Finding], tuple[str, ...]]:
    paths = commit.paths
    if not paths:
        return [], ()  # an empty commit or a clean merge changes nothing to approve
    plan, why = _plan_of(commit)
    if plan is None:
        return [Finding(why or "names no plan", commit.sha)], ()
    candidates = judge.for_plan(plan)
    valid = [
        r
        for _, r, problem in candidates
        if problem is None
        and r.payload.base != commit.sha
        and commit.sha in judge.descendants(r.payload.base)
    ]
    if not valid:
        reasons = [
            f"{ln.where()} by {r.payload.principal}: {problem or 'approved after this commit (its base is not an ancestor)'}"
            for ln, r, problem in candidates
        ]
        if judge.malformed:
            reasons.append(f"{len(judge.malformed)} malformed record line(s) ignored ({judge.malformed[0]})")
        if not notes.has_notes(root):
            reasons.append(f"{notes.NOTES_REF} is absent: fetch it (git fetch origin {notes.PUSH_REFSPEC})")
        detail = "; ".join(reasons) if reasons else "no record names it"
        return [Finding(f"plan sha256:{plan[:12]}… has no valid signed approval: {detail}", commit.sha)], ()
    if policy is None:
        return [], ()  # the policy's own finding already fails the run
    findings: list[Finding] = []
    used: set[str] = set()
    invalid = "".join(
        f"; invalid: {ln.where()} by {r.payload.principal}: {problem}"
        for ln, r, problem in candidates
        if problem
    )
    for path in paths:
        in_scope = [r for r in valid if any(_match(g, path) for g in r.payload.scope)]
        if not in_scope:
            scope = ", ".join(valid[0].payload.scope)
            findings.append(Finding(f"outside the plan's scope ({scope})", commit.sha, path))
            continue
        rule = policy.rule_for(path)
        if rule is None:
            findings.append(Finding(f"no rule in {POLICY_PATH} covers it", commit.sha, path))
            continue
        principals = {r.payload.principal for r in in_scope}
        eligible = {p for p in principals if policy.eligible(rule, p)}
        if rule.exclude_author:
            eligible = {p for p in eligible if p.casefold() != commit.author_email.casefold()}
        if len(eligible) < rule.approvals:
            have = ", ".join(sorted(eligible)) or "none"
            excluded = sorted(principals - eligible)
            note = (f"; not counted: {', '.join(excluded)}" if excluded else "") + invalid
            findings.append(
                Finding(
                    f"{rule.describe()} is not met: {len(eligible)} of {rule.approvals} ({have}){note}",
                    commit.sha,
                    path,
                )
            )
            continue
        used |= eligible
    return findings, tuple(sorted(used))


def _match(pattern: str, path: str) -> bool:
    from planview.team.globs import matches

    try:
        return matches(pattern, path)
    except PolicyError:
        return False  # a malformed signed scope covers nothing


def verify(start: Path, base_ref: str, head_ref: str = "HEAD") -> Report:
    """Verify merge-base(base_ref, head_ref)..head_ref (TeamError when a ref names no commit)."""
    root = git.repo_root(start)
    base = git.resolve_commit(root, base_ref)
    if base is None:
        raise TeamError(
            f"--base {base_ref!r} names no commit here; fetch it (git fetch origin main) or name another"
        )
    head = git.resolve_commit(root, head_ref)
    if head is None:
        raise TeamError(f"--head {head_ref!r} names no commit here; name a branch or commit")
    signers, policy, findings = _load_policy(root, base, base_ref)
    fork = git.merge_base(root, base, head)
    if fork is None:
        shallow = git.git_text(root, ["rev-parse", "--is-shallow-repository"]) == "true"
        hint = " (this is a shallow clone: fetch the whole history, e.g. fetch-depth: 0)" if shallow else ""
        findings.append(Finding(f"{base_ref} and {head_ref} share no history{hint}"))
        return Report(base_ref, base, head, None, (), {}, tuple(findings), ())
    commits = _commits(root, fork, head)
    shas = [c.sha for c in commits]
    judge = _Judge(root, head, signers)
    subjects: dict[str, str] = {}
    covered: dict[str, tuple[str, ...]] = {}
    for commit in commits:
        sha = commit.sha
        subjects[sha] = commit.subject
        found, used = _judge_commit(root, commit, policy, judge)
        findings.extend(found)
        if not found:
            covered[sha] = used
    approvals = tuple(
        Approval(
            ln.where(),
            r.payload.plan_canonical_sha256 if r else None,
            r.payload.principal if r else None,
            r.payload.base if r else None,
            r.payload.at if r else None,
            r.payload.channel if r else None,
            problem,
        )
        for ln, r, problem in judge.judged
    )
    return Report(base_ref, base, head, fork, tuple(shas), subjects, tuple(findings), approvals, covered)
