"""The browser review the terminal review opens with `w`: serve the plan's page, wait for its answer.

planview.web (the page and its server) is imported only when `w` is pressed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from planview.errors import PlanviewError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.decision import ReviewDecision
    from planview.web.decision import WebDecision
    from planview.web.server import ReviewServer


async def serve_page(
    plan_path: Path,
    *,
    approve: bool,
    home: Path | None,
    baseline: str | None,
    on_open: Callable[[ReviewServer | None], object],
    notice: Callable[[str], object],
) -> WebDecision | None:
    """Serve `plan_path`'s page in a browser until it answers; None when it could not start.

    `on_open` gets the server while it runs (then None); `notice` tells the reader what happens.
    The page's approve does not record: the flow that opened the review records the Approved the
    review returns (`terminal_decision`). It first checks that the recording can happen, so the
    page refuses (and takes its comments back out) instead of saying approved for a torn ledger
    or a read-only home; what fails later still puts the plan back (approval.flow.record_decision)."""
    from planview.web import launch
    from planview.web.review import start_review

    def can_record(path: Path, canonical_sha256: str) -> None:
        if home is not None:
            from planview.approval.approvals import Approvals

            Approvals(home).check_recordable(path, canonical_sha256)

    try:
        server = await start_review(
            plan_path, approve=approve, home=home, on_approve=can_record, baseline=baseline
        )
    except PlanviewError as exc:
        notice(f"Could not start the browser review: {exc}")
        return None
    on_open(server)
    try:
        if not await asyncio.to_thread(launch.open_in_browser, server.launch_file()):
            notice(f"No browser could be opened; open {server.link()} yourself (it works once)")
        else:
            notice("Reviewing in the browser (decide there or here)")
        return await server.wait()
    finally:
        on_open(None)
        await server.stop()


def terminal_decision(plan_path: Path, page: WebDecision) -> ReviewDecision | None:
    """The page's answer as the terminal review's decision; None when the page closed without one."""
    from planview.plan.decision import Approved, Refine
    from planview.web.decision import feedback_message
    from planview.web.review import BROWSER_CHANNEL

    if page.outcome == "approved" and page.canonical_sha256 is not None:
        # The page's comments are in the file now; the flow that records this approval takes
        # them back out if it cannot (approval.flow.record_decision), as the page's route does.
        return Approved(plan_path, page.canonical_sha256, channel=BROWSER_CHANNEL, saved=page.saved)
    if page.outcome == "saved":
        return Refine(feedback_message(page.comments))
    return None
