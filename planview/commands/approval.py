"""`planview approve`, `planview status` and `planview audit` (no textual)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planview.textsafe import say

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: start-up stays short
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add this area's subcommands."""
    approve = subparsers.add_parser(
        "approve",
        help="approve a plan: seal its exact bytes and record the approval in the ledger",
        description="Seal the plan as .planview/artifacts/<uuid>.md and append an `approved` event to the "
        "hash-chained ledger. Approving the same content again returns the same artifact.",
    )
    approve.add_argument("path", metavar="PATH", help="a plan in the plans folder (a bare file name works)")
    approve.add_argument(
        "--as",
        dest="as_name",
        metavar="NAME",
        help="who approves (default: git's user.name <user.email>, else the OS user)",
    )
    approve.add_argument(
        "--sign",
        action="store_true",
        help="also sign the approval for the team with your SSH key and add it to the git notes "
        "(refs/notes/planview/approvals; share them with planview sync); see docs/TEAM.md",
    )
    approve.set_defaults(handler=run_approve)

    status = subparsers.add_parser(
        "status",
        help="is a plan approved, stale (changed since approval) or not approved? exit 0 only when approved",
        description="Say whether a plan is approved (with who and through which channel), stale (approved, "
        "then changed: the changed sections are named) or not approved. --json prints {plan, state, "
        "changed_sections, revoked, detail, approval}. Exit status: 0 approved, 1 stale or not approved, "
        "2 bad input (no such plan, a plan or ledger that cannot be read, no plans yet).",
    )
    status.add_argument("path", metavar="PATH", nargs="?", help="the plan (default: the newest plan)")
    status.add_argument("--json", action="store_true", help="print one JSON object")
    status.set_defaults(handler=run_status)

    audit = subparsers.add_parser(
        "audit",
        help="verify the ledger, list approvals, and show what changed since the newest one",
        description="Verify the hash chain of the approval ledger (.planview/ledger.jsonl), list the "
        "approvals, and show what changed since the newest one next to the files the plan names. "
        "Exit status: 0 the ledger verifies, 1 it does not (the first bad line is named on stderr), "
        "2 when the ledger cannot be read at all (a folder, no permission).",
    )
    audit.add_argument("--json", action="store_true", help="print one JSON object")
    audit.add_argument(
        "--repair",
        action="store_true",
        help="first remove a torn (unterminated) last line left by an interrupted write, keeping a backup "
        "of the ledger beside it; nothing else is ever changed",
    )
    audit.set_defaults(handler=run_audit)


def _open(*, create: bool) -> Any:
    from planview.approval.approvals import Approvals
    from planview.plan.store import PlanStore

    store = PlanStore.for_cwd(create=create)
    return store, Approvals(store.home, store.project_root)


def _plan_arg(raw: str, store: Any) -> Path:
    from planview.plan.store import resolve_plan_argument

    return resolve_plan_argument(raw, store.plans_dir)


def run_approve(args: argparse.Namespace) -> int:
    from planview.approval.channels import approve_command_channel, refuse_agent_shell
    from planview.approval.flow import approve

    refuse_agent_shell()
    store, approvals = _open(create=True)
    outcome = approve(
        approvals,
        _plan_arg(args.path, store),
        channel=approve_command_channel(),
        approver=args.as_name,
        sign=True if args.sign else None,
    )
    assert outcome.record is not None
    print_approval(outcome.record, new=outcome.new)
    if outcome.signed is not None:
        print_signed(outcome.signed)
    return 0


def print_signed(signed: Any) -> None:
    """The lines a signed approval adds: who signed, on which base, and where the record went."""
    payload = signed.record.payload
    if signed.warning:
        say(f"planview: {_for_terminal(signed.warning)}", file=sys.stderr)
    if not signed.new:
        say("planview: already signed (the same record is in the notes); no new signature", file=sys.stderr)
    say(_for_terminal(f"signed:{payload.principal}"))
    say(f"base:{payload.base}")
    say(_for_terminal(f"scope:{','.join(payload.scope)}"))
    say(f"notes:refs/notes/planview/approvals (share: {_planview()} sync)")


def print_approval(record: Any, *, new: bool) -> None:
    """The lines `planview approve` prints (and `planview review` after `a`): artifact first, then key:value."""
    if not new:
        say(
            f"planview: already approved (seq {record.seq} by {record.approver}); no new event recorded",
            file=sys.stderr,
        )
    say(record.artifact)
    say(f"sha256:{record.file_sha256}")
    say(f"bytes:{record.bytes}")
    say(f"canonical:{record.canonical_sha256}")
    say(f"approver:{record.approver}")
    say(f"channel:{record.channel}")
    say(f"seq:{record.seq}")


def approval_json(record: Any) -> dict[str, Any]:
    return {
        "seq": record.seq,
        "artifact": record.artifact,
        "sha256": record.file_sha256,
        "canonical_sha256": record.canonical_sha256,
        "bytes": record.bytes,
        "approver": record.approver,
        "channel": record.channel,
        "at": record.at,
        "commit": record.commit,
    }


def run_status(args: argparse.Namespace) -> int:
    from planview.approval.channels import shown
    from planview.approval.errors import ApprovalError

    store, approvals = _open(create=False)
    if args.path is None:
        latest = store.latest()
        if latest is None:
            from planview.plan.store import check_plans_folder

            check_plans_folder(store.plans_dir, store.relative(store.plans_dir))
            raise ApprovalError(f"no plans in {store.relative(store.plans_dir)} yet; write one, or pass PATH")
        path = latest
    else:
        path = _plan_arg(args.path, store)
    status = approvals.status(path)
    if args.json:
        from planview.textsafe import json_for_terminal

        record = status.record
        say(
            json_for_terminal(
                {
                    "plan": status.plan,
                    "state": status.state,
                    "changed_sections": list(status.changed_sections),
                    "revoked": status.revoked,
                    "detail": status.detail,
                    "approval": None if record is None else approval_json(record),
                },
                sort_keys=True,
            )
        )
        return status.exit_code
    lines = [f"{status.state}: {status.plan}"]
    record = status.record
    if status.empty:  # `planview approve` would refuse it: no hint to run that
        lines.append(f"  {status.detail}")
    elif status.state == "approved" and record is not None:
        lines.append(f"  {record.artifact} by {record.approver} at {record.at} via {shown(record.channel)}")
    elif status.state == "stale" and record is not None:
        lines.append(
            f"  approved as {record.artifact} by {record.approver} at {record.at} via {shown(record.channel)}, "
            "then changed"
        )
        if status.changed_sections:
            lines.append("  changed sections:")
            lines.extend(f"    - {name}" for name in status.changed_sections)
        else:
            lines.append(f"  {status.detail}")
        lines.append(f"  approve it again: {_planview()} approve {_quote(store.relative(path))}")
    else:
        lines.append(f"  approve it: {_planview()} approve {_quote(store.relative(path))}")
    say(_for_terminal("\n".join(lines)))
    return status.exit_code


def _for_terminal(text: str) -> str:
    """Ledger fields, plan section titles and file names are not planview's to trust: a hand-written
    ledger or a file named with escape sequences must not drive the terminal."""
    from planview.textsafe import sanitize_for_terminal

    return sanitize_for_terminal(text)


def _planview() -> str:
    """The command word for a hint (imported only for one: an approved plan's status prints none)."""
    from planview.invocation import planview_command

    return planview_command()


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def run_audit(args: argparse.Namespace) -> int:
    from planview.approval.audit import build_audit

    _, approvals = _open(create=False)
    if args.repair:
        done = approvals.ledger.repair()
        if done.backup is None:
            say("planview: nothing to repair: the ledger has no torn last line", file=sys.stderr)
        else:
            say(
                f"planview: removed the torn line {done.line} ({done.removed} bytes); the ledger as it was is "
                f"kept in {done.backup}",
                file=sys.stderr,
            )
    report = build_audit(approvals)
    if args.json:
        from planview.textsafe import json_for_terminal

        say(json_for_terminal(report.to_dict(), sort_keys=True))
    else:
        from planview.invocation import spelled_as_run

        say(spelled_as_run(_for_terminal(report.render())))
    problem = report.verification.problem
    if not report.verification.ok and problem is not None:
        say(
            f"planview: ledger tampered or damaged at line {problem.line} (seq {problem.seq}): {problem.message}",
            file=sys.stderr,
        )
        if problem.torn:
            say(
                f"planview: to remove the torn line (a backup of the ledger is kept): {_planview()} audit --repair",
                file=sys.stderr,
            )
    return report.exit_code
