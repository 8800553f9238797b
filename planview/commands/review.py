"""`planview review PATH [--json]`: open the review screen on one plan file, and record what was decided.

The decision goes through the one approval flow (planview.approval.flow) with the channel
"review screen (planview review)": `a` seals the plan and appends the ledger event exactly as
`planview approve` does, and prints the same lines (artifact, sha256:, bytes:, ...). Refine and keep
record nothing and print what was decided (and the feedback).

Exit 0 when the plan was approved, 1 when it was not (kept or sent back with a refinement),
2 on bad input (missing file, not Markdown, unreadable, or an approval that cannot be recorded,
such as a plan outside the plans folder), which the dispatcher prints as one line.
With `--json`, after the screen closes:
`{"decision": "approve"|"refine"|"keep", "feedback": str|null, "plan": path, "sha256": canonical hash, "note": the approval's note|null}`,
plus `"approval": {seq, artifact, sha256, canonical_sha256, bytes, approver, channel, at, commit}`
when the plan was approved.

`planview review --web PATH [--no-open] [--json] [--approve]` serves the browser review page
instead: the page's URL (token included) is the first line of stdout, the default browser opens
it unless `--no-open`, and the command exits when the page settles — 0 approved (only offered
with `--approve`), 1 feedback saved or closed. `--json` adds the saved comments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planview.errors import PlanviewError
from planview.textsafe import json_for_terminal, say

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: start-up stays short
if TYPE_CHECKING:
    from typing import Any

    from planview.approval.flow import ReviewOutcome
    from planview.plan.decision import ReviewDecision

# The plan modules (markdown-it) and textual load when the command runs, not for `planview --help`.


class ReviewInputError(PlanviewError):
    """The path given to `planview review` is not a plan that can be reviewed."""


def register(subparsers: argparse._SubParsersAction) -> None:
    review = subparsers.add_parser(
        "review",
        help="review a plan file: approve, refine or keep planning",
        description="Open the plan review screen on PATH. Exit status: 0 approved, 1 not approved "
        "(kept or refined), 2 bad input.",
    )
    review.add_argument("path", metavar="PATH", help="the Markdown plan to review (e.g. plans/<sample>.md)")
    review.add_argument(
        "--json",
        action="store_true",
        help='after the screen closes print {"decision": approve|refine|keep, "feedback", "plan", "sha256", "note"} '
        '(+ "approval" when approved) as JSON; with --web also "file_sha256", "comments", "reason"',
    )
    review.add_argument(
        "--web",
        action="store_true",
        help="review in the browser: print the page's URL first, exit when the page settles",
    )
    review.add_argument(
        "--no-open", action="store_true", help="with --web: print the URL but do not open a browser"
    )
    review.add_argument(
        "--approve",
        action="store_true",
        help="with --web: offer Approve & run on the page (recorded in the ledger, channel 'browser review')",
    )
    review.add_argument(
        "--channel",
        metavar="NAME",
        help="how the approval is recorded in the ledger (default: 'review screen (planview review)'); "
        "a UI that opens this screen for a person names itself, e.g. 'Claude Code'",
    )
    review.set_defaults(handler=run_review)


def _shown(path: str) -> str:
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in path)


def check_plan(raw: str) -> tuple[Path, str]:
    """The absolute plan path and its text, or a one-line store error (not Markdown, missing, unreadable)."""
    from planview.plan.store import plans_dir_for_cwd, read_plan_text, resolve_markdown_plan

    path = resolve_markdown_plan(raw, plans_dir_for_cwd())  # PlanPathError: not a Markdown plan
    text = read_plan_text(path)  # PlanNotFoundError / PlanReadError say what to do
    return path.resolve(), text


class NoTerminalError(PlanviewError):
    """A screen was asked for where there is no terminal to draw it on or read keys from."""


def require_terminal(
    command: str, instead: str = "from a script use `planview status PATH` and `planview approve PATH`"
) -> None:
    """Every planview screen (review, the session app, the demo) reads keys from stdin and draws on
    stderr (Textual's driver); without a terminal there it would wait forever for keys that never come."""
    import sys

    missing = [name for name, stream in (("stdin", sys.stdin), ("stderr", sys.stderr)) if not _is_tty(stream)]
    if missing:
        raise NoTerminalError(
            f"{command} needs a terminal ({' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not "
            f"one); run it in a terminal, or {instead}"
        )


def _is_tty(stream: object) -> bool:
    try:
        return bool(stream is not None and stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def open_review(path: Path, home: Path | None, *, not_approvable: str | None = None) -> ReviewDecision:
    """Run the standalone review app until it decides (the seam tests replace); `not_approvable`:
    why an approval could only fail, so the screen does not offer one."""
    require_terminal("planview review")
    from planview.commands import collector

    collector.pause()
    try:
        from planview.tui.review.app import ReviewApp  # only the UI commands load textual

        decision = ReviewApp(
            path,
            home=home,
            on_first_frame=collector.resume,
            not_approvable=not_approvable,
            keymap=_key_overrides(home),
        ).run()
    finally:
        collector.resume()
    from planview.plan.decision import Keep  # (after the screen: nothing but it before the first frame)

    return decision if decision is not None else Keep()


def _key_overrides(home: Path | None) -> dict[str, str]:
    """The config's `[keys]` rebinds (the review's keys are in planview/keymap.py)."""
    from planview.config import config_paths, load_config, user_config_path

    paths = config_paths(home) if home is not None else (user_config_path(),)
    return dict(load_config(home, paths=paths).keys)


def decision_json(decision: ReviewDecision, path: Path) -> dict[str, object]:
    from planview.plan.canonical import canonical_sha256
    from planview.plan.decision import Approved, Refine
    from planview.plan.store import read_plan_text

    if isinstance(decision, Approved):
        sha: str | None = decision.canonical_sha256
    else:
        try:
            sha = canonical_sha256(read_plan_text(path))
        except PlanviewError:
            sha = None  # the file is gone or unreadable now
    kind = (
        "approve" if isinstance(decision, Approved) else "refine" if isinstance(decision, Refine) else "keep"
    )
    return {
        "decision": kind,
        "feedback": decision.text if isinstance(decision, Refine) else None,
        "plan": str(decision.plan if isinstance(decision, Approved) else path),
        "sha256": sha,
        "note": decision.note if isinstance(decision, Approved) else None,
    }


def run_web_review(args: argparse.Namespace, path: Path, home: Path | None) -> int:
    import asyncio

    from planview.web.review import serve_review

    def show_url(url: str) -> None:
        say(url, flush=True)  # the first stdout line, before the browser starts
        if _is_tty(sys.stderr):  # a person is watching (a script reads stdout): say what happens now
            how = (
                "open it in your browser"
                if args.no_open
                else "it opens in your browser (else open it yourself)"
            )
            say(
                f"planview: the review page is at the URL above (it works once); {how}. This ends when the page approves, "
                "saves its comments or goes Back; Ctrl+C ends it with nothing decided.",
                file=sys.stderr,
                flush=True,
            )

    try:
        decision = asyncio.run(
            serve_review(
                path, approve=args.approve, home=home, open_browser=not args.no_open, on_url=show_url
            )
        )
    except KeyboardInterrupt:
        say("planview: browser review interrupted; nothing was decided", file=sys.stderr)
        return 1
    if args.json:
        say(json_for_terminal(decision.to_json()))
    elif decision.outcome == "approved":
        record = decision.record
        say(f"approved: {path}")
        if record is not None:
            from planview.commands.approval import print_approval

            # The lines `planview approve` prints, with its labels (sha256: is the file's bytes).
            print_approval(record, new=True)
        else:
            say(f"canonical:{decision.canonical_sha256}")
    elif decision.outcome == "saved":
        say(f"saved {len(decision.comments)} comment(s) into {path}")
    else:
        say(f"closed: {decision.reason or 'no decision'}")
    return 0 if decision.outcome == "approved" else 1


def run_review(args: argparse.Namespace) -> int:
    from planview.home import planview_home

    path, _text = check_plan(args.path)
    if not args.web and (args.no_open or args.approve):
        raise ReviewInputError("--no-open and --approve go with --web (planview review --web PATH ...)")
    try:
        home: Path | None = planview_home()
    except (OSError, PlanviewError):
        home = None  # no baseline store: the review works, without changed markers
    if args.web:
        if args.approve:  # an Approve that can only fail is not offered: exit 2 before any page
            _approvals(create=False).check_approvable(path)
        return run_web_review(args, path, home)
    try:  # a plan outside the plans folder can be read and refined, never approved: not offered
        _approvals(create=False).check_approvable(path)
        not_approvable = None
    except (OSError, PlanviewError) as exc:
        not_approvable = str(exc)
    decision = open_review(path, home, not_approvable=not_approvable)
    from planview.plan.decision import Approved, Refine

    outcome = _record(decision, path, args.channel)
    if args.json:
        data = decision_json(decision, path)
        if outcome is not None and outcome.record is not None:
            from planview.commands.approval import approval_json

            data["approval"] = approval_json(outcome.record)
        say(json_for_terminal(data))
    elif outcome is not None and outcome.record is not None:
        from planview.commands.approval import print_approval

        print_approval(outcome.record, new=outcome.new)
    elif isinstance(decision, Refine):
        say(f"refine: {_shown(str(path))} was not approved; feedback for the plan's author:")
        say(_for_terminal(decision.text))
    else:
        say(f"keep: {_shown(str(path))} was not approved; nothing recorded")
    return 0 if isinstance(decision, Approved) else 1


def _record(decision: ReviewDecision, path: Path, channel: str | None) -> ReviewOutcome | None:
    """An approval goes through the one approval flow; refine/keep record nothing."""
    from planview.plan.decision import Approved

    if not isinstance(decision, Approved):
        return None
    from planview.approval.channels import REVIEW_COMMAND
    from planview.approval.flow import record_decision

    approvals = _approvals(create=True)
    return record_decision(approvals, path, decision, channel=(channel or "").strip() or REVIEW_COMMAND)


def _approvals(*, create: bool) -> Any:
    from planview.approval.approvals import Approvals
    from planview.plan.store import PlanStore

    store = PlanStore.for_cwd(create=create)  # the same home `planview approve` and `planview status` use
    return Approvals(store.home, store.project_root)


def _for_terminal(text: str) -> str:
    from planview.textsafe import sanitize_for_terminal

    return sanitize_for_terminal(text)
