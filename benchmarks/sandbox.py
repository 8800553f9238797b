"""The kernel sandbox's cost per plan-mode command, and the Claude hook's wrapped Bash (whole processes).

Run: python benchmarks/sandbox.py [--runs N]
Compiles planview's bytecode first (`python -m compileall`: these machines set
PYTHONDONTWRITEBYTECODE=1, and an installed planview has its bytecode), builds a small repository,
and times, interleaved in the same run, whole processes for each command:

  plan        today's plan-mode bash: bash -c '<git function>; <command>' with the plan environment
  sandboxed   the same, through the sandbox's exec entry point (python -I -S exec.py: fork, user+net+ipc
              namespaces, Landlock, seccomp, exec; the scratch folder removed afterwards)
  unwrapped   the command as Claude would run it without planview (bash -c '<command>')
  hook        the Claude hook's updatedInput for it (git_wrap.neutralised_command(..., sandboxed=True)),
              run by bash the way Claude's shell runs it

and prints medians, best times, and the differences (targets: sandboxed - plan <= 5 ms,
hook - unwrapped <= 20 ms). The load average is printed with the figures. Tests never assert these.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMANDS = ("git status", "ls -la", "rg -n needle", "cat README.md | head")


def build(root: Path) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    run = {"cwd": root, "env": env, "check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q", "-b", "main"], **run)
    subprocess.run(["git", "config", "user.email", "b@example.com"], **run)
    subprocess.run(["git", "config", "user.name", "b"], **run)
    (root / "README.md").write_text("# bench\n" + "line\n" * 50)
    for index in range(100):
        folder = root / f"pkg{index % 10}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{index}.py").write_text(f"needle = {index}\n" + "x = 1\n" * 30)
    subprocess.run(["git", "add", "."], **run)
    subprocess.run(["git", "commit", "-qm", "first"], **run)


def timed(argv: list[str], root: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=root, env=env, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "planview")], check=True)
    from planview.claude.git_wrap import neutralised_command
    from planview.gate import git_env
    from planview.sandbox import status as sandbox_status
    from planview.sandbox.launch import wrap

    found = sandbox_status.current()
    print(f"sandbox: {found.summary()}")
    if not found.enforcing:
        print("no kernel sandbox on this machine: nothing to measure")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        build(root)
        plan_env = asyncio.run(git_env.plan_env(root, dict(os.environ)))
        user_env = dict(os.environ)
        print(f"{'command':24} {'plan':>8} {'sandbox':>8} {'+ms':>7}   {'bare':>8} {'hook':>8} {'+ms':>7}")
        totals: dict[str, list[float]] = {"plan": [], "sandboxed": [], "unwrapped": [], "hook": []}
        start_argv = [sys.executable, "-I", "-S", "-c", "import ctypes"]
        starts: list[float] = []
        for command in COMMANDS:
            script = git_env.plan_script(command)
            plain_argv = ["bash", "-c", script]
            boxed_argv = wrap(plain_argv, root)
            hook_line = neutralised_command(command, root, sandboxed=True)
            times: dict[str, list[float]] = {key: [] for key in totals}
            for _ in range(3):  # warm the page cache and the bytecode
                timed(boxed_argv, root, plan_env)
            for _ in range(args.runs):
                times["plan"].append(timed(plain_argv, root, plan_env))
                times["sandboxed"].append(timed(boxed_argv, root, plan_env))
                times["unwrapped"].append(timed(["bash", "-c", command], root, user_env))
                times["hook"].append(timed(["bash", "-c", hook_line], root, user_env))
                starts.append(timed(start_argv, root, user_env))
            med = {key: statistics.median(values) * 1000 for key, values in times.items()}
            for key in totals:
                totals[key].append(med[key])
            print(
                f"{command:24} {med['plan']:8.1f} {med['sandboxed']:8.1f} {med['sandboxed'] - med['plan']:+7.1f}"
                f"   {med['unwrapped']:8.1f} {med['hook']:8.1f} {med['hook'] - med['unwrapped']:+7.1f}"
            )
        sandbox_cost = statistics.median(
            [b - a for a, b in zip(totals["plan"], totals["sandboxed"], strict=True)]
        )
        hook_cost = statistics.median(
            [b - a for a, b in zip(totals["unwrapped"], totals["hook"], strict=True)]
        )
        print(
            f"of which the interpreter's own start (python -I -S -c 'import ctypes'): "
            f"{statistics.median(starts) * 1000:.1f} ms"
        )
        print(f"median sandbox cost per plan-mode command: {sandbox_cost:+.1f} ms (target <= 5 ms)")
        print(f"median Claude hook wrapped Bash over unwrapped: {hook_cost:+.1f} ms (target <= 20 ms)")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
