"""planview verify on a pull request of N commits: whole processes, against a same-run git baseline.

python benchmarks/team_verify.py [--commits 50,200] [--repeat 3]

Builds a scratch repository in a temp folder (real git, two ed25519 keys made with ssh-keygen -N ''),
a team policy on main, two signed approvals, and a branch of N commits that each carry the Plan
trailer and change one file. Times `planview verify --base main` (python -m compileall first, as for an
installed package) and, as the baseline, the git + ssh-keygen work any such check must do: one
`git log` of the range with trailers and names, and one `ssh-keygen -Y verify` per record.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
POLICY = '[[rules]]\npaths = ["**"]\napprovals = 2\n'
PLAN = "# Bench plan\n\n## Steps\n- [ ] change the files\n"


def run(cmd: list[str], cwd: Path, env: dict[str, str], data: bytes | None = None) -> bytes:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, input=data)
    if done.returncode != 0:
        raise SystemExit(f"{cmd[:4]}: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def build(base: Path, commits: int) -> tuple[Path, dict[str, str]]:
    home = base / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
    }
    env = {k: v for k, v in env.items() if not k.startswith("PLANVIEW_")}
    repo = base / "repo"
    run(["git", "init", "-q", "-b", "main", str(repo)], base, env)
    signers = []
    for who in ("alice", "bob"):
        key = base / who
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], base, env)
        pub = Path(f"{key}.pub").read_text().split()
        signers.append(f'{who}@example.com namespaces="planview-approval-v1" {pub[0]} {pub[1]}\n')
    (repo / ".planview").mkdir()
    (repo / ".planview" / "allowed_signers").write_text("".join(signers))
    (repo / ".planview" / "policy.toml").write_text(POLICY)
    git = ["git", "-c", "user.name=A", "-c", "user.email=alice@example.com"]
    run([*git, "add", "-f", ".planview"], repo, env)
    run([*git, "commit", "-q", "-m", "policy"], repo, env)
    (repo / ".planview" / "plans").mkdir()
    plan = repo / ".planview" / "plans" / "2026-01-01-0000-bench.md"
    plan.write_text(PLAN)
    for who in ("alice", "bob"):  # the principal comes from allowed_signers, by key
        (repo / ".planview" / "config.toml").write_text(f'[approval]\nsigning_key = "{base / who}"\n')
        run(["git", "config", "user.name", who], repo, env)
        run(["git", "config", "user.email", f"{who}@example.com"], repo, env)
        run([sys.executable, "-m", "planview", "approve", str(plan), "--sign"], repo, env)
    from planview.plan.canonical import canonical_sha256

    canonical = canonical_sha256(PLAN)
    run(["git", "checkout", "-q", "-b", "feature"], repo, env)
    for n in range(commits):
        (repo / f"f{n % 20}.txt").write_text(f"{n}\n")
        run([*git, "add", f"f{n % 20}.txt"], repo, env)
        run([*git, "commit", "-q", "-m", f"c{n}\n\nPlan: sha256:{canonical}"], repo, env)
    return repo, env


def timed(
    cmd: list[str], cwd: Path, env: dict[str, str], repeat: int, ok: tuple[int, ...] = (0,)
) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
        times.append(time.perf_counter() - start)
        if done.returncode not in ok:
            raise SystemExit(f"{cmd}: exit {done.returncode}: {done.stdout[-400:]!r} {done.stderr[-400:]!r}")
    return times


def baseline(repo: Path, env: dict[str, str]) -> None:
    """What any verifier must do: read the range with trailers and names, verify each signature."""
    import json

    run(
        ["git", "log", "--format=%H %(trailers:key=Plan,valueonly)", "--name-only", "main..feature"],
        repo,
        env,
    )
    notes = run(["git", "notes", "--ref=planview/approvals", "show", "main"], repo, env).decode()
    with tempfile.TemporaryDirectory() as tmp:
        for line in filter(None, notes.splitlines()):
            record = json.loads(line)
            sig = Path(tmp, "s.sig")
            sig.write_text(record["signature"])
            principal = json.loads(record["payload"])["principal"]
            run(
                [
                    "ssh-keygen",
                    "-Y",
                    "verify",
                    "-f",
                    str(repo / ".planview" / "allowed_signers"),
                    "-I",
                    principal,
                    "-n",
                    "planview-approval-v1",
                    "-s",
                    str(sig),
                ],
                repo,
                env,
                record["payload"].encode(),
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", default="50,200")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    compileall.compile_dir(REPO / "planview", quiet=1)
    print(
        f"load average {os.getloadavg()[0]:.2f}; bytecode compiled; whole processes, min / median of {args.repeat}"
    )
    for commits in (int(c) for c in args.commits.split(",")):
        with tempfile.TemporaryDirectory(prefix="pv-bench-") as tmp:
            repo, env = build(Path(tmp), commits)
            env = {**env, "PYTHONDONTWRITEBYTECODE": ""}
            verify = timed(
                [sys.executable, "-m", "planview", "verify", "--base", "main"], repo, env, args.repeat
            )
            base_times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                baseline(repo, env)
                base_times.append(time.perf_counter() - start)
            startup = timed([sys.executable, "-c", "pass"], repo, env, args.repeat)
            v, b, s = min(verify), min(base_times), min(startup)
            print(
                f"{commits:4d} commits: planview verify {v * 1000:7.0f} ms (median {statistics.median(verify) * 1000:.0f}); "
                f"git log + ssh-keygen baseline {b * 1000:6.0f} ms; python -c pass {s * 1000:4.0f} ms; "
                f"verify / (baseline + python start) = {v / (b + s):.1f}x"
            )


if __name__ == "__main__":
    main()
