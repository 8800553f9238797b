"""Review screen paint speed: planview's line-based body against Textual's Markdown widget.

Run: `python benchmarks/review_paint.py` (add `--skip-markdown-10k` to skip the slowest baseline).

Prints, measured in this run on this machine:
1. time to the first full paint of ReviewApp (app start -> body laid out -> screen refreshed) on the
   long sample plan and on a 10,000-line plan, next to an App showing Textual's `Markdown` widget
   with the same text (app start -> every block mounted -> screen refreshed), and the ratio;
2. the time to re-render after a one-section change (the live-reload path) next to a full render of
   the same plan with an empty cache, and the ratio (target: under 10%).

These are in-process layout figures (headless, every parse cold: the document cache is cleared before
each run). What a user waits for in a real terminal is measured by `benchmarks/terminal_paint.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from planview.plan.document import clear_parse_cache, parse_plan, parse_tokens
from planview.tui.review.app import ReviewApp
from planview.tui.review.body import PlanBody
from planview.tui.review.render import SectionRenderer

REPO = Path(__file__).resolve().parent.parent
LONG_SAMPLE = REPO / "plans" / "2026-01-15-0900-billing-platform-migration.md"
SIZE = (120, 40)


def ten_thousand_lines(text: str) -> str:
    """The long sample repeated (headings numbered so every section is distinct) to 10,000 lines."""
    lines: list[str] = []
    copy = 0
    while len(lines) < 10_000:
        copy += 1
        for line in text.split("\n"):
            lines.append(f"{line} (part {copy})" if line.startswith("#") else line)
    return "\n".join(lines[:10_000]) + "\n"


_first_paint: list[float] = []
_render_line = PlanBody.render_line


def _timed_render_line(self: PlanBody, y: int):
    strip = _render_line(self, y)
    if not _first_paint and self.total_lines and y == self.viewport_height - 1:
        _first_paint.append(time.perf_counter())  # the body's last visible row, with plan text in it
    return strip


PlanBody.render_line = _timed_render_line  # type: ignore[method-assign]


async def paint_review(path: Path, home: Path) -> tuple[float, float, int]:
    """(first full paint, everything laid out, rendered lines) in seconds from app start."""
    _first_paint.clear()
    clear_parse_cache()  # a cold parse, as in a fresh process
    start = time.perf_counter()
    app = ReviewApp(path, home=home, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        while not _first_paint:
            await pilot.pause()
        first = _first_paint[0] - start
        while not app.review.body.layout_complete or app.review._loading is not None:
            await pilot.pause()
        await pilot.pause()
        complete = time.perf_counter() - start
        lines = app.review.body.total_lines
    return first, complete, lines


class MarkdownApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Markdown()


async def paint_markdown(text: str) -> float:
    start = time.perf_counter()
    app = MarkdownApp()
    async with app.run_test(size=SIZE) as pilot:
        await app.query_one(Markdown).update(text)
        await pilot.pause()
        elapsed = time.perf_counter() - start
    return elapsed


async def one_section_change(path: Path, home: Path) -> dict[str, float]:
    """Medians of 5, in seconds: the body's re-render after a one-section change and a full render.

    `rerender` / `full`: the body laying out an already parsed document (cached sections except the
    changed one / an empty cache). `reload` / `reload_full`: the whole live-reload path, from reading
    the file (parse, section diff, markers) to every line laid out. The baseline save happens after
    the paint and is in neither.
    """
    text = path.read_text(encoding="utf-8")
    document = parse_plan(text)
    middle = document.sections[len(document.sections) // 2]
    app = ReviewApp(path, home=home, watch=False)
    times: dict[str, list[float]] = {"rerender": [], "full": [], "reload": [], "reload_full": []}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.review
        body = screen.body
        for round_ in range(5):
            lines = list(text.split("\n"))
            lines[middle.end - 1] += f" (edit {round_})"  # the middle section's last line (1-based end)
            edited = parse_plan("\n".join(lines))
            start = time.perf_counter()
            body.show(edited, body.changed, keep="section")
            body.finish_layout()
            times["rerender"].append(time.perf_counter() - start)
            await pilot.pause()

            body.renderer = SectionRenderer()  # an empty cache: every section renders again
            start = time.perf_counter()
            body.show(document, body.changed, keep="section")
            body.finish_layout()
            times["full"].append(time.perf_counter() - start)
            await pilot.pause()

            path.write_text("\n".join(lines) + f"\n<!-- reload {round_} -->", encoding="utf-8")
            start = time.perf_counter()
            screen.reload_from_disk()
            body.finish_layout()
            times["reload"].append(time.perf_counter() - start)
            await pilot.pause()

            body.renderer = SectionRenderer()
            path.write_text(text + f"\n<!-- full {round_} -->\n", encoding="utf-8")
            start = time.perf_counter()
            screen.reload_from_disk()
            body.finish_layout()
            times["reload_full"].append(time.perf_counter() - start)
            await pilot.pause()
    path.write_text(text, encoding="utf-8")
    medians = {key: statistics.median(values) for key, values in times.items()}
    medians["sections"] = len(document.sections)
    return medians


def best(values: list[float]) -> float:
    return min(values)


def parse_share(text: str) -> tuple[float, float, float]:
    """(document parse, the renderer's per-section block parses, a full layout), seconds, best of 3.

    The renderer parses each section again (with table cells and footnotes, which the document parse
    does not split); the block part of that is the most sharing the document's tokens could save.
    """
    from planview.tui.review.markdown_tree import markdown
    from planview.tui.review.render import clean_text
    from planview.tui.review.theme import RenderTheme

    document = parse_plan(text)
    blocks_only = markdown().disable("inline")
    renderer = SectionRenderer()
    theme = RenderTheme()

    def timed(work) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            work()
            times.append(time.perf_counter() - start)
        return min(times)

    def cold_parse() -> None:
        clear_parse_cache()
        parse_tokens(text)

    def layout() -> None:
        renderer.clear()
        for section in document.sections:
            renderer.render(section.text, 100, theme)

    return (
        timed(cold_parse),
        timed(lambda: [blocks_only.parse(clean_text(section.text)) for section in document.sections]),
        timed(layout),
    )


async def main(skip_markdown_10k: bool) -> int:
    if not LONG_SAMPLE.is_file():
        print(f"long sample plan missing: {LONG_SAMPLE}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        folder_path = Path(folder)
        home = folder_path / "home"
        long_path = folder_path / "long.md"
        long_text = LONG_SAMPLE.read_text(encoding="utf-8")
        long_path.write_text(long_text, encoding="utf-8")
        big_path = folder_path / "big.md"
        big_text = ten_thousand_lines(long_text)
        big_path.write_text(big_text, encoding="utf-8")

        print(
            f"Textual {__import__('textual').__version__}, Python {sys.version.split()[0]}, terminal {SIZE[0]}x{SIZE[1]}"
        )
        print()
        print("time from app start (ReviewApp: best of 3; Markdown: 1 run, all blocks mounted and painted)")
        for label, path, text, run_markdown in (
            (f"long sample ({len(long_text.splitlines()):,} lines)", long_path, long_text, True),
            (
                f"10,000-line plan ({len(big_text.splitlines()):,} lines)",
                big_path,
                big_text,
                not skip_markdown_10k,
            ),
        ):
            firsts, completes = [], []
            rendered = 0
            for _ in range(3):
                home_run = folder_path / f"home-{time.monotonic_ns()}"  # no baseline: a first review
                first, complete, rendered = await paint_review(path, home_run)
                firsts.append(first)
                completes.append(complete)
            first, complete = best(firsts), best(completes)
            print(f"  {label}")
            print(f"    ReviewApp first full paint : {first * 1000:8.0f} ms")
            print(f"    ReviewApp all {rendered:,} lines laid out: {complete * 1000:8.0f} ms")
            if run_markdown:
                theirs = await paint_markdown(text)
                print(f"    Markdown widget            : {theirs * 1000:8.0f} ms")
                print(
                    f"    -> first paint {theirs / first:5.1f}x faster; fully laid out {theirs / complete:5.1f}x faster"
                )
            else:
                print("    Markdown widget            : skipped (--skip-markdown-10k)")
        print()
        print("parsing in the layout (best of 3, width 100): the renderer parses each section again")
        for label, text in (("long sample", long_text), ("10,000-line plan", big_text)):
            document_parse, block_parses, layout = parse_share(text)
            print(
                f"  {label}: document parse {document_parse * 1000:.0f} ms; the renderer's block parses "
                f"{block_parses * 1000:.0f} ms of a full layout {layout * 1000:.0f} ms "
                f"({100 * block_parses / layout:.0f} %)"
            )
        print()
        m = await one_section_change(long_path, home)
        print(
            f"re-render after a one-section change (long sample, {m['sections']:.0f} sections, median of 5)"
        )
        print(f"  body, one section changed : {m['rerender'] * 1000:7.1f} ms")
        print(f"  body, full render         : {m['full'] * 1000:7.1f} ms")
        print(
            f"  ratio                     : {100 * m['rerender'] / m['full']:7.1f} % of a full render (target < 10%)"
        )
        print(
            f"  live reload end to end (read, parse, diff, re-render): {m['reload'] * 1000:.1f} ms "
            f"vs {m['reload_full'] * 1000:.1f} ms with an empty cache "
            f"({100 * m['reload'] / m['reload_full']:.1f} %)"
        )
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--skip-markdown-10k", action="store_true", help="skip Markdown on the 10,000-line plan (slow)"
    )
    sys.exit(asyncio.run(main(parser.parse_args().skip_markdown_10k)))
