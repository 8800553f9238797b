"""Gate speed: decisions per second over a mixed corpus, next to shlex.split of the same strings.

Run: python benchmarks/gate.py [--repeat N] [--seconds S]
Prints decisions/s for the whole decide() path (parse the call, classify, tokenise and check git
commands, scan inputs for paths) and shlex.split's strings/s over the same commands, measured
interleaved in the same run, and the ratio. Target: at least 50,000 decisions/s. Exit status 1 when under.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path

from planview.gate.calls import GatePolicy, ToolCall
from planview.gate.policy import decide

TARGET = 50_000

COMMANDS = [
    "git status",
    "git diff --stat",
    "git log --oneline -5",
    "git log --format='%h %an %s' --since='2 weeks ago' -- src/",
    "git show HEAD~1:README.md",
    "git status && git diff --stat && git branch -a",
    "git grep -n 'TODO|FIXME' -- '*.py'",
    "git blame -L 10,40 src/planview/gate/policy.py",
    "git config --get user.name",
    "git diff -- extensions\\plan",
    "git commit -am 'wip'",
    "git push --force origin main",
    "git status | sh",
    'git log "$(rm -rf x)"',
    "cd src && git status",
    "cat README.md",
    "git -c core.pager=sh log",
    "git diff --output=/tmp/x",
    "GIT_PAGER=x git log",
    "git branch -D feature",
]
OTHER_CALLS = [
    ToolCall("read", {"path": "src/app.py"}),
    ToolCall("grep", {"pattern": "TODO", "path": "."}),
    ToolCall("write", {"path": "x.py", "content": "print(1)\n"}),
    ToolCall("edit", {"path": "x.py", "old": "a", "new": "b"}),
    ToolCall("write_plan", {"title": "Rate limiting", "content": "# Rate limiting\n"}),
    ToolCall("web_search", {"query": "textual line api", "limit": 5}, {"readOnlyHint": True}, builtin=False),
    ToolCall("mcp__fs__stat", {"options": {"paths": ["./src"]}}, {"readOnlyHint": True}, builtin=False),
    ToolCall(
        "subagent",
        {"agent": "explorer", "task": "map the gate"},
        input_schema={"properties": {"readOnly": {}}},
    ),
    ToolCall("deploy", {"env": "prod"}, builtin=False),
    {"tool": "bash", "input": ["not", "an", "object"]},
]


def corpus() -> list:
    return [ToolCall("bash", {"command": command}) for command in COMMANDS] + OTHER_CALLS


def per_second(fn: Callable[[], None], items: int, seconds: float) -> float:
    """Items per second: whole passes over the corpus until `seconds` elapse."""
    done = 0
    start = time.perf_counter()
    while True:
        fn()
        done += items
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def per_cpu_second(fn: Callable[[], None], items: int, seconds: float) -> float:
    """Items per CPU-second of this process: steadier than wall time on a shared, loaded machine."""
    done = 0
    start = time.process_time()
    while True:
        fn()
        done += items
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return done / elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds (the best is reported)")
    parser.add_argument("--seconds", type=float, default=0.5, help="length of each timed run")
    args = parser.parse_args(argv)

    calls = corpus()
    commands = list(COMMANDS)

    def gate_pass() -> None:
        for call in calls:
            decide(call, "plan")

    def shlex_pass() -> None:
        for command in commands:
            shlex.split(command)

    def git_only_pass() -> None:
        for call in calls[: len(COMMANDS)]:
            decide(call, "plan")

    rooted = GatePolicy(project_root=Path(__file__).resolve().parent.parent)

    def rooted_pass() -> None:
        for call in calls:
            decide(call, "plan", rooted)

    allowed = sum(decide(call, "plan").allowed for call in calls)
    gate_best = shlex_best = git_best = rooted_best = 0.0
    for _ in range(args.repeat):
        gate_best = max(gate_best, per_second(gate_pass, len(calls), args.seconds))
        rooted_best = max(rooted_best, per_second(rooted_pass, len(calls), args.seconds))
        git_best = max(git_best, per_second(git_only_pass, len(COMMANDS), args.seconds))
        shlex_best = max(shlex_best, per_second(shlex_pass, len(commands), args.seconds))

    cpu_best = max(per_cpu_second(gate_pass, len(calls), args.seconds) for _ in range(args.repeat))
    print(f"corpus: {len(calls)} calls ({len(COMMANDS)} bash commands, {allowed} allowed in plan mode)")
    print(f"decide(), mixed corpus:        {gate_best:>10,.0f} decisions/s")
    print(f"decide(), mixed corpus, per CPU-second: {cpu_best:>10,.0f} decisions/s")
    print(f"decide(), bash commands only:  {git_best:>10,.0f} decisions/s")
    print(f"decide(), mixed, paths resolved against a project root: {rooted_best:>10,.0f} decisions/s")
    print(f"shlex.split, same commands:    {shlex_best:>10,.0f} strings/s")
    print(f"ratio decide(bash) / shlex.split: {git_best / shlex_best:.2f}x  (higher is faster)")
    verdict = "ok" if gate_best >= TARGET else "UNDER TARGET"
    print(f"target: >= {TARGET:,} decisions/s on the mixed corpus -> {verdict}")
    return 0 if gate_best >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
