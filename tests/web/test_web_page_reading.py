"""The browser page reads a real-sized plan well (issue 29): front matter folded to one line, the
Steps counter only for the Steps section's checkboxes, no sideways scroll from 320 px up, the words
after a save true to where comments go, and a warning before closing with unsaved comments."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from cdp import Browser, chromium_path

from planview.web.server import ReviewServer

pytestmark = pytest.mark.timeout(240)

FRONT = "---\n" + "".join(f"field_{i}: value {i}\n" for i in range(61)) + "---\n\n"
PLAN = FRONT + (
    "# Long lines\n\n## Context\n\nRun `planview_some_really_long_module_name.with_an_attribute_chain_that_"
    "never_breaks_anywhere_at_all()` then read https://example.com/a/very/long/path/that/has/no/spaces/"
    "anywhere/in/it/at/all/really.\n\n## Steps\n\n- First plain step\n- Second plain step\n"
)


@pytest.fixture(autouse=True)
def _needs_chromium():
    if chromium_path() is None:
        pytest.fail("chromium is not installed: run `apt-get install -y chromium` (.ci/run installs it)")


async def _open(browser: Browser, server: ReviewServer) -> None:
    await browser.navigate(server.link())
    await browser.wait_for("document.documentElement.dataset.ready === '1'")


async def test_front_matter_folds_no_counter_and_no_sideways_scroll(home, tmp_path):
    plan = home / "plans" / "2026-01-01-1200-long-lines.md"
    plan.write_text(PLAN, encoding="utf-8")
    shots = Path(os.environ.get("PLANVIEW_SHOTS") or tmp_path)
    server = ReviewServer(plan, home=home, approve=False)
    await server.start()
    try:
        async with Browser(1280, 900) as browser:
            await _open(browser, server)
            summary = "document.querySelector('main details.front > summary')"
            assert await browser.js(f"{summary}.textContent") == "Front matter · 61 lines"
            assert await browser.js("document.querySelector('main details.front').open") is False
            # Folded: the title is on the first screen, not 61 lines down.
            assert await browser.js("document.querySelector('main h1').getBoundingClientRect().top") < 300
            assert (
                await browser.js("document.querySelectorAll('.fact.steps').length") == 0
            )  # no boxes, no counter
            await browser.screenshot(shots / "reading-1280.png")
            await browser.click("main details.front > summary")
            assert await browser.js("document.querySelector('main details.front').open") is True
            assert "field_60: value 60" in await browser.js(
                "document.querySelector('main details.front pre').innerText"
            )
            await browser.click("main details.front > summary")
            for width in (320, 420):
                await browser.resize(width, 900)
                await asyncio.sleep(0.2)
                assert await browser.js("document.documentElement.scrollWidth") <= width, width
                await browser.screenshot(shots / f"reading-{width}.png")
    finally:
        await server.stop()


@pytest.mark.parametrize("to_model", [False, True])
async def test_the_saved_message_says_where_comments_go_and_unsaved_ones_warn(plan, home, to_model):
    server = ReviewServer(plan, home=home, approve=False, to_model=to_model)
    await server.start()
    try:
        async with Browser(1280, 900) as browser:
            await _open(browser, server)
            beforeunload = (
                "(() => { const e = new Event('beforeunload', {cancelable: true}); window.dispatchEvent(e);"
                " return e.defaultPrevented; })()"
            )
            assert await browser.js(beforeunload) is False  # nothing to lose: no question
            await browser.click("li.blk .rail .add")
            await browser.type_text("Name the cache backend")
            assert await browser.js(beforeunload) is True  # a comment being written
            await browser.click(".composer .btn.primary")
            assert await browser.js(beforeunload) is True  # added, not saved
            await browser.key("s", "KeyS")
            await browser.wait_for("document.body.classList.contains('final')")
            assert await browser.js(beforeunload) is False  # saved: closing loses nothing
            words = await browser.js("document.querySelector('.banner').textContent")
        await asyncio.wait_for(server.wait(), 10)
    finally:
        await server.stop()
    assert "saved into the plan file" in words
    assert ("to the model" in words) is to_model
