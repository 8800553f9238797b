"""The Claude Code hook's cost as the real Claude Code sees it (tests/realagents' pinned 2.1.328).

`claude -p --output-format stream-json --verbose --include-hook-events` streams a `hook_started` and a
`hook_response` system message around each hook; the time between their arrival is the hook as Claude
Code runs it (process start, planview's decision, Claude reading the answer). The scripted model server
also times each full tool round trip: from its reply carrying the tool call to Claude's next request
carrying the result. Both with planview's hooks (`planview claude plan on`, Claude in its default mode,
so the hook decides every call) and, as the same-run baseline, without any hook.

    python3 tests/realagents/install.py && .venv/bin/python benchmarks/realagents_claude_hook.py [N]

Runs inside a private network namespace (nothing leaves the machine). Prints medians; no assertion.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "realagents"))

from harness import claude_run
from harness.agents import claude_env
from harness.anthropic_api import AnthropicServer
from harness.install import bin_dir, missing
from harness.netns import run_isolated
from harness.scenario import call, say


def _project(root: Path) -> Path:
    project = root / "project"
    project.mkdir()
    (project / "README.md").write_text("# sample project\n")
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null", "PATH": "/usr/bin:/bin"}
    for args in (
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "i"],
    ):
        subprocess.run(["git", *args], cwd=project, env=env, check=True)
    return project


def _run(n: int, hooks: bool) -> dict:
    root = Path(tempfile.mkdtemp(prefix="pv-bench-"))
    project = _project(root)
    steps = []
    for _ in range(n):
        steps.append(call("Bash", command="git status --short", description="status"))
        steps.append(call("Read", file_path=str(project / "README.md")))
    steps.append(say("done"))
    with AnthropicServer(steps) as server:
        env = claude_env(root / "home", server.url, project)
        if hooks:
            claude_run.install_hooks(project, env)
            claude_run.planview(project, env, "claude", "plan", "on")
        command = [
            str(bin_dir() / "claude"),
            "-p",
            "look",
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
            "--allowedTools=Bash,Read",
        ]
        proc = subprocess.Popen(command, cwd=project, env=env, stdout=subprocess.PIPE, text=True)
        started: dict[str, float] = {}
        hook_ms: list[float] = []
        assert proc.stdout is not None
        for line in proc.stdout:
            now = time.monotonic()
            try:
                record = json.loads(line)
            except ValueError:
                continue
            subtype = record.get("subtype")
            if (
                record.get("type") == "system"
                and subtype == "hook_started"
                and record.get("hook_event") == "PreToolUse"
            ):
                started[record.get("hook_id", "")] = now
            elif (
                record.get("type") == "system"
                and subtype == "hook_response"
                and record.get("hook_id") in started
            ):
                hook_ms.append((now - started.pop(record["hook_id"])) * 1000)
        proc.wait(timeout=60)
        errors = [r for r in server.results() if r.is_error]
        return {
            "hook_ms": hook_ms,
            "round_ms": [t * 1000 for t in server.round_trips()],
            "errors": len(errors),
        }


def main() -> None:
    if missing():
        sys.exit("the pinned agents are not installed: python3 tests/realagents/install.py")
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    with_hooks = run_isolated(_run, n, True)
    without = run_isolated(_run, n, False)
    hooks, base = with_hooks["round_ms"], without["round_ms"]
    print(
        f"Claude Code 2.1.328, {n} Bash `git status --short` + {n} Read calls each run (refused: "
        f"{with_hooks['errors']} with hooks, {without['errors']} without)"
    )
    if with_hooks["hook_ms"]:
        print(
            f"hook (hook_started -> hook_response, as Claude streams them): median "
            f"{statistics.median(with_hooks['hook_ms']):.0f} ms over {len(with_hooks['hook_ms'])} hooks"
        )
    else:
        print("hook: Claude streamed no hook_started/hook_response pairs")
    print(f"full tool round trip with planview's hooks: median {statistics.median(hooks):.0f} ms")
    print(f"full tool round trip without hooks:        median {statistics.median(base):.0f} ms")
    print(f"ratio: {statistics.median(hooks) / statistics.median(base):.2f}x")


if __name__ == "__main__":
    main()
