"""How fast an executing agent that never asks permission is stopped when its approved plan changes.

    python benchmarks/agent_revocation.py [--repeat 5]

Each round runs the SDK fake agent's `build-loop` scenario (tests/agents/fake_agent.py: opencode-
style, it writes work files with its own tools every 20 ms and never asks) through planview for
real: it plans under the agent sandbox, the plan is approved, a new process without the sandbox
carries it out, then the round edits the plan file and measures, from the edit:

- revoked: until the session has recorded the revocation (ModeChanged back to plan);
- sandboxed: until the agent runs again as a new process under the agent profile;
- writes after: work files that appeared after the edit (what slipped through).

Baseline, same run: starting the same fake agent unsandboxed and initializing it (what any restart
costs). The target (issue 23) is sandboxed ≤ 1 s. Needs Landlock; prints min / median.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FAKE = REPO / "tests" / "agents" / "fake_agent.py"


class UI:
    async def review(self, request):  # approve what is shown
        from planview.plan.canonical import canonical_sha256
        from planview.plan.decision import Approved

        return Approved(request.plan_path, canonical_sha256(request.text))

    async def confirm(self, title, message):
        return True


def project(base: Path) -> Path:
    root = base / "project"
    root.mkdir()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "commit", "-q", "--allow-empty", "-m", "init"]):
        subprocess.run(
            argv,
            cwd=root,
            env={
                **env,
                "GIT_AUTHOR_NAME": "a",
                "GIT_AUTHOR_EMAIL": "a@b",
                "GIT_COMMITTER_NAME": "a",
                "GIT_COMMITTER_EMAIL": "a@b",
            },
            check=True,
            capture_output=True,
        )
    return root


async def until(check, cap: float = 120.0) -> float:
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > cap:
            raise TimeoutError("timed out")
        await asyncio.sleep(0.002)
    return time.monotonic() - start


async def one_round() -> tuple[float, float, int]:
    from planview.agents.session import build
    from planview.session import events as ev

    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        os.chdir(root)
        notes: list[tuple[float, str]] = []

        def on_event(event):
            if isinstance(event, ev.ModeChanged):
                notes.append((time.monotonic(), event.note or ""))

        command = shlex.join([sys.executable, str(FAKE), "--scenario", "build-loop"])
        session = build(command, project_root=root, on_event=on_event, plan_mode=True, ui=UI())
        turn = asyncio.ensure_future(session.send("plan it, then build it"))
        try:
            await until(lambda: len(list(root.glob("work-*.txt"))) >= 3)
            plan = session.plan_path
            text = plan.read_text().replace("Say hello.", "Say goodbye.")
            before = len(list(root.glob("work-*.txt")))
            edited = time.monotonic()
            plan.write_text(text)
            sandboxed = await until(lambda: session.agent.sandboxed, cap=60.0)
            revoked = next(t for t, n in notes if "changed after approval" in n) - edited
            await asyncio.wait_for(turn, 60)
            after = len(list(root.glob("work-*.txt"))) - before
        finally:
            if not turn.done():
                turn.cancel()
            await session.close()
            os.chdir(REPO)
    return revoked, sandboxed, after


async def baseline() -> float:
    from planview.agents.connection import AgentConnection
    from planview.agents.profiles import resolve_agent

    class Handler:
        def __getattr__(self, name):
            raise AttributeError(name)

    from planview.agents.client import PlanviewClient

    with tempfile.TemporaryDirectory() as tmp:
        profile = resolve_agent(shlex.join([sys.executable, str(FAKE), "--scenario", "build-loop"]))
        conn = AgentConnection(profile, Path(tmp), Path(tmp) / "err.log", PlanviewClient(Handler(), set()))
        start = time.monotonic()
        await conn.start()
        took = time.monotonic() - start
        await conn.close()
    return took


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from planview.sandbox.status import current

    if not current().enforcing:
        print(f"needs Landlock: {current().summary()}")
        return 1
    revoked, sandboxed, slipped, starts = [], [], [], []
    for _ in range(args.repeat):
        starts.append(asyncio.run(baseline()))
        r, s, n = asyncio.run(one_round())
        revoked.append(r)
        sandboxed.append(s)
        slipped.append(n)

    def ms(values):
        return f"min {min(values) * 1000:7.1f} ms  median {statistics.median(values) * 1000:7.1f} ms"

    print(f"load average {os.getloadavg()[0]:.2f}; {args.repeat} rounds")
    print(f"baseline: unsandboxed agent start + initialize   {ms(starts)}")
    print(f"plan edit -> revoked (back to plan mode)         {ms(revoked)}")
    print(f"plan edit -> agent running again, sandboxed      {ms(sandboxed)}")
    print(
        f"  ratio sandboxed / baseline (medians)           {statistics.median(sandboxed) / statistics.median(starts):.2f}x"
    )
    print(
        f"work files written after the edit                max {max(slipped)}, median {statistics.median(slipped)}"
    )
    ok = statistics.median(sandboxed) <= 1.0
    print("target (sandboxed restart within 1 s, median):", "met" if ok else "MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
