"""What a command costs when an ACP agent runs it through planview's terminal (terminal/*).

In one run, in a clone of this repository, N times each, interleaved:

- direct: `git status` as a whole process (spawn to exit), the floor;
- bash: `bash -c "git status"`, what any shell tool pays at least;
- execute / plan: the fake ACP agent (tests/agents/fake_agent.py, a separate process speaking ACP over
  stdio to planview's AcpSession) timing terminal/create -> terminal/wait_for_exit of `git status`, as
  the agent sees it: JSON-RPC both ways, planview's checks (plan mode: gate.policy.decide on `bash` and the
  plan-mode git environment, which runs one `git config` lookup), `bash -c` in a new process group, git.

    python benchmarks/acp_terminal.py [--calls 30] [--repeat 3]

Prints the median and minimum per way, the ratio to direct, and the overhead in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from planview.agents.session import build  # noqa: E402

FAKE = ROOT / "tests" / "agents" / "fake_agent.py"


async def direct(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    await proc.communicate()
    return time.perf_counter() - started


async def through_planview(project: Path, calls: int, plan: bool, log: Path) -> list[float]:
    os.environ["FAKE_AGENT_COMMANDS"] = json.dumps([{"command": "git status"}] * calls)
    os.environ["FAKE_AGENT_LOG"] = str(log)
    log.unlink(missing_ok=True)
    command = shlex.join([sys.executable, str(FAKE), "--scenario", "terminal"])
    session = build(command, project_root=project, plan_mode=plan, persist=False)
    try:
        await session.send("run git status")
    finally:
        await session.close()
    records = [json.loads(line) for line in log.read_text().splitlines()]
    steps = [r for r in records if r.get("event") == "terminal"]
    failed = [r for r in steps if r.get("exit") != {"exitCode": 0}]
    if len(steps) != calls or failed:
        raise SystemExit(f"the fake agent's commands did not all run: {failed[:1] or steps[-1:]}")
    return [r["seconds"] for r in steps]


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="acp-terminal-") as tmp:
        project = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(project)], check=True)
        log = Path(tmp) / "agent.jsonl"
        times: dict[str, list[float]] = {"direct": [], "bash": [], "execute": [], "plan": []}
        for _ in range(args.repeat):
            for _ in range(args.calls):
                times["direct"].append(await direct(["git", "status"], project))
                times["bash"].append(await direct(["bash", "-c", "git status"], project))
            times["execute"] += await through_planview(project, args.calls, False, log)
            times["plan"] += await through_planview(project, args.calls, True, log)
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.count("\n")
    print(f"git status in a clone of planview ({files} tracked files), {args.calls} calls x {args.repeat}")
    floor = statistics.median(times["direct"])
    print(f"{'way':<9} {'median ms':>10} {'min ms':>8} {'x direct':>9} {'+ms':>7}")
    for way, values in times.items():
        median = statistics.median(values)
        print(
            f"{way:<9} {median * 1000:>10.1f} {min(values) * 1000:>8.1f} {median / floor:>9.2f}"
            f" {(median - floor) * 1000:>7.1f}"
        )


if __name__ == "__main__":
    asyncio.run(main())
