"""Plan parsing speed: parse + sections + steps, next to markdown-it-py's bare parse of the same text.

Run: python benchmarks/parse.py [--repeat N]

For each text (the long sample plan, and a synthetic 10,000-line plan) it times, in the
same run and interleaved so machine noise hits both alike:
- bare:  MarkdownIt("commonmark").parse(text)      (the baseline)
- ours:  parse_plan(text).sections + extract_steps(text), caches cleared before every run
and prints best and median times and the ratio ours / bare (target: at most 2x).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from markdown_it import MarkdownIt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from planview.plan.document import clear_parse_cache, parse_plan  # noqa: E402
from planview.plan.markup import strip_inline  # noqa: E402
from planview.plan.steps import extract_steps  # noqa: E402

LONG_SAMPLE = REPO / "plans" / "2026-01-15-0900-billing-platform-migration.md"


def synthetic_plan(target_lines: int = 10_000) -> str:
    """A plan in the canonical outline with tables, fences, nested lists, growing to `target_lines`."""
    out = [
        "# Synthetic migration plan",
        "",
        "## Goal",
        "",
        "Move every `user_id` lookup to the new service.",
        "",
    ]
    out += ["## Context", ""]
    phase = 0
    while len(out) < target_lines - 90:
        phase += 1
        out += [f"### Phase {phase}: move module_{phase}.py", ""]
        out += [
            f"Phase {phase} moves **module_{phase}.py** and its callers; see [the runbook](docs/run_{phase}.md).",
            "It keeps the old path readable until the cut-over, *then* removes it.",
            "",
            "| File | Owner | Risk |",
            "|------|-------|------|",
            f"| `src/module_{phase}.py` | billing | low |",
            f"| `tests/test_module_{phase}.py` | billing | medium |",
            "",
            "```python",
            f"def migrate_{phase}(rows):",
            "    # headings in fences are not headings",
            "    # ## not a section",
            "    return [row for row in rows if row.user_id]",
            "```",
            "",
            f"- Review the call sites of `module_{phase}`",
            "  - grep for the import",
            "  - list the owners",
            "- Write the shim",
            "",
        ]
    out += ["## Steps", ""]
    for i in range(1, 31):
        box = "x" if i % 3 == 0 else " "
        pad = " " * (len(str(i)) + 2)  # nested under the item's content column
        out += [
            f"{i}. [{box}] Migrate **module_{i}.py** and update `user_id` callers",
            f"{pad}- keep the old path",
        ]
    out += ["", "## Risks", "", "- Rollback takes a deploy.", "", "## Verification", "", "Run the suite."]
    while len(out) < target_lines:
        out.append(f"Verification note {len(out)}: compare totals with `report_{len(out)}.csv`.")
    return "\n".join(out[:target_lines]) + "\n"


def ours(text: str) -> tuple[int, int]:
    clear_parse_cache()
    strip_inline.cache_clear()
    sections = parse_plan(text).sections
    steps = extract_steps(text).steps
    return len(sections), len(steps)


def measure(label: str, text: str, repeat: int) -> float:
    bare_md = MarkdownIt("commonmark")
    bare_md.parse(text)  # warm both code paths once
    shape = ours(text)
    bare_times: list[float] = []
    our_times: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        bare_md.parse(text)
        bare_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        ours(text)
        our_times.append(time.perf_counter() - start)
    best_ratio = min(our_times) / min(bare_times)
    median_ratio = statistics.median(our_times) / statistics.median(bare_times)
    lines = text.count("\n")
    print(f"{label}: {lines:,} lines, {len(text):,} chars, {shape[0]} sections, {shape[1]} steps")
    print(
        f"  bare markdown-it parse   best {min(bare_times) * 1000:8.1f} ms   median {statistics.median(bare_times) * 1000:8.1f} ms"
    )
    print(
        f"  parse+sections+steps     best {min(our_times) * 1000:8.1f} ms   median {statistics.median(our_times) * 1000:8.1f} ms"
    )
    verdict = "ok" if median_ratio <= 2.0 else "OVER TARGET"
    print(
        f"  ratio ours/bare          best {best_ratio:8.2f} x    median {median_ratio:8.2f} x   (target <= 2x: {verdict})"
    )
    return median_ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    if LONG_SAMPLE.is_file():
        long_label, long_text = (
            LONG_SAMPLE.relative_to(REPO).as_posix(),
            LONG_SAMPLE.read_text(encoding="utf-8"),
        )
    else:
        long_label, long_text = "generated 1,600-line plan (long sample not found)", synthetic_plan(1_600)
    ratios = [
        measure(long_label, long_text, args.repeat),
        measure("synthetic 10,000-line plan", synthetic_plan(10_000), args.repeat),
    ]
    return 0 if max(ratios) <= 2.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
