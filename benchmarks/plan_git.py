"""Plan-mode bash overhead per git call, against running the same git directly (whole processes).

Run: python benchmarks/plan_git.py [--runs N] [--files N]
Builds a throwaway repository (N tracked files, one changed, a filter driver in its config so the
per-call driver lookup has something to find) and times, interleaved in the same run, for each of
a few read-only commands:

  direct    bash -c '<command>'                          (the user's environment, no gate)
  plan      gate check (paths resolved) + plan_env() + bash -c '<git function>; <command>'
            i.e. everything planview's plan-mode bash tool adds: the gate decision, the environment
            (one `git config` lookup for filter/textconv drivers) and the git wrapper function

and prints the median and best wall times per call, the overhead in milliseconds and the ratio.
The gate decision alone is timed too (microseconds, in-process). Tests never assert these figures.
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

from planview.gate import git_env
from planview.gate.git_shell import check_git_command

COMMANDS = ("git status", "git diff", "git log --oneline -20", "git show --stat HEAD", "git grep -n needle")


def build(root: Path, files: int) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    run = {"cwd": root, "env": env, "check": True, "capture_output": True}
    subprocess.run(["git", "init", "-q", "-b", "main"], **run)
    for key, value in (("user.name", "b"), ("user.email", "b@example.com"), ("filter.lfs.clean", "cat")):
        subprocess.run(["git", "config", key, value], **run)
    for index in range(files):
        folder = root / f"pkg{index % 20}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{index}.py").write_text(f"# module {index}\nneedle = {index}\n" + "x = 1\n" * 40)
    subprocess.run(["git", "add", "."], **run)
    for commit in range(20):
        (root / "pkg0" / "mod0.py").write_text(f"needle = {commit}\n")
        subprocess.run(["git", "commit", "-qam", f"change {commit}"], **run)
    (root / "pkg1" / "mod1.py").write_text("changed\n")


def direct(root: Path, command: str) -> float:
    start = time.perf_counter()
    subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, check=False)
    return time.perf_counter() - start


def plan(root: Path, command: str) -> float:
    start = time.perf_counter()
    verdict = check_git_command(command, root)
    assert verdict.allowed, verdict.reason
    env = asyncio.run(git_env.plan_env(root))
    subprocess.run(["bash", "-c", git_env.plan_script(command)], cwd=root, env=env, capture_output=True)
    return time.perf_counter() - start


def gate_us(root: Path, command: str, rounds: int = 2000) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        check_git_command(command, root)
    return (time.perf_counter() - start) / rounds * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="interleaved runs per command")
    parser.add_argument("--files", type=int, default=400, help="tracked files in the repository")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).resolve()
        build(root, args.files)
        print(
            f"repository: {args.files} files, 21 commits; {args.runs} interleaved runs per command; git "
            + subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.split()[-1]
        )
        print(f"{'command':<26}{'direct ms':>11}{'plan ms':>10}{'overhead ms':>13}{'ratio':>8}{'gate µs':>9}")
        overheads = []
        for command in COMMANDS:
            d: list[float] = []
            p: list[float] = []
            for _ in range(args.runs):
                d.append(direct(root, command))
                p.append(plan(root, command))
            dm, pm = statistics.median(d) * 1e3, statistics.median(p) * 1e3
            overheads.append(pm - dm)
            print(
                f"{command:<26}{dm:>11.1f}{pm:>10.1f}{pm - dm:>13.1f}{pm / dm:>7.2f}x{gate_us(root, command):>9.1f}"
            )
        print(
            f"median overhead per git call: {statistics.median(overheads):.1f} ms "
            "(gate + environment with its one git config lookup + wrapper function)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
