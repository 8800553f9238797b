"""Browser review: time from `w` on the review screen to a painted page, and the page's weight.

    python benchmarks/web_paint.py [--repeat N] [--shots DIR]

For each sample plan it runs the real review screen (Textual, headless) and presses `w`; the
screen starts the loopback server and "opens the browser", which here tells an already-running
headless Chromium (Debian's, over the DevTools protocol) to load the launch file it is handed (a
private file redirecting to a one-time URL) — a reviewer's browser is usually running already. The end point is the page's own first-contentful-paint entry, taken
after client.js built the document (`data-ready`), converted to wall-clock time with
`performance.timeOrigin`. Baseline, same run, same browser: the very same bytes (HTML + scripts)
served by a bare aiohttp server that was already listening, so the ratio is what planview adds
(server start, reading and modelling the plan, highlighting) on top of what the browser needs
anyway. Page weight: the HTML (with its inline CSS and JSON data island) plus theme.js and
client.js, uncompressed (it is served on loopback).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "web"))

from aiohttp import web  # noqa: E402
from cdp import Browser  # noqa: E402

PLANS = (
    REPO / "plans" / "2026-01-14-1030-add-rate-limiting.md",
    REPO / "plans" / "2026-01-15-0900-billing-platform-migration.md",
)
PAINTED = (
    "(() => { const d = document.documentElement;"
    " if (location.href !== %s || !d || d.dataset.ready !== '1') return null;"
    " const p = performance.getEntriesByName('first-contentful-paint')[0];"
    " return p ? performance.timeOrigin + p.startTime : null; })()"
)


WEIGH = "Promise.all(['/', '/theme.js', '/client.js'].map(n => fetch(n).then(r => r.text())))"


async def weigh(browser: Browser) -> tuple[int, dict[str, bytes]]:
    """The page's bytes, fetched by the browser that holds the review's session cookie."""
    texts = await browser.js(WEIGH)
    bodies = {
        name: text.encode("utf-8") for name, text in zip(("/", "/theme.js", "/client.js"), texts, strict=True)
    }
    return sum(len(b) for b in bodies.values()), bodies


async def press_w_to_paint(
    browser: Browser, plan: Path, home: Path
) -> tuple[float, float, int, dict[str, bytes]]:
    """(ms from `w` to the URL, ms from `w` to first contentful paint, page bytes, the bodies)."""
    import re

    from planview.tui.review.app import ReviewApp
    from planview.web import launch

    asked: list[tuple[Path, float]] = []

    def open_in_browser(target: Path) -> bool:
        asked.append((target, time.time()))
        return True

    launch.open_in_browser = open_in_browser
    app = ReviewApp(plan, home=home, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        t_w = time.time()
        await pilot.press("w")
        while not asked:
            await asyncio.sleep(0.001)
        target, t_url = asked[0]
        found = re.search(r'url=(http://[^/"]+)/', target.read_text(encoding="utf-8"))
        assert found is not None, "the launch file names no page"
        url = found.group(1) + "/"  # where the one-time link redirects
        await browser.send("Page.navigate", {"url": target.as_uri()})
        painted = None
        while painted is None:
            painted = await browser.js(PAINTED % json.dumps(url))
            if painted is None:
                await asyncio.sleep(0.005)
        weight, bodies = await weigh(browser)
        await pilot.press("escape")
    return (t_url - t_w) * 1000, painted - t_w * 1000, weight, bodies


async def static_paint(browser: Browser, bodies: dict[str, bytes]) -> float:
    """ms from navigation to first paint for the same bytes from a server already listening."""

    def handler(name: str, kind: str):
        async def serve(request: web.Request) -> web.Response:
            return web.Response(body=bodies[name], content_type=kind)

        return serve

    app = web.Application()
    app.router.add_get("/", handler("/", "text/html"))
    app.router.add_get("/theme.js", handler("/theme.js", "text/javascript"))
    app.router.add_get("/client.js", handler("/client.js", "text/javascript"))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        url = f"http://127.0.0.1:{port}/"
        t0 = time.time()
        await browser.send("Page.navigate", {"url": url})
        painted = None
        while painted is None:
            painted = await browser.js(PAINTED % json.dumps(url))
            if painted is None:
                await asyncio.sleep(0.005)
        return painted - t0 * 1000
    finally:
        await runner.cleanup()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--shots", type=Path, help="also save 1280 px and 420 px screenshots here")
    args = parser.parse_args()
    import tempfile

    home = Path(tempfile.mkdtemp(prefix="planview-bench-"))
    print(f"{'plan':46} {'w→URL':>8} {'w→paint':>9} {'static':>8} {'ratio':>6} {'weight':>10}")
    async with Browser(1280, 900) as browser:
        for plan in PLANS:
            urls, paints, statics, weights = [], [], [], []
            for _ in range(args.repeat):
                to_url, to_paint, weight, bodies = await press_w_to_paint(browser, plan, home)
                urls.append(to_url)
                paints.append(to_paint)
                weights.append(weight)
                statics.append(await static_paint(browser, bodies))
            lines = plan.read_text(encoding="utf-8").count("\n")
            label = f"{plan.name[:34]} ({lines:,} lines)"
            paint, static = statistics.median(paints), statistics.median(statics)
            print(
                f"{label:46} {statistics.median(urls):6.0f}ms {paint:7.0f}ms {static:6.0f}ms "
                f"{paint / static:5.2f}x {weights[0] / 1024:8.1f}KiB"
            )
            html, theme, client = (len(bodies[k]) for k in ("/", "/theme.js", "/client.js"))
            print(
                f"{'':46} html {html / 1024:.1f} KiB + theme.js {theme} B + client.js {client / 1024:.1f} KiB"
            )
            if args.shots:
                for width in (1280, 420):
                    await browser.resize(width, 900)
                    await browser.send("Page.reload", {})
                    await asyncio.sleep(0.6)
                    await browser.screenshot(args.shots / f"{plan.stem}-{width}.png")
                await browser.resize(1280, 900)
    print(f"median of {args.repeat}; headless Chromium already running, a fresh navigation per run")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
