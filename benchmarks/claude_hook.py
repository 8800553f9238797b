"""Claude Code hook latency: `planview claude hook` as the whole process Claude Code starts per tool call.

Run: python benchmarks/claude_hook.py [--runs N] [--sizes 10,1000,6000,10000]

Times, interleaved in the same run, whole processes fed one recorded event on stdin, bytecode
compiled first (as an installed user has it; this machine sets PYTHONDONTWRITEBYTECODE=1):
- `python -c pass` and a minimal Python hook (a script that reads the event JSON and prints an
  allow answer): the anchor every ratio is against;
- the hook on plan-mode Read / Grep / Glob / LS inside the project and `Bash: git status`;
- the hook on an execute-mode `Write` under an approval pin (the stat check), and on an
  execute-mode `Read` (not pin-checked: no decision);
- after a plan change: an execute-mode `Write` under a pin to a plan of N lines whose checkbox was
  just ticked (its stat changed, so the hook re-hashes the plan), for each N in --sizes.
The hook runs as the console script `claude install` writes (`<venv>/bin/planview claude hook`).
Prints min / median / peak RSS per case and the median's ratio to the minimal hook (the target),
and the median CPU time (user + system, from wait4) with its ratio, which a loaded box skews less. Targets: each
hot path within 1.5x the minimal hook, and the 6,000-line plan change within 2x. Exit status 1 when
a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wholeproc import compiled_env, load_average, peak_rss, timed_cpu

HOT_TARGET = 1.5
CHANGE_TARGET = 2.0
CHANGE_TARGET_LINES = 6000
MINIMAL_HOOK = """\
import json, sys
event = json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": event["hook_event_name"],
      "permissionDecision": "allow", "permissionDecisionReason": "minimal"}}))
"""


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


def plan_of(lines: int) -> str:
    """A plan of exactly `lines` lines: Steps first (the box the benchmark ticks), then sections of
    prose, sub-steps and fenced code, short lines so 10,000 of them stay under the 256 KiB approval cap."""
    out = ["# Bench plan", "", "## Steps", "", "- [ ] one", "- [ ] two", ""]
    k = 0
    while len(out) < lines:
        k += 1
        out += [
            f"## Part {k}",
            "",
            f"Text for part {k}.",
            "",
            f"- [ ] step {k}",
            "",
            "```",
            f"x = {k}",
            "```",
            "",
        ]
    return "\n".join(out[:lines]) + "\n"


def _pinned_session(root: Path, home: Path, session: str, title: str, text: str) -> Path:
    from planview.approval.approvals import Approvals
    from planview.claude.state import ClaudeState, Pin, SessionState
    from planview.plan.canonical import canonical_parts
    from planview.plan.store import PlanStore

    written = PlanStore(home, project_root=root).write(title, text)
    record = Approvals(home, project_root=root).approve(written.path, "Bench", channel="Claude Code")
    from planview.fileguard import stat_stamp

    parts = canonical_parts(text)  # as the hook pins an approval it recorded
    pin = Pin(
        record.seq,
        parts.sha256,
        str(written.path),
        stat_stamp(written.path),
        parts.skeleton,
        parts.code_ranges,
    )
    ClaudeState(home).save(
        session, SessionState(mode="execute", plan=str(written.path), pin=pin, steps_offered=True)
    )
    return Path(written.path)


def _project(tmp: Path) -> Path:
    root = tmp / "project"
    (root / "src").mkdir(parents=True)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    for args in (["init", "-q"], ["config", "user.name", "Bench"], ["config", "user.email", "b@example.com"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=env, capture_output=True)
    (root / "README.md").write_text("# bench\n")
    (root / "src" / "a.py").write_text("print('a')\n")
    return root


def _tick(plan: Path) -> None:
    """Flip the first step's box (`- [ ] one` <-> `- [x] one`): the canonical hash holds, the stat moves."""
    text = plan.read_text()
    if "- [ ] one" in text:
        text = text.replace("- [ ] one", "- [x] one", 1)
    else:
        text = text.replace("- [x] one", "- [ ] one", 1)
    plan.write_text(text)


def _hook_argv() -> list[str]:
    script = Path(sys.executable).with_name("planview")
    base = [str(script)] if script.exists() else [sys.executable, "-m", "planview"]
    return [*base, "claude", "hook", "--timeout", "3600"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--sizes", default="10,1000,6000,10000", help="plan lines for the plan-change cases")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    hook = _hook_argv()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        root = _project(tmp)
        home = root / ".planview"
        _pinned_session(root, home, "pinned", "Pinned", plan_of(10))
        changing = {n: _pinned_session(root, home, f"change{n}", f"Change {n}", plan_of(n)) for n in sizes}
        minimal = tmp / "minimal_hook.py"
        minimal.write_text(MINIMAL_HOOK)
        env = compiled_env(tmp)
        env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_SYSTEM=os.devnull)
        readme = str(root / "README.md")
        plan_ev = lambda tool, ti: _event(root, tool, ti, "plan")  # noqa: E731
        cases: dict[str, tuple[list[str], bytes, Path | None]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], b"", None),
            "minimal Python hook": (
                [sys.executable, str(minimal)],
                plan_ev("Read", {"file_path": readme}),
                None,
            ),
            "plan: Read": (hook, plan_ev("Read", {"file_path": readme}), None),
            "plan: Grep": (hook, plan_ev("Grep", {"pattern": "print", "path": str(root / "src")}), None),
            "plan: Glob": (hook, plan_ev("Glob", {"pattern": "**/*.py", "path": str(root)}), None),
            "plan: LS": (hook, plan_ev("LS", {"path": str(root / "src")}), None),
            "plan: Bash git status": (hook, plan_ev("Bash", {"command": "git status"}), None),
            "execute: Write (pinned)": (
                hook,
                _event(
                    root, "Write", {"file_path": str(root / "x.txt"), "content": "x"}, "acceptEdits", "pinned"
                ),
                None,
            ),
            "execute: Read (unpinned)": (
                hook,
                _event(root, "Read", {"file_path": readme}, "acceptEdits", "pinned"),
                None,
            ),
        }
        for n, plan in changing.items():
            write = {"file_path": str(root / "x.txt"), "content": "x"}
            cases[f"plan changed, {n:,} lines"] = (
                hook,
                _event(root, "Write", write, "acceptEdits", f"change{n}"),
                plan,
            )
        times: dict[str, list[float]] = {name: [] for name in cases}
        cpu_times: dict[str, list[float]] = {name: [] for name in cases}
        rss: dict[str, list[float]] = {name: [] for name in cases}
        for argv, stdin, tick in cases.values():  # warm-up: bytecode cache, page cache
            if tick is not None:
                _tick(tick)
            timed_cpu(argv, stdin, root, env)
        for _ in range(args.runs):
            for name, (argv, stdin, tick) in cases.items():
                if tick is not None:
                    _tick(tick)
                wall, cpu = timed_cpu(argv, stdin, root, env)
                times[name].append(wall)
                cpu_times[name].append(cpu)
        for name, (argv, stdin, tick) in cases.items():
            if tick is not None:
                _tick(tick)
            rss[name].append(peak_rss(argv, stdin, root, env))
        _check_answers(cases, root, env)
    anchor = statistics.median(times["minimal Python hook"])
    cpu_anchor = statistics.median(cpu_times["minimal Python hook"])
    print(f"load average {load_average()}; {args.runs} interleaved runs; hook: {' '.join(hook[:1])}")
    print(
        f"{'case':30} {'min ms':>8} {'median ms':>10} {'RSS MiB':>8} {'x minimal hook':>15} "
        f"{'CPU ms':>7} {'CPU x minimal':>14}"
    )
    failed = []
    for name, values in times.items():
        median = statistics.median(values)
        ratio = median / anchor
        cpu = statistics.median(cpu_times[name])
        print(
            f"{name:30} {min(values):8.1f} {median:10.1f} {max(rss[name]):8.1f} {ratio:15.2f} "
            f"{cpu:7.1f} {cpu / cpu_anchor:14.2f}"
        )
        if name.startswith(("plan:", "execute:")) and ratio > HOT_TARGET:
            failed.append(name)
        if name == f"plan changed, {CHANGE_TARGET_LINES:,} lines" and ratio > CHANGE_TARGET:
            failed.append(name)
    print(
        f"targets: hot paths <= {HOT_TARGET}x the minimal hook, a {CHANGE_TARGET_LINES:,}-line plan change "
        f"<= {CHANGE_TARGET}x: " + ("met" if not failed else "missed: " + ", ".join(failed))
    )
    return 1 if failed else 0


def _check_answers(cases: dict, root: Path, env: dict[str, str]) -> None:
    """The figures are only worth something if the hook answered as it should: allow in plan mode
    (the readers and git status), no decision in execute mode (the pin holds after a tick)."""
    for name, (argv, stdin, _) in cases.items():
        if not name.startswith(("plan", "execute")):
            continue
        done = subprocess.run(argv, input=stdin, cwd=root, env=env, capture_output=True, check=False)
        out = done.stdout.decode()
        ok = '"allow"' in out if name.startswith("plan:") else (done.returncode == 0 and '"deny"' not in out)
        if not ok:
            raise SystemExit(
                f"{name}: unexpected answer (exit {done.returncode}): {out[:300]} {done.stderr[:300]!r}"
            )


if __name__ == "__main__":
    raise SystemExit(main())
