"""Starting the browser never holds the review (issue 25.5).

Before: a `BROWSER` command that stayed in the foreground held the review open until it exited
(23 s against an approval at 2 s), and the review's timeout only started after it, so the Claude
hook could miss its deadline. Now the command runs detached in its own session and the timeout
counts from when the page is served.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
from review_link import sign_in

from planview.web import launch
from planview.web.review import serve_review, start_review

pytestmark = pytest.mark.timeout(120)

STAYS = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(40)"


@pytest.fixture
def foreground_browser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A BROWSER command that stays in the foreground for 40 s; yields the file its pid goes to."""
    pid_file = tmp_path / "browser.pid"
    script = tmp_path / "browser.py"
    script.write_text(STAYS)
    monkeypatch.setenv("BROWSER", f"{sys.executable} {script} {pid_file} %s")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    yield pid_file
    if pid_file.exists() and pid_file.read_text().isdigit():
        try:
            os.kill(int(pid_file.read_text()), 9)
        except ProcessLookupError:
            pass


async def test_the_timeout_runs_from_the_url_not_from_the_browser_exiting(plan, home, foreground_browser):
    started = time.monotonic()
    decision = await serve_review(plan, approve=False, home=home, timeout=2.0)
    took = time.monotonic() - started
    assert decision.outcome == "closed" and decision.reason == "timed out"
    assert took < 15, f"the review waited on the browser ({took:.1f} s)"
    for _ in range(50):
        if foreground_browser.exists() and foreground_browser.read_text():
            break
        await asyncio.sleep(0.1)
    os.kill(int(foreground_browser.read_text()), 0)  # still running: detached, not waited on nor killed


async def test_an_approval_is_answered_while_the_browser_stays(plan, home, foreground_browser):
    from planview.web.server import ReviewServer

    answered: list[float] = []
    started = time.monotonic()

    async def approve_soon(server: ReviewServer) -> None:
        import hashlib

        import aiohttp

        await asyncio.sleep(1.0)
        async with aiohttp.ClientSession(headers={"Cookie": await sign_in(server)}) as client:
            base = hashlib.sha256(plan.read_bytes()).hexdigest()
            async with client.post(
                server.origin + "/api/approve", json={"base_sha256": base, "comments": []}
            ) as r:
                assert r.status == 200
        answered.append(time.monotonic())

    server = await start_review(plan, approve=True, home=home)
    try:
        helper = asyncio.create_task(approve_soon(server))
        assert await asyncio.to_thread(launch.open_in_browser, server.launch_file()) is True
        decision = await asyncio.wait_for(server.wait(), 30)
        await helper
    finally:
        await server.stop()
    assert decision.outcome == "approved" and time.monotonic() - started < 15


def test_a_browser_command_that_fails_at_once_says_so(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("BROWSER", "false")
    assert launch.open_in_browser("http://127.0.0.1:1/") is False
    monkeypatch.setenv("BROWSER", str(tmp_path / "no-such-browser"))
    assert launch.open_in_browser("http://127.0.0.1:1/") is False
