"""Claude Code hook latency: `planview claude hook` as the whole process Claude Code starts per tool call.

Run: python benchmarks/claude_hook.py [--runs N]
Times, interleaved in the same run, whole processes fed one recorded event on stdin:
- `python -c pass` (the floor for any Python hook),
- the hook on a plan-mode `Bash: git status` (gate + git allowlist),
- the hook on a plan-mode `Read` inside the project,
- the hook on an execute-mode `Write` under an approval pin (the stat check).
Prints min / median per case and the median's ratio to `python -c pass`. Target: each hook case
well under 100 ms median. Exit status 1 when a median is 100 ms or more.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_MS = 100.0


def _event(root: Path, tool: str, tool_input: dict, mode: str, session: str = "bench") -> bytes:
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(root),
            "permission_mode": mode,
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def _project(tmp: Path) -> tuple[Path, bytes]:
    """A git project with an approved plan pinned to session 'pinned'; returns the Write event."""
    root = tmp / "project"
    root.mkdir()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    for args in (["init", "-q"], ["config", "user.name", "Bench"], ["config", "user.email", "b@example.com"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)
    (root / "README.md").write_text("# bench\n")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from planview.approval.approvals import Approvals
    from planview.claude.state import ClaudeState, Pin, SessionState
    from planview.plan.canonical import canonical_sha256
    from planview.plan.store import PlanStore

    home = root / ".planview"
    text = "# Bench\n\n## Goal\n\nMeasure.\n\n## Steps\n\n- [ ] one\n- [ ] two\n"
    written = PlanStore(home, project_root=root).write("Bench", text)
    record = Approvals(home, project_root=root).approve(written.path, "Bench", channel="Claude Code")
    st = os.stat(written.path)
    pin = Pin(record.seq, canonical_sha256(text), str(written.path), (st.st_size, st.st_mtime_ns, st.st_ino))
    ClaudeState(home).save(
        "pinned", SessionState(mode="execute", plan=str(written.path), pin=pin, steps_offered=True)
    )
    write = _event(root, "Write", {"file_path": str(root / "x.txt"), "content": "x"}, "acceptEdits", "pinned")
    return root, write


def _time(argv: list[str], stdin: bytes, cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, cwd=cwd, capture_output=True, check=False, env=env)
    return (time.perf_counter() - start) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    hook = [sys.executable, "-m", "planview", "claude", "hook", "--timeout", "3600"]
    with tempfile.TemporaryDirectory() as tmp:
        root, write = _project(Path(tmp))
        # Bytecode as an installed package has it (the warm-up writes it here, not into the repo).
        env = {**os.environ, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cases = {
            "python -c pass": ([sys.executable, "-c", "pass"], b""),
            "plan: Bash git status": (hook, _event(root, "Bash", {"command": "git status"}, "plan")),
            "plan: Read README.md": (
                hook,
                _event(root, "Read", {"file_path": str(root / "README.md")}, "plan"),
            ),
            "execute: Write (pinned)": (hook, write),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for argv, stdin in cases.values():
            _time(argv, stdin, root, env)  # warm-up: bytecode cache, page cache
        for _ in range(args.runs):
            for name, (argv, stdin) in cases.items():
                times[name].append(_time(argv, stdin, root, env))
    floor = statistics.median(times["python -c pass"])
    print(f"{'case':28} {'min ms':>8} {'median ms':>10} {'x python -c pass':>17}")
    worst = 0.0
    for name, values in times.items():
        median = statistics.median(values)
        if name != "python -c pass":
            worst = max(worst, median)
        print(f"{name:28} {min(values):8.1f} {median:10.1f} {median / floor:17.2f}")
    print(f"target: every hook case under {TARGET_MS:.0f} ms median; worst {worst:.1f} ms")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
