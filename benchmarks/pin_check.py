"""The exact pin's cost per mutating call: the stat fast path against a full check, in one run.

    python benchmarks/pin_check.py [--calls 2000] [--plan-kib 64] [--events 200]

A plan of `--plan-kib` KiB is approved in a ledger that already holds `--events` approvals of other
plans. "full" re-reads the ledger and re-hashes the plan every call (what the pin did before);
"stat" is PinCheck with unchanged stats (two os.stat calls). Prints µs per call and the ratio.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planview.approval.approvals import Approvals
from planview.plan.store import PlanStore
from planview.session.pin import PinCheck


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--plan-kib", type=int, default=64)
    parser.add_argument("--events", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        os.environ["PLANVIEW_HOME"] = str(root / ".planview")
        store = PlanStore.for_cwd(root)
        approvals = Approvals(store.home, root)
        for i in range(args.events):
            other = store.write(f"other {i}", f"# Other {i}\n\n## Steps\n\n- [ ] step {i}\n").path
            approvals.approve(other, "bench", channel="benchmark")
        body = "".join(f"- [ ] step {i} of a long plan, with some words\n" for i in range(args.plan_kib * 20))
        plan = store.write("Big", f"# Big\n\n## Goal\n\nMeasure.\n\n## Steps\n\n{body}").path
        record = approvals.approve(plan, "bench", channel="benchmark")

        t0 = time.perf_counter()
        for _ in range(args.calls):
            assert approvals.status(plan).record.seq == record.seq
        full = (time.perf_counter() - t0) / args.calls

        check = PinCheck(approvals)
        assert check.check(plan, record) is None
        t0 = time.perf_counter()
        for _ in range(args.calls):
            assert check.check(plan, record) is None
        fast = (time.perf_counter() - t0) / args.calls
    print(f"plan ~{args.plan_kib} KiB, ledger {args.events + 1} events, {args.calls} checks each")
    print(f"full check (ledger read + plan re-hash): {full * 1e6:9.1f} µs/call")
    print(f"stat fast path (PinCheck, unchanged):    {fast * 1e6:9.1f} µs/call")
    print(f"ratio full/fast: {full / fast:.0f}x")


if __name__ == "__main__":
    main()
