"""`planview export --pr PLAN`: Markdown for a pull request's description.

The plan, who approved and signed it (each record checked against the allowed_signers at its own
base), the Steps' progress, and the diff stat since the approval's base.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from planview.team import git, notes, sshsig
from planview.team.policy import SIGNERS_PATH
from planview.team.record import MalformedRecord, SignedRecord, parse_line


def _records(root: Path, canonical: str) -> list[tuple[SignedRecord, str]]:
    found: list[tuple[SignedRecord, str]] = []
    for line in notes.note_lines(root):
        try:
            record = parse_line(line.text)
        except MalformedRecord:
            continue
        if record.payload.plan_canonical_sha256 != canonical:
            continue
        signers = git.file_at(root, record.payload.base, SIGNERS_PATH)
        problem = (
            f"no {SIGNERS_PATH} at its base"
            if signers is None
            else sshsig.verify(
                record.payload_json.encode(), record.signature, record.payload.principal, signers
            )
        )
        if (
            problem is None
            and hashlib.sha256(record.plan_text.encode()).hexdigest() != record.payload.plan_sha256
        ):
            problem = "its plan text does not match the signature"
        found.append((record, "verified" if problem is None else f"NOT verified: {problem}"))
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def pr_markdown(start: Path, plan_name: str, text: str) -> str:
    """The Markdown for the plan whose text is `text` (named `plan_name`)."""
    from planview.plan.canonical import canonical_sha256
    from planview.plan.document import parse_plan
    from planview.plan.steps import extract_steps

    root = git.repo_root(start)
    canonical = canonical_sha256(text)
    title = parse_plan(text).title or plan_name
    out = [f"## Plan: {title}", "", f"`{plan_name}` · canonical `sha256:{canonical}`", ""]
    records = _records(root, canonical)
    out += ["### Approvals", ""]
    if records:
        out += ["| Approver | Signature | When | Channel | Base |", "|---|---|---|---|---|"]
        for record, state in records:
            p = record.payload
            out.append(
                f"| {_cell(p.principal)} | {_cell(state)} | {p.at} | {_cell(p.channel)} | `{p.base[:12]}` |"
            )
    else:
        out.append(
            f"No signed approval of this text in `{notes.NOTES_REF}` (run `planview approve --sign`, then `planview sync`)."
        )
    steps = extract_steps(text)
    out += ["", f"### Steps ({steps.done} of {steps.total} done)", ""]
    out += [f"- [{'x' if s.completed else ' '}] {s.display}" for s in steps.steps] or [
        "(the plan lists no steps)"
    ]
    if records:
        base = records[-1][0].payload.base
        stat = git.run_git(root, ["diff", "--stat", base, "HEAD"], check=False).stdout.decode(
            "utf-8", "replace"
        )
        out += ["", f"### Changes since `{base[:12]}`", "", "```", stat.rstrip() or "(no changes)", "```"]
    out += ["", "<details><summary>The approved plan</summary>", "", text.rstrip(), "", "</details>", ""]
    out += ["Check it: `planview verify --base origin/main`", ""]
    return "\n".join(out)
