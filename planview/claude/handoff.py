"""ExitPlanMode -> a planview plan file -> a person's review -> the answer Claude Code gets.

The plan text Claude submits is saved under `<home>/plans` with the plan store's contained, atomic
write (the same one `write_plan` uses; a session's later plans overwrite its first file, so the review
shows what changed). A person then reviews it: the terminal review screen in a new tmux window when
Claude runs inside tmux, otherwise the browser review. Whatever the reviewer process reports, the
approval is read back from the ledger: only a recorded approval of exactly the submitted text pins
the session.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from planview.errors import PlanviewError
from planview.textsafe import say

__all__ = [
    "CHANNEL",
    "ReviewOutcome",
    "Reviewer",
    "choose_reviewer",
    "browser_reviewer",
    "plan_title",
    "tmux_reviewer",
]

CHANNEL = "Claude Code"
REVIEWER_ENV = "PLANVIEW_CLAUDE_REVIEW"  # tmux | browser: force one (tests, or a user's preference)
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


class HandoffError(PlanviewError):
    """The review could not be opened; the plan stays unapproved."""


@dataclass(frozen=True)
class ReviewOutcome:
    """What the person decided on a plan Claude submitted ("timeout": nothing in time), with any feedback."""

    decision: Literal["approve", "refine", "keep", "timeout"]
    feedback: str = ""


Reviewer = Callable[[Path, str, float], ReviewOutcome]  # (plan, canonical sha shown, seconds) -> outcome


def plan_title(text: str) -> str:
    match = _H1.search(text)
    return match.group(1).strip() if match else "Claude Code plan"


def _outcome_from_json(text: str) -> ReviewOutcome:
    try:
        data = json.loads(text)
    except ValueError:
        return ReviewOutcome("keep")  # the window was closed before a decision
    if not isinstance(data, dict):
        return ReviewOutcome("keep")
    decision = data.get("decision")
    feedback = data.get("feedback") if isinstance(data.get("feedback"), str) else ""
    if decision in ("approve", "refine", "keep"):
        return ReviewOutcome(decision, feedback or "")
    return ReviewOutcome("keep")


def _session_of_pane(tmux: str, pane: str) -> list[str]:
    """`-t <session>:` for the tmux session Claude's pane is in (new-window takes no pane target)."""
    if not pane:
        return []
    done = subprocess.run(
        [tmux, "display-message", "-p", "-t", pane, "#{session_id}"],
        capture_output=True,
        text=True,
        timeout=15,
        stdin=subprocess.DEVNULL,
    )
    session = done.stdout.strip()
    return ["-t", f"{session}:"] if done.returncode == 0 and session.startswith("$") else []


def tmux_reviewer(plan: Path, shown_sha256: str, seconds: float) -> ReviewOutcome:
    """The terminal review screen in a new tmux window; waits for it to close (or the deadline)."""
    tmux = shutil.which("tmux")
    if tmux is None:
        raise HandoffError("tmux is not installed, so the terminal review cannot open")
    channel = f"planview-review-{uuid.uuid4().hex[:12]}"
    with tempfile.TemporaryDirectory(prefix="planview-review-") as tmp:
        out = Path(tmp) / "decision.json"
        from planview.invocation import planview_command

        review = f"{planview_command()} review {shlex.join([str(plan), '--json', '--channel', CHANNEL])}"
        script = f"{review} > {shlex.quote(str(out))}; {shlex.quote(tmux)} wait-for -S {channel}"
        target = _session_of_pane(tmux, os.environ.get("TMUX_PANE", ""))
        opened = subprocess.run(
            [tmux, "new-window", *target, "-n", "plan review", "sh", "-c", script],
            capture_output=True,
            text=True,
            timeout=15,
            stdin=subprocess.DEVNULL,
        )
        if opened.returncode != 0:
            raise HandoffError(f"tmux could not open the review window: {opened.stderr.strip()[:200]}")
        try:
            subprocess.run(
                [tmux, "wait-for", channel], timeout=seconds, capture_output=True, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired:
            return ReviewOutcome("timeout")
        try:
            return _outcome_from_json(out.read_text(encoding="utf-8"))
        except OSError:
            return ReviewOutcome("keep")


def browser_reviewer(plan: Path, shown_sha256: str, seconds: float) -> ReviewOutcome:
    """The browser review page (with Approve & run), opened in the default browser.

    Claude Code does not show a hook's output while it runs, so a one-time URL for the page also goes
    to stderr and to a file of this review's own under ClaudeState.review_urls (which `planview
    claude status` lists) until the review ends: outside the project and readable by this user
    only, since the page approves the plan. The browser itself is handed a launch file.
    """
    import asyncio

    from planview.atomic import atomic_write
    from planview.claude.state import ClaudeState
    from planview.web.decision import feedback_message
    from planview.web.review import serve_review

    url_file = ClaudeState(plan.parent.parent).new_review_url()

    def announce(url: str) -> None:
        say(f"planview: review the plan at {url}", file=sys.stderr, flush=True)
        try:
            url_file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write(url_file, url + "\n", mode=0o600)
        except OSError:
            pass  # the browser and stderr still have it

    try:
        decision = asyncio.run(
            serve_review(plan, approve=True, channel=CHANNEL, on_url=announce, timeout=seconds, to_model=True)
        )
    finally:
        url_file.unlink(missing_ok=True)
    if decision.outcome == "approved":
        return ReviewOutcome("approve")
    if decision.outcome == "saved":
        return ReviewOutcome("refine", feedback_message(decision.comments))
    return ReviewOutcome("timeout" if decision.reason == "timed out" else "keep")


def choose_reviewer() -> Reviewer:
    forced = os.environ.get(REVIEWER_ENV, "").strip()
    if forced == "tmux" or (not forced and os.environ.get("TMUX") and shutil.which("tmux")):
        return tmux_reviewer
    return browser_reviewer
