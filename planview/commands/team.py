"""`planview verify`, `planview sync`, `planview export --pr` and `planview team init|uninstall|trailer`
(signed team approvals in git; see docs/TEAM.md). No textual."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planview.textsafe import say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add this area's subcommands."""
    verify = subparsers.add_parser(
        "verify",
        help="CI check: every commit since the base names a plan that the team's policy says is approved",
        description="Exit 0 only when every commit in merge-base(BASE, HEAD)..HEAD carries a `Plan: "
        "sha256:<canonical>` trailer naming a plan whose signed approvals (refs/notes/planview/approvals) "
        "verify against .planview/allowed_signers READ FROM THE BASE, each changed path is inside the plan's "
        "scope, and each path's rule in the base's .planview/policy.toml is met by distinct principals. "
        "Exit status: 0 verified, 1 not verified (each commit and path is named with the reason), 2 bad input.",
    )
    verify.add_argument("--base", required=True, metavar="REF", help="the target branch, e.g. origin/main")
    verify.add_argument("--head", default="HEAD", metavar="REF", help="the branch to check (default: HEAD)")
    verify.add_argument("--json", action="store_true", help="print one JSON object")
    verify.set_defaults(handler=run_verify)

    sync = subparsers.add_parser(
        "sync",
        help="fetch, merge and push the signed approvals (git notes) with a remote",
        description="Fetch refs/notes/planview/approvals from REMOTE, merge them with yours (cat_sort_uniq: "
        "every record is kept), and push; a push rejected because a teammate pushed first is merged and "
        "pushed again. Sets up the notes merge strategy and a fetch refspec once, and says so.",
    )
    sync.add_argument("remote", metavar="REMOTE", nargs="?", default="origin", help="default: origin")
    sync.set_defaults(handler=run_sync)

    export = subparsers.add_parser(
        "export",
        help="print Markdown for a pull request: the plan, its signed approvals, Steps progress, diff stat",
    )
    export.add_argument("--pr", required=True, metavar="PLAN", help="the plan (a bare file name works)")
    export.set_defaults(handler=run_export)

    team = subparsers.add_parser(
        "team",
        help="set up signed team approvals: init writes the policy and installs the commit hook",
        description="init: write .planview/allowed_signers (with your SSH key) and .planview/policy.toml, let "
        "git track them, and install the prepare-commit-msg hook that adds the Plan trailer. uninstall: "
        "remove the hook. trailer: what the hook runs.",
    )
    actions = team.add_subparsers(dest="team_command", metavar="ACTION", required=True)
    init = actions.add_parser("init", help="write the team policy with your key and install the hook")
    init.add_argument(
        "--key",
        metavar="FILE",
        help="your SSH key (default: [approval] signing_key, else git's user.signingkey)",
    )
    init.add_argument(
        "--principal", metavar="EMAIL", help="your name in allowed_signers (default: git's user.email)"
    )
    init.set_defaults(handler=run_team_init)
    uninstall = actions.add_parser("uninstall", help="remove the prepare-commit-msg hook (the policy stays)")
    uninstall.set_defaults(handler=run_team_uninstall)
    trailer = actions.add_parser(
        "trailer", help="add the Plan trailer to a commit message file (the hook runs it)"
    )
    trailer.add_argument("message_file", metavar="MSGFILE")
    trailer.set_defaults(handler=run_team_trailer)


def _say(text: str, *, err: bool = False) -> None:
    """Print through the one sanitiser, with each `planview …` command spelled the way this one runs."""
    from planview.invocation import spelled_as_run
    from planview.textsafe import sanitize_for_terminal

    say(spelled_as_run(sanitize_for_terminal(text)), file=sys.stderr if err else sys.stdout)


def run_verify(args: argparse.Namespace) -> int:
    from planview.team.verify import verify

    report = verify(Path.cwd(), args.base, args.head)
    if args.json:
        from planview.textsafe import json_for_terminal

        say(json_for_terminal(report.to_dict(), sort_keys=True))
    else:
        _say(report.render())
    return 0 if report.ok else 1


def run_sync(args: argparse.Namespace) -> int:
    from planview.team.git import repo_root
    from planview.team.notes import PUSH_REFSPEC, fetch_refspec, sync

    root = repo_root(Path.cwd())
    report = sync(root, args.remote)
    for line in report.configured:
        _say(f"planview: set up: {line}", err=True)
    _say(f"planview: fetch refspec: {fetch_refspec(args.remote)} (push: {PUSH_REFSPEC})", err=True)
    if report.pushed:
        tries = "" if report.attempts == 1 else f" after {report.attempts} tries (a teammate pushed first)"
        _say(f"synced {report.records} approval record(s) with {args.remote}{tries}")
    else:
        _say(f"no approval records here or on {args.remote} yet; approve with `planview approve PLAN --sign`")
    return 0


def _store() -> Any:
    from planview.plan.store import PlanStore

    return PlanStore.for_cwd(create=False)


def run_export(args: argparse.Namespace) -> int:
    from planview.plan.store import decode_plan, read_plan_bytes, resolve_plan_argument
    from planview.team.export import pr_markdown

    store = _store()
    path = resolve_plan_argument(args.pr, store.plans_dir)
    text = decode_plan(path, read_plan_bytes(path))
    _say(pr_markdown(Path.cwd(), store.relative(path), text))
    return 0


def run_team_init(args: argparse.Namespace) -> int:
    from planview.config import load_approval_settings
    from planview.home import planview_home
    from planview.invocation import planview_command
    from planview.team.bootstrap import init
    from planview.team.policy import NAMESPACE, POLICY_PATH, SIGNERS_PATH

    home = planview_home()
    key = args.key or load_approval_settings(home).signing_key
    report = init(
        Path.cwd(), signing_key=key, principal=args.principal, command=planview_command(), home=home
    )
    lines = [
        f"{SIGNERS_PATH}: {report.signers_written} ({report.principal}, key {report.key})",
        "  who may sign plan approvals: ssh-keygen's allowed-signers format, namespace " + NAMESPACE + ".",
        "  CI reads it from the target branch, never from the pull request, so a new member's key is",
        "  added by a change that the people already listed approve.",
        f"{POLICY_PATH}: {report.policy_written}",
        "  rules by path glob (last match wins): how many distinct people must sign, optionally from a",
        "  group, optionally not the commit's author.",
        f"{home.name}/.gitignore lets git see these two files; everything else in {home.name}/ stays ignored."
        if report.gitignore_ok
        else f"note: {home / '.gitignore'} is your own; add `!/allowed_signers` and `!/policy.toml` to it",
        report.hook,
        "  every commit made while a plan is executed gets `Plan: sha256:<canonical hash>`.",
        "next: `git add .planview/allowed_signers .planview/policy.toml`, commit, and push that to the main branch;",
        '  sign approvals with `planview approve PLAN --sign` (or [approval] sign = "ssh" in .planview/config.toml),',
        "  share them with `planview sync`, check a branch with `planview verify --base origin/main`.",
    ]
    _say("\n".join(lines))
    return 0


def run_team_uninstall(args: argparse.Namespace) -> int:
    from planview.team.git import repo_root
    from planview.team.hooks import uninstall

    _say(uninstall(repo_root(Path.cwd())))
    return 0


def run_team_trailer(args: argparse.Namespace) -> int:
    """The hook's call: name the plan being executed in the commit message (nothing when there is none)."""
    import os

    from planview.team.git import repo_root
    from planview.team.hooks import PLAN_ENV, add_trailer

    root = repo_root(Path.cwd())
    canonical = os.environ.get(PLAN_ENV, "").strip() or _current_plan()
    if not canonical:
        _say(
            "planview: no approved plan is being executed; this commit names no plan (planview verify will say so)",
            err=True,
        )
        return 0
    add_trailer(root, Path(args.message_file), canonical)
    return 0


def _current_plan() -> str | None:
    """The canonical hash of the newest approval in this project's ledger that still matches its plan."""
    from planview.approval.approvals import Approvals
    from planview.errors import PlanviewError

    try:
        store = _store()
        approvals = Approvals(store.home, store.project_root)
        for entry in reversed(approvals.history()):
            record = entry.record
            if entry.revocation is None and approvals.is_current(approvals.plan_for_key(record.plan)):
                return record.canonical_sha256
    except PlanviewError:
        return None
    return None
