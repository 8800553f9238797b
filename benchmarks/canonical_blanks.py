"""Canonical hash and step extraction on hostile plans: runs of blanks before `[`, near the 256 KiB cap.

Run: python benchmarks/canonical_blanks.py [--kib 250] [--repeat 5]

Baseline: `hashlib.sha256` of the same bytes, in the same run. Three shapes of ~250 KB plan:
one line of blanks before an unfinished `[DONE:` (the old DONE_MARKER restarted at every blank:
quadratic), many lines each a run of blanks and a `[`, and a blank run inside a step with a real
marker. Prints in-process times (canonical_sha256 + extract_steps) and, as whole processes,
`planview approve` on the plan against a `python -c` that sha256s the file. Target: approve well
under a second. Exit status 1 when a whole-process approve takes a second or more.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def shapes(size: int) -> dict[str, str]:
    head = "# Plan\n\n## Steps\n\n"
    return {
        "one line of blanks, then [DONE:": head + "- [ ] one" + " " * size + "[DONE:\n",
        "lines of blanks, each then [": head + "- [ ] one\n" + ("\t" * 999 + "[\n") * (size // 1001),
        "blanks before a real marker": head + "- [ ] one" + " \t" * (size // 2) + "[DONE:1]\n- [ ] two\n",
    }


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def whole(cmd: list[str], cwd: Path, repeat: int) -> float:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    env.pop("PLANVIEW_HOME", None)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.decode()}")
    return statistics.median(times)


def main() -> int:
    from planview.plan.canonical import canonical_sha256
    from planview.plan.document import clear_parse_cache
    from planview.plan.markup import strip_inline
    from planview.plan.steps import extract_steps

    def cold(text: str) -> None:  # caches cleared: every run parses from scratch
        clear_parse_cache()
        strip_inline.cache_clear()
        canonical_sha256(text)
        extract_steps(text)

    parser = argparse.ArgumentParser()
    parser.add_argument("--kib", type=int, default=250)
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        plans = root / ".planview" / "plans"
        plans.mkdir(parents=True)
        for n, (name, text) in enumerate(shapes(opts.kib * 1000).items()):
            data = text.encode()
            ours = best(lambda text=text: cold(text), opts.repeat)
            base = best(lambda data=data: hashlib.sha256(data).hexdigest(), opts.repeat)
            plan = plans / f"2026-01-01-000{n}-blanks.md"
            plan.write_bytes(data)
            approve = whole(
                [sys.executable, "-m", "planview", "approve", plan.name, "--as", "bench"], root, opts.repeat
            )
            sha = whole(
                [sys.executable, "-c", f"import hashlib; hashlib.sha256(open({str(plan)!r}, 'rb').read())"],
                root,
                opts.repeat,
            )
            worst = max(worst, approve)
            print(f"{name} ({len(data) / 1000:.0f} KB):")
            print(f"  in process: canonical + steps {ours * 1000:8.1f} ms   sha256 {base * 1000:6.2f} ms")
            print(
                f"  whole process: planview approve {approve * 1000:6.0f} ms   python sha256 {sha * 1000:5.0f} ms"
                f"   ({approve / sha:.1f}x)"
            )
    return 0 if worst < 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
