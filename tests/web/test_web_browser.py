"""The review page in a real browser: Debian's Chromium, headless, driven over the DevTools protocol.

`.ci/run` installs chromium when it is missing, so these run in CI; without it they fail saying how
to install it (never skip). They press real keys and click with a real mouse event.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from cdp import Browser, chromium_path

from planview.web.server import ReviewServer

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(autouse=True)
def _needs_chromium():
    if chromium_path() is None:
        pytest.fail("chromium is not installed: run `apt-get install -y chromium` (.ci/run installs it)")


async def served(plan: Path, home: Path, **kw) -> ReviewServer:
    server = ReviewServer(plan, home=home, **kw)
    await server.start()
    return server


async def open_page(browser: Browser, server: ReviewServer) -> None:
    await browser.navigate(server.link())  # spent for the session cookie, then redirected to /
    await browser.wait_for("document.documentElement.dataset.ready === '1'")


async def test_comment_on_a_block_and_save_writes_the_review_line(plan, home, tmp_path):
    server = await served(plan, home, approve=False)
    shots = Path(os.environ.get("PLANVIEW_SHOTS") or tmp_path)
    try:
        async with Browser(1280, 900) as browser:
            await open_page(browser, server)
            assert await browser.js("document.querySelector('.top h1').textContent") == "Add a cache"
            assert await browser.wait_for(
                "document.querySelector('.chip').textContent.startsWith('Connected')"
            )
            assert await browser.js("document.getElementById('approve')") is None  # comment-only page
            # The first step (a list item spanning two source lines): its + Comment, a real click.
            await browser.click("li.blk .rail .add")
            assert await browser.js("document.activeElement.tagName") == "TEXTAREA"
            await browser.type_text("Name the cache backend")
            await browser.click(".composer .btn.primary")
            assert await browser.js("document.querySelectorAll('.thread .comment').length") == 1
            assert "unsaved" in await browser.js("document.querySelector('.chip').textContent")
            await browser.screenshot(shots / "review-1280.png")
            await browser.resize(420, 900)
            await asyncio.sleep(0.2)
            # Narrow: nothing but wide tables / code may scroll sideways; the page itself does not.
            assert await browser.js("document.documentElement.scrollWidth") <= 420
            await browser.screenshot(shots / "review-420.png")
            await browser.key("s", "KeyS")
            await browser.wait_for("document.body.classList.contains('final')")
            assert await browser.js("document.querySelector('.chip').textContent") == "Saved"
        decision = await asyncio.wait_for(server.wait(), 10)
    finally:
        await server.stop()
    assert decision.outcome == "saved"
    lines = plan.read_text(encoding="utf-8").split("\n")
    at = lines.index("   with a continuation line")
    assert lines[at + 1] == "> [!REVIEW] Name the cache backend"
    for name in ("review-1280.png", "review-420.png"):
        assert (shots / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


async def test_keyboard_comment_then_approve_on_an_approval_page(plan, home):
    seen = []
    server = await served(plan, home, approve=True, on_approve=lambda path, shown: seen.append(shown) or "ok")
    try:
        async with Browser(1280, 900) as browser:
            await open_page(browser, server)
            await browser.wait_for("document.querySelector('.chip').textContent.startsWith('Connected')")
            for _ in range(3):
                await browser.key("j", "KeyJ")
            current = await browser.js("document.querySelector('.blk.current').dataset.b")
            assert current == "2"
            await browser.key("c", "KeyC")
            await browser.type_text("Fine as is")
            await browser.ctrl_enter()
            assert await browser.wait_for("document.querySelectorAll('.thread .comment').length === 1")
            await browser.key("a", "KeyA")
            await browser.wait_for("document.body.classList.contains('final')")
            assert await browser.js("document.querySelector('.chip').textContent") == "Approved"
        decision = await asyncio.wait_for(server.wait(), 10)
    finally:
        await server.stop()
    assert decision.outcome == "approved" and seen == [decision.canonical_sha256]
    assert "> [!REVIEW] Fine as is" in plan.read_text(encoding="utf-8")


async def test_plan_markup_never_runs_and_the_theme_choice_survives_a_reload(home):
    plan = home / "plans" / "2026-01-01-1200-hostile.md"
    plan.write_text(
        "# Hostile <img src=x onerror=window.pwned=1>\n\n<script>window.pwned=2</script>\n\n"
        "[click](javascript:window.pwned=3) and ![pixel](http://127.0.0.1:9/track.png)\n\n"
        "- [x] done item\n- [ ] open item\n",
        encoding="utf-8",
    )
    server = await served(plan, home, approve=False)
    try:
        async with Browser(1280, 900) as browser:
            await open_page(browser, server)
            assert await browser.js("typeof window.pwned") == "undefined"
            assert await browser.js("document.querySelectorAll('main img, main script').length") == 0
            assert "<img" in await browser.js("document.querySelector('.top h1').textContent")
            assert (
                await browser.js("document.querySelectorAll('main a').length") == 0
            )  # javascript: is no link
            assert await browser.js("document.querySelectorAll('.box.done').length") == 1
            await browser.click(".top .icon")
            theme = await browser.js("document.documentElement.dataset.theme")
            assert theme in ("light", "dark")
            await open_page(browser, server)  # a reload: theme.js applies the choice before paint
            assert await browser.js("document.documentElement.dataset.theme") == theme
            await browser.key("Escape", "Escape")
            await browser.wait_for("document.body.classList.contains('final')")
            assert await browser.js("document.querySelector('.chip').textContent") == "Closed"
        decision = await asyncio.wait_for(server.wait(), 10)
    finally:
        await server.stop()
    assert decision.outcome == "closed"
    assert json.loads(json.dumps(decision.reason)) == "Back"


async def test_a_stale_save_offers_reload_and_a_terminal_decision_closes_the_page(plan, home):
    server = await served(plan, home, approve=True, on_approve=lambda path, shown: None)
    try:
        async with Browser(1280, 900) as browser:
            await open_page(browser, server)
            await browser.wait_for("document.querySelector('.chip').textContent.startsWith('Connected')")
            await browser.click("li.blk .rail .add")
            await browser.type_text("lost on reload")
            await browser.click(".composer .btn.primary")
            plan.write_text(
                plan.read_text(encoding="utf-8").replace("Make reads fast.", "Make reads faster.")
            )
            await browser.key("s", "KeyS")
            await browser.wait_for("!!document.querySelector('.banner.conflict button')")
            assert not await browser.js("document.body.classList.contains('final')")
            assert "[!REVIEW]" not in plan.read_text(encoding="utf-8")
            await browser.click(".banner.conflict button")  # Reload
            await browser.wait_for(
                "document.documentElement.dataset.ready === '1' && !document.querySelector('.banner')"
            )
            assert "Make reads faster." in await browser.js("document.querySelector('main').textContent")
            # Esc closes the composer, then the sheet, and only then would close the review.
            await browser.key("c", "KeyC")
            assert await browser.js("!!document.querySelector('.composer')")
            await browser.key("Escape", "Escape")
            assert await browser.js("!document.querySelector('.composer')")
            await browser.key("?", "Slash")
            assert await browser.js("!document.querySelector('.sheet').hidden")
            await browser.key("Escape", "Escape")
            assert await browser.js("document.querySelector('.sheet').hidden")
            assert not await browser.js("document.body.classList.contains('final')")
            server.close("decided in the terminal")  # what the review screen does when it decides first
            await browser.wait_for("document.body.classList.contains('final')")
            assert await browser.js("document.querySelector('.chip').textContent") == "Closed"
            assert "decided in the terminal" in await browser.js(
                "document.querySelector('.banner').textContent"
            )
    finally:
        await server.stop()
    assert (await server.wait()).reason == "decided in the terminal"


async def test_selected_text_is_quoted_counts_follow_sections_and_closing_the_tab_closes_the_review(
    plan, home
):
    server = await served(plan, home, approve=False, close_grace=0.3)
    try:
        async with Browser(1280, 900) as browser:
            await open_page(browser, server)
            await browser.wait_for("document.querySelector('.chip').textContent.startsWith('Connected')")
            # Select "Make reads" in the Goal paragraph, then + Comment on that paragraph.
            await browser.js(
                "(() => { const p = [...document.querySelectorAll('main p')].find(e => e.textContent === 'Make reads fast.');"
                " const r = document.createRange(); r.setStart(p.firstChild, 0); r.setEnd(p.firstChild, 10);"
                " const s = getSelection(); s.removeAllRanges(); s.addRange(r);"
                " p.closest('.blk').querySelector('.rail .add').dataset.target = 'goal'; })()"
            )
            await browser.click(".add[data-target=goal]")
            assert await browser.js("document.querySelector('.composer textarea').value") == "“Make reads” "
            await browser.type_text("how fast?")
            await browser.click(".composer .btn.primary")
            counts = await browser.js(
                "[...document.querySelectorAll('.outline a')].map(a => [a.querySelector('.name').textContent,"
                " a.querySelector('.count').hidden ? 0 : +a.querySelector('.count').textContent])"
            )
            assert ["Goal", 1] in counts and ["Steps", 0] in counts
            # The tab leaves with an unsaved comment: the browser asks first (beforeunload, issue 29);
            # the person says leave, and the event stream closes.
            leaving = asyncio.ensure_future(browser.navigate("about:blank"))
            dialog = await browser.wait_event("Page.javascriptDialogOpening")
            assert dialog["type"] == "beforeunload"
            await browser.send("Page.handleJavaScriptDialog", {"accept": True})
            await leaving
        decision = await asyncio.wait_for(server.wait(), 10)
    finally:
        await server.stop()
    assert decision.outcome == "closed" and "closed" in decision.reason
    assert "[!REVIEW]" not in plan.read_text(encoding="utf-8")  # unsaved comments are not written


async def test_a_comment_is_edited_in_place_and_an_emptied_one_is_deleted(plan, home):
    server = await served(plan, home, approve=False)
    try:
        async with Browser(1280, 900) as browser:
            await open_page(browser, server)
            await browser.click("li.blk .rail .add")
            await browser.type_text("Name the cache")
            await browser.click(".composer .btn.primary")
            # Edit with the mouse: the composer opens holding the comment's text.
            await browser.click(".thread .comment .edit")
            assert await browser.js("document.querySelector('.composer textarea').value") == "Name the cache"
            await browser.type_text(" backend")
            await browser.click(".composer .btn.primary")
            texts = "Array.from(document.querySelectorAll('.thread .comment .text')).map(e => e.textContent)"
            assert await browser.js(texts) == ["Name the cache backend"]
            # A second comment on the next block, then `e` edits that block's newest comment; emptied, it goes.
            await browser.key("j", "KeyJ")
            await browser.key("c", "KeyC")
            await browser.type_text("drop me")
            await browser.ctrl_enter()
            assert await browser.js("document.querySelectorAll('.thread .comment').length") == 2
            await browser.key("e", "KeyE")
            assert await browser.js("document.querySelector('.composer textarea').value") == "drop me"
            await browser.js("document.querySelector('.composer textarea').value = ''")
            await browser.ctrl_enter()
            assert await browser.js(texts) == ["Name the cache backend"]
            await browser.key("s", "KeyS")
            await browser.wait_for("document.body.classList.contains('final')")
        decision = await asyncio.wait_for(server.wait(), 10)
    finally:
        await server.stop()
    assert decision.outcome == "saved"
    text = plan.read_text(encoding="utf-8")
    assert "> [!REVIEW] Name the cache backend" in text
    assert "Name the cache\n" not in text and "drop me" not in text


async def test_deleting_the_comment_being_edited_closes_its_composer(plan, home):
    # QA3: the composer stayed open on a deleted comment, and its "Save comment" then did nothing:
    # the edit was dropped without a word.
    server = await served(plan, home, approve=False)
    try:
        async with Browser(1280, 900) as browser:
            await open_page(browser, server)
            await browser.click("li.blk .rail .add")
            await browser.type_text("first words")
            await browser.click(".composer .btn.primary")
            await browser.click(".thread .comment .edit")
            await browser.type_text(" and more")
            await browser.click(".thread .comment .del")
            assert await browser.js("document.querySelector('.composer') === null")
            assert await browser.js("document.querySelectorAll('.thread .comment').length") == 0
    finally:
        await server.stop()


async def test_e_with_no_block_chosen_edits_the_first_visible_blocks_comment(plan, home):
    """As `c` comments on the first visible block when none is chosen, `e` edits its comment."""
    text = plan.read_text(encoding="utf-8")
    plan.write_text(text.replace("# Add a cache\n", "# Add a cache\n> [!REVIEW] Say which cache\n", 1))
    server = await served(plan, home, approve=False)
    try:
        async with Browser(1280, 900) as browser:
            await open_page(browser, server)
            assert await browser.js("document.querySelectorAll('.thread .comment').length") == 1
            await browser.key("e", "KeyE")
            assert await browser.js("document.querySelector('.composer textarea').value") == "Say which cache"
    finally:
        await server.stop()


async def test_d_shows_the_words_changed_since_the_last_review(plan, home):
    before = plan.read_text(encoding="utf-8")
    plan.write_text(before.replace("Make reads fast.", "Make <b>writes</b> fast."), encoding="utf-8")
    server = await served(plan, home, approve=False, baseline=before)
    try:
        async with Browser(1280, 900) as browser:
            await open_page(browser, server)
            assert await browser.js("document.getElementById('changes').hidden") is True
            await browser.key("d", "KeyD")
            assert await browser.js("document.getElementById('changes').hidden") is False
            dels = await browser.js("[...document.querySelectorAll('#changes del')].map(e => e.textContent)")
            ins = await browser.js("[...document.querySelectorAll('#changes ins')].map(e => e.textContent)")
            assert dels == ["reads"] and ins == ["<b>writes</b>"]
            assert (
                await browser.js("document.querySelectorAll('#changes b').length") == 0
            )  # text, never markup
            assert "§ Goal · changed" in await browser.js("document.querySelector('#changes h3').textContent")
            await browser.click(".diff-toggle")
            assert await browser.js("document.getElementById('changes').hidden") is True
    finally:
        await server.stop()
