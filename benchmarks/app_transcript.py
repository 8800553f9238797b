"""Transcript cost in a long session: 1,000 rows with pruning (the default cap) vs without.

Prints, for each cap: the time to add 1,000 mixed rows (user / tool / assistant Markdown) in one
burst and lay them out, the mounted widget count, the median cost of one scroll step (the
compositor's scroll fast path plus a full render of the visible screen) and of one streaming
update (the newest message grows, which re-lays out the transcript). The no-prune run is the
baseline measured in the same process; ratios are against it. No thresholds: read the figures.

    python benchmarks/app_transcript.py
"""

from __future__ import annotations

import asyncio
import statistics
import time

from textual.app import App, ComposeResult

from planview.tui.widgets.transcript import MAX_ROWS, Transcript

ROWS = 1000
SCROLL_STEPS = 60


class Bench(App):
    def __init__(self, max_rows: int) -> None:
        super().__init__()
        self.max_rows = max_rows

    def compose(self) -> ComposeResult:
        yield Transcript(id="t", max_rows=self.max_rows)


def add_row(t: Transcript, i: int) -> None:
    if i % 3 == 0:
        t.add_user(f"prompt {i}: please look at the parser")
    elif i % 3 == 1:
        t.tool_started(f"c{i}", "read", f"read src/module_{i}.py")
        t.tool_finished(
            f"c{i}",
            "read",
            "\n".join(f"line {n}" for n in range(12)),
            refused=False,
            reason=None,
            error=False,
        )
    else:
        t.append_text(
            f"Reply {i}: the **parser** keeps `state` in one place; see the list:\n\n- one\n- two\n"
        )
        t.end_message()


async def measure(max_rows: int) -> tuple[float, int, float]:
    app = Bench(max_rows)
    async with app.run_test(size=(100, 30)) as pilot:
        t = app.query_one(Transcript)
        screen = app.screen
        compositor = screen._compositor
        start = time.perf_counter()
        for i in range(ROWS):
            add_row(t, i)
        t._flush_pending()
        screen._refresh_layout()
        added = time.perf_counter() - start
        await pilot.pause()
        steps = []
        t.scroll_end(animate=False)
        await pilot.pause()
        for _ in range(SCROLL_STEPS):
            t.scroll_to(y=max(0, t.scroll_y - 3), animate=False, immediate=True)
            begin = time.perf_counter()
            compositor.reflow_visible(screen, screen.outer_size)
            compositor.render_update(full=True)
            steps.append(time.perf_counter() - begin)
        streams = []
        for n in range(SCROLL_STEPS // 3):
            t.append_text(f"streamed line {n}\n\n")
            t._flush_pending()
            row = t._assistant
            begin = time.perf_counter()
            row.flush()
            screen._refresh_layout()
            streams.append(time.perf_counter() - begin)
        return added, len(t.children), statistics.median(steps), statistics.median(streams)


async def main() -> None:
    results = {}
    for cap in (ROWS * 2, MAX_ROWS, 100):
        results[cap] = await measure(cap)
    base_add, _, base_step, base_stream = results[ROWS * 2]
    print(f"{ROWS} transcript rows on a 100x30 screen")
    for cap, (added, mounted, step, stream) in results.items():
        label = "no pruning (baseline)" if cap == ROWS * 2 else f"cap {cap}"
        print(
            f"  {label:<22} add {added:6.2f}s ({added / base_add:4.2f}x)  mounted {mounted:5d}  "
            f"scroll step {step * 1000:6.2f} ms ({step / base_step:4.2f}x)  "
            f"stream update {stream * 1000:6.2f} ms ({stream / base_stream:4.2f}x)"
        )


if __name__ == "__main__":
    asyncio.run(main())
