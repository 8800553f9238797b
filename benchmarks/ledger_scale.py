"""`planview approve` and `planview status` as whole processes: a 10,000-event ledger vs an empty one.

Run: python benchmarks/ledger_scale.py [--events 10000] [--repeat 9]

Two throwaway git projects, one with an empty ledger and one whose ledger already holds
`--events` events (written directly as a valid chain, then one real append so the head is in
the format this planview writes). Each round approves a fresh plan in both projects and asks
`status` for it, alternating which project goes first; medians are compared. Target: the big
ledger costs at most 1.2x the empty one (verification starts from ledger.head instead of
re-reading every event). Exit status 1 when over.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 1.2


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
        "PLANVIEW_HOME": "",
    }


def make_project(root: Path, events: int) -> Path:
    from planview.approval.ledger import Ledger
    from planview.approval.ledger_format import GENESIS, canonical_json, sha256_hex

    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=_env())
    home = root / ".planview"
    (home / "plans").mkdir(parents=True)
    (home / ".gitignore").write_text("*\n")
    ledger = Ledger(home / "ledger.jsonl")
    if events:
        prev, out = GENESIS, []
        for seq in range(1, events):
            kind = "approved" if seq % 3 else "revoked"
            record = {
                "type": kind,
                "plan": f".planview/plans/old-{seq % 500}.md",
                "approver": "bench <bench@example.com>",
                "at": "2026-01-01T00:00:00Z",
                "seq": seq,
                "prev": prev,
            }
            if kind == "approved":
                record.update(
                    canonical_sha256="a" * 64,
                    file_sha256="b" * 64,
                    artifact="artifact:00000000-0000-0000-0000-000000000000",
                    bytes=100,
                    commit=None,
                    packet_sha256="c" * 64,
                )
            else:
                record.update(reason="changed", changed_sections=["Steps"], revokes=seq - 1)
            line = canonical_json(record).encode()
            out.append(line + b"\n")
            prev = sha256_hex(line)
        ledger.path.write_bytes(b"".join(out))
        ledger.head_path.write_text(canonical_json({"seq": events - 1, "sha256": prev}) + "\n")
        ledger.append({"type": "rejected", "plan": ".planview/plans/old-0.md", "approver": "bench"})
        assert len(ledger.events()) == events
    return root


def run(root: Path, *args: str) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "planview", *args], cwd=root, env=_env(), capture_output=True, check=False
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"planview {' '.join(args)} failed in {root}: {done.stderr.decode()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=9)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        empty = make_project(Path(tmp) / "empty", 0)
        big = make_project(Path(tmp) / "big", opts.events)
        size = (big / ".planview" / "ledger.jsonl").stat().st_size
        times: dict[tuple[str, str], list[float]] = {}
        for n in range(opts.repeat + 1):
            order = [("empty", empty), ("big", big)]
            if n % 2:
                order.reverse()
            for name, root in order:
                plan = root / ".planview" / "plans" / f"2026-01-01-0000-p{n}.md"
                plan.write_text(f"# Plan {n}\n\n## Steps\n- [ ] step {n}\n")
                approve = run(root, "approve", plan.name, "--as", "bench")
                status = run(root, "status", plan.name)
                if n:  # the first round warms the caches
                    times.setdefault((name, "approve"), []).append(approve)
                    times.setdefault((name, "status"), []).append(status)
        print(
            f"ledger with {opts.events:,} events: {size / 1e6:.1f} MB; median of {opts.repeat} whole processes"
        )
        worst = 0.0
        for command in ("approve", "status"):
            a = statistics.median(times[("empty", command)])
            b = statistics.median(times[("big", command)])
            worst = max(worst, b / a)
            print(
                f"  planview {command:<8} empty {a * 1000:7.1f} ms   {opts.events:,} events {b * 1000:7.1f} ms   "
                f"ratio {b / a:.2f}x (target <= {TARGET}x)"
            )
        return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
