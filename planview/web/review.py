"""`serve_review`: review one plan in the browser and return the page's decision.

The Python API every entry point uses (`planview review --web`, the app, the Claude Code hook):

    decision = asyncio.run(serve_review(plan, approve=True, channel="browser review",
                                        open_browser=False, on_url=print))
    decision.outcome   # "approved" | "saved" | "closed"

It serves the page until it settles, in the running loop. On an approval page the page's
**Approve & run** is recorded through `record_approval` (the seam the one approval flow plugs
into) unless the caller passes its own `on_approve` — the terminal review does, so that its own
flow records the decision and the two never decide twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planview.errors import PlanviewError
from planview.home import planview_home
from planview.plan.reviews import ReviewBaselines
from planview.plan.store import read_plan_text
from planview.web import launch
from planview.web.decision import WebDecision
from planview.web.server import ApproveHook, ReviewServer

BROWSER_CHANNEL = "browser review"
_STORED = object()  # baseline: what the previous review of this plan showed (the default)


def record_approval(
    home: Path,
    plan: Path,
    canonical_sha256: str,
    *,
    channel: str = BROWSER_CHANNEL,
    approver: str | None = None,
) -> Any:
    """Approve exactly the text shown (re-checked against `canonical_sha256`) and record `channel`.

    Through the one approval flow (planview.approval.flow), like every other channel.
    """
    from planview.approval.approvals import Approvals
    from planview.approval.flow import approve

    return approve(
        Approvals(home), plan, channel=channel, approver=approver, shown_sha256=canonical_sha256
    ).record


def _home_for(plan: Path) -> Path | None:
    try:
        return planview_home(plan.parent if plan.parent.is_dir() else None)
    except (OSError, PlanviewError):
        return None  # no baseline, no remembered port, no approvals: the page still works


async def start_review(
    plan_path: str | Path,
    *,
    approve: bool,
    channel: str = BROWSER_CHANNEL,
    home: Path | None = None,
    on_approve: ApproveHook | None = None,
    approver: str | None = None,
    baseline: Any = _STORED,
    to_model: bool = False,
) -> ReviewServer:
    """Start (but do not wait on) a review server for the plan; the caller stops it.

    `to_model`: the caller hands saved comments to a model (so the page says so after a save)."""
    plan = Path(plan_path).expanduser().resolve()
    read_plan_text(plan)  # a missing or unreadable plan is a typed error before any port is bound
    home = home if home is not None else _home_for(plan)
    baselines = ReviewBaselines(home) if home is not None else None
    if baseline is _STORED:
        baseline = baselines.load(plan) if baselines is not None else None
    if approve and on_approve is None:
        if home is None:
            raise PlanviewError("no planview home to record an approval in; run from a project")

        def on_approve(path: Path, sha: str) -> Any:
            return record_approval(home, path, sha, channel=channel, approver=approver)

    server = ReviewServer(
        plan, approve=approve, on_approve=on_approve, home=home, baseline=baseline, to_model=to_model
    )
    await server.start()
    if baselines is not None:
        try:
            baselines.save(plan, read_plan_text(plan))  # this review is the next one's baseline
        except (OSError, PlanviewError):
            pass
    return server


async def serve_review(
    plan_path: str | Path,
    *,
    approve: bool,
    channel: str = BROWSER_CHANNEL,
    home: Path | None = None,
    open_browser: bool = True,
    on_url: Callable[[str], Any] | None = None,
    on_approve: ApproveHook | None = None,
    approver: str | None = None,
    timeout: float | None = None,
    to_model: bool = False,
) -> WebDecision:
    """Serve the review page for `plan_path` until it settles, then release the port.

    `on_url` receives a one-time URL for the page (its first load becomes that browser's session)
    as soon as it is served; the browser is handed a launch file instead (server.launch_file).
    `timeout` closes an unanswered review that many seconds after the page was served (outcome
    "closed", reason "timed out"); starting the browser never eats into it.
    """
    server = await start_review(
        plan_path,
        approve=approve,
        channel=channel,
        home=home,
        on_approve=on_approve,
        approver=approver,
        to_model=to_model,
    )
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout  # from when the page is served
    try:
        if on_url is not None:
            on_url(server.link())
        if open_browser:
            await asyncio.to_thread(launch.open_in_browser, server.launch_file())
        try:
            left = None if deadline is None else max(0.0, deadline - loop.time())
            return await asyncio.wait_for(server.wait(), left)
        except TimeoutError:
            server.close("timed out")
            return await server.wait()
    finally:
        await server.stop()
