"""Ledger and approval-check speed: append, verify and is_current against ledger size.

Run: python benchmarks/approval_ledger.py   (prints figures; no thresholds - the machine is shared)
The baseline is a plain sha256 over the same ledger bytes, measured in the same run.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from planview.approval.approvals import Approvals
from planview.approval.ledger import Ledger


def timed(fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def fill(ledger: Ledger, size: int) -> None:
    """Write a valid chain of `size` events directly (appending 10k fsynced events takes minutes)."""
    from planview.approval.ledger_format import GENESIS, canonical_json, sha256_hex, utc_now
    from planview.plan.store import atomic_write

    prev, out = GENESIS, []
    for seq in range(1, size + 1):
        line = canonical_json(
            {
                "type": "rejected",
                "plan": f".planview/plans/q{seq}.md",
                "approver": "bench",
                "at": utc_now(),
                "seq": seq,
                "prev": prev,
            }
        ).encode()
        out.append(line + b"\n")
        prev = sha256_hex(line)
    ledger.path.write_bytes(b"".join(out))
    atomic_write(ledger.head_path, canonical_json({"seq": size, "sha256": prev}) + "\n")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
        subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
        home = root / ".planview"
        (home / "plans").mkdir(parents=True)
        ledger = Ledger(home / "ledger.jsonl")
        start = time.perf_counter()
        appends = 200
        for n in range(appends):
            ledger.append({"type": "rejected", "plan": f".planview/plans/p{n}.md", "approver": "bench"})
        per_append = (time.perf_counter() - start) / appends
        print(f"append (fsync, verify-before-append, 0..{appends} events): {per_append * 1000:.2f} ms each")
        for size in (1_000, 10_000):
            fill(ledger, size)
            ledger = Ledger(ledger.path)  # a fresh process's first check: no cache
            cold = timed(lambda path=ledger.path: Ledger(path).verify(), repeat=3)
            data = ledger.path.read_bytes()
            verify = timed(ledger.verify)
            base = timed(lambda data=data: hashlib.sha256(data).hexdigest())
            plan = home / "plans" / "plan.md"
            plan.write_text("# Plan\n\n## Steps\n- [ ] one\n- [ ] two\n")
            approvals = Approvals(home, root)
            approvals.approve(plan, approver="bench", channel="benchmark")
            check = timed(lambda plan=plan, approvals=approvals: approvals.is_current(plan))
            print(
                f"{size:>6} events ({len(data) / 1e6:.1f} MB): cold verify {cold * 1000:.1f} ms, "
                f"cached verify {verify * 1000:.2f} ms "
                f"(sha256 baseline {base * 1000:.2f} ms, x{verify / base:.0f}); is_current {check * 1000:.1f} ms"
            )


if __name__ == "__main__":
    sys.exit(main())
