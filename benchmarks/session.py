"""The session runtime's overhead per tool call.

Runs a 200-tool-call scripted session and, in the same run, calls the same tool functions
directly with the same arguments. The difference per call is what the runtime adds: the gate,
argument checks, events, request building, the session file and (in execute mode) the hash pin.

    python benchmarks/session.py [--calls 200] [--per-turn 1] [--repeat 3]
    python benchmarks/session.py --growth 100,1000,10000


Two scenarios: plan mode with read-only calls (read, grep, ls, find, todo), and execute mode
pinned to an approved plan with mutating calls (write, edit), where every call re-checks the
approved plan's hash against the ledger first.

`--growth` measures how the per-call cost moves with the session's length: for each size N a whole
process runs one scripted plan-mode session of N `todo` reads (one model request per call, the
cheapest tool, so the time is the runtime's), and reports the mean time per call over its last
200 calls (half of them for a shorter session: the marginal cost at that history length, warm-up
excluded; median of --repeat processes), the ratio to the
smallest size and the process's peak RSS. Target: flat, the largest within 1.3x the smallest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.session.tools.base import ToolContext
from planview.session.tools.registry import REGISTRY

PLAN = "# Bench\n\n## Goal\n\nMeasure.\n\n## Steps\n\n- [ ] Edit the files\n- [ ] Check them\n"


def make_project(root: Path, files: int = 20) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True, env=env)
    (root / "src").mkdir()
    for i in range(files):
        body = "".join(f"def f{i}_{j}(x):\n    return x + {j}\n\n" for j in range(40))
        (root / "src" / f"mod_{i}.py").write_text(body)
    (root / "README.md").write_text("# bench\n")
    subprocess.run(["git", "add", "."], cwd=root, check=True, env=env)
    subprocess.run(
        ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "init"],
        cwd=root,
        check=True,
        env=env,
    )


def read_only_calls(n: int) -> list[tuple[str, dict]]:
    cycle = [
        lambda i: ("read", {"path": f"src/mod_{i % 20}.py"}),
        lambda i: ("grep", {"pattern": f"def f{i % 20}_1\\b", "path": "src"}),
        lambda i: ("ls", {"path": "src"}),
        lambda i: ("find", {"glob": "**/*.py"}),
        lambda i: ("todo", {"action": "read"}),
    ]
    return [cycle[i % len(cycle)](i) for i in range(n)]


def mutating_calls(n: int) -> list[tuple[str, dict]]:
    calls = []
    for i in range(n):
        if i % 2 == 0:
            calls.append(("write", {"path": f"out/file_{i % 10}.txt", "content": f"version {i}\n"}))
        else:
            old, new = (
                ("return x + 1\n", "return x + 1  # edited\n")
                if i % 4 == 1
                else ("return x + 1  # edited\n", "return x + 1\n")
            )
            calls.append(
                (
                    "edit",
                    {
                        "path": "src/mod_0.py",
                        "old_string": f"def f0_1(x):\n    {old}",
                        "new_string": f"def f0_1(x):\n    {new}",
                    },
                )
            )
    return calls


def script(calls: list[tuple[str, dict]], per_turn: int) -> str:
    lines = []
    for start in range(0, len(calls), per_turn):
        chunk = calls[start : start + per_turn]
        lines.append(json.dumps({"tool_calls": [{"name": n, "arguments": a} for n, a in chunk]}))
    return "\n".join(lines)


async def run_direct(session: Session, calls: list[tuple[str, dict]]) -> float:
    ctx = ToolContext(session.project_root, session)
    start = time.perf_counter()
    for name, args in calls:
        await REGISTRY[name].run(ctx, args)
    return time.perf_counter() - start


async def run_session(session: Session, pin: Path | None) -> float:
    failures: list = []
    session.on_event = lambda e: (
        failures.append(e) if getattr(e, "refused", False) or getattr(e, "error", False) else None
    )
    if pin is not None and session.approval is None:
        from planview.plan.canonical import canonical_sha256
        from planview.plan.decision import Approved

        session.approve_reviewed(pin, Approved(str(pin), canonical_sha256(pin.read_text())))
    start = time.perf_counter()
    await session.send("go")
    elapsed = time.perf_counter() - start
    if failures:
        raise SystemExit(f"benchmark calls failed: {failures[:3]}")
    return elapsed


async def scenario(
    name: str, calls: list[tuple[str, dict]], per_turn: int, repeat: int, *, plan_mode: bool, pinned: bool
) -> None:
    direct_times, session_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        make_project(root)
        os.environ.pop("PLANVIEW_HOME", None)
        cwd = os.getcwd()
        os.chdir(root)
        try:
            pin = None
            if pinned:
                from planview.plan.store import PlanStore

                pin = PlanStore.for_cwd(root).write("Bench", PLAN).path

            original = (root / "src" / "mod_0.py").read_bytes()

            def fresh() -> Session:
                # Every run starts from the same files: with an odd number of edit pairs (--calls 30
                # has 15 edits) a run ends with src/mod_0.py edited, and the next run's first edit
                # found no `return x + 1` to replace (the crash of issue 28).
                (root / "src" / "mod_0.py").write_bytes(original)
                return Session(
                    project_root=root,
                    provider=ScriptedProvider.from_text(script(calls, per_turn)),
                    plan_mode=plan_mode,
                    max_model_requests=len(calls) + 10,
                )

            await run_direct(fresh(), calls)  # warm-up: regexes, imports, page cache
            for i in range(repeat):
                # Alternate the order so neither side always runs on a warmer machine.
                if i % 2 == 0:
                    direct_times.append(await run_direct(fresh(), calls))
                    session_times.append(await run_session(fresh(), pin))
                else:
                    session_times.append(await run_session(fresh(), pin))
                    direct_times.append(await run_direct(fresh(), calls))
        finally:
            os.chdir(cwd)
    n = len(calls)
    d, s = statistics.median(direct_times), statistics.median(session_times)
    print(f"\n{name}: {n} tool calls, {per_turn} per model turn, median of {repeat}")
    print(f"  tools called directly : {d * 1000:8.1f} ms  ({d / n * 1e6:7.0f} µs/call)")
    print(f"  through the session   : {s * 1000:8.1f} ms  ({s / n * 1e6:7.0f} µs/call)")
    print(f"  runtime overhead      : {(s - d) / n * 1e6:7.0f} µs/call  (session / direct = {s / d:.2f}x)")


GROWTH_TARGET = 1.3


async def growth_child(n: int) -> None:
    """One session of `n` todo reads; prints the marginal µs per call over the last 10% of calls."""
    stamps: list[float] = []

    class Timed(ScriptedProvider):
        async def stream(self, request):  # type: ignore[no-untyped-def]
            stamps.append(time.perf_counter())
            async for event in super().stream(request):
                yield event

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        make_project(root, files=2)
        os.chdir(root)
        calls = [("todo", {"action": "read"})] * n
        provider = Timed(parse_script(script(calls, 1)))
        session = Session(project_root=root, provider=provider, plan_mode=True, max_model_requests=n + 10)
        await session.send("go")
    tail = min(200, n // 2)  # the marginal cost at this length: the last calls, warm-up excluded
    print(json.dumps({"n": n, "us_per_call": (stamps[n] - stamps[n - tail]) / tail * 1e6}))


def growth(sizes: list[int], repeat: int) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from wholeproc import load_average, measured

    print(f"load average {load_average()}; each size a whole process (bytecode as this run has it)")
    print(f"{'calls':>8} {'µs/call (last 200)':>20} {'x smallest':>11} {'peak RSS MiB':>13}")
    rows = []
    for n in sizes:
        runs = [measured([sys.executable, __file__, "--growth-child", str(n)]) for _ in range(repeat)]
        per_call = statistics.median(
            json.loads(out.strip().splitlines()[-1])["us_per_call"] for out, _ in runs
        )
        rows.append((n, per_call, max(rss for _, rss in runs)))
    base = rows[0][1]
    for n, us, rss in rows:
        print(f"{n:8,} {us:20.0f} {us / base:11.2f} {rss:13.1f}")
    worst = max(us for _, us, _ in rows) / base
    print(f"target: per-call cost flat, largest <= {GROWTH_TARGET}x the smallest: {worst:.2f}x")
    return 0 if worst <= GROWTH_TARGET else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--growth", help="comma-separated session lengths, e.g. 100,1000,10000")
    parser.add_argument("--growth-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument(
        "--per-turn", type=int, default=1, help="tool calls per model turn (1 = a model request per call)"
    )
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if args.growth_child:
        asyncio.run(growth_child(args.growth_child))
        return
    if args.growth:
        raise SystemExit(growth([int(x) for x in args.growth.split(",") if x], args.repeat))
    asyncio.run(
        scenario(
            "plan mode, read-only calls",
            read_only_calls(args.calls),
            args.per_turn,
            args.repeat,
            plan_mode=True,
            pinned=False,
        )
    )
    asyncio.run(
        scenario(
            "execute mode pinned to an approved plan, write/edit calls",
            mutating_calls(args.calls),
            args.per_turn,
            args.repeat,
            plan_mode=False,
            pinned=True,
        )
    )


if __name__ == "__main__":
    main()
