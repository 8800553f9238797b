"""Fault trials: whole `planview` processes under a full disk, a read-only home, hostile files,
closed pipes, torn lines and kills; counts the bad outcomes of each.

Run (as root, for tmpfs and bind mounts):
    python benchmarks/fault_trials.py [--src DIR] [--trials N]

`--src` runs another checkout's `planview` (e.g. a `git worktree` of an older commit, for a
before/after table) with this interpreter's packages. A bad outcome is a traceback, a hang
(timeout), a command that should have worked failing, a ledger that does not verify, or data left
half-written; each fault's line says which it counts. Prints one table row per fault.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

PLAN = "# Tidy the README\n\n## Goal\nExplain setup.\n\n## Steps\n- [ ] Rewrite the setup section\n- [ ] Check it\n"
SRC: Path | None = None


def env() -> dict[str, str]:
    out = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    out.pop("PLANVIEW_HOME", None)
    if SRC is not None:
        out["PYTHONPATH"] = str(SRC)
    return out


class Result:
    def __init__(self, rc: int | None, out: bytes, err: bytes) -> None:
        self.rc, self.out, self.err = rc, out, err

    @property
    def hung(self) -> bool:
        return self.rc is None

    @property
    def traceback(self) -> bool:
        return b"Traceback" in self.err


def pv(cwd: Path, *args: str, timeout: float = 30, stdout: int | None = subprocess.PIPE, **kw) -> Result:
    try:
        done = subprocess.run(
            [sys.executable, "-m", "planview", *args],
            cwd=cwd,
            env=env(),
            stdout=stdout,
            stderr=subprocess.PIPE,
            stdin=kw.pop("stdin", subprocess.DEVNULL),
            timeout=timeout,
            **kw,
        )
    except subprocess.TimeoutExpired as exc:
        return Result(None, exc.stdout or b"", exc.stderr or b"")
    return Result(done.returncode, done.stdout or b"", done.stderr)


def sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=check)


def project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for cmd in (
        ["git", "init", "-q"],
        ["git", "config", "user.name", "Ada"],
        ["git", "config", "user.email", "a@x"],
    ):
        subprocess.run(cmd, cwd=root, check=True, env=env(), capture_output=True)
    (root / ".planview" / "plans").mkdir(parents=True)
    (root / ".planview" / ".gitignore").write_text("*\n")
    return root


def plan(root: Path, name: str = "2026-01-01-0000-tidy.md", text: str = PLAN) -> Path:
    path = root / ".planview" / "plans" / name
    path.write_text(text)
    return path


def ledger_ok(root: Path) -> bool:
    done = pv(root, "audit", "--json")
    if done.hung or done.traceback:
        return False
    try:
        return bool(json.loads(done.out)["ledger"]["ok"])
    except (ValueError, KeyError):
        return False


def fill(mount: Path, leave_pages: int) -> Path:
    """Fill the tmpfs at `mount` to within `leave_pages` pages."""
    filler = mount / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"x" * 4096)
    except OSError:
        pass
    finally:
        os.close(fd)
    if leave_pages:
        size = filler.stat().st_size
        os.truncate(filler, max(size - leave_pages * 4096, 0))
    return filler


# -- the faults ------------------------------------------------------------------------------
def full_disk_approve(tmp: Path, trials: int) -> tuple[int, int, str]:
    bad = 0
    for n in range(trials):
        mount = tmp / f"disk{n}"
        mount.mkdir()
        sh("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount))
        try:
            root = project(mount / "p")
            for k in range(n % 3):  # some history first
                plan(root, f"2026-01-01-000{k}-old.md", PLAN + f"\nold {k}\n")
                pv(root, "approve", f"2026-01-01-000{k}-old.md", "--as", "Ada")
            target = plan(root, text=PLAN + "x" * (500 * (n % 7)))
            filler = fill(mount, n % 4)
            first = pv(root, "approve", target.name, "--as", "Ada")
            lines = [line for line in first.err.decode(errors="replace").splitlines() if line.strip()]
            ledger = root / ".planview" / "ledger.jsonl"
            data = ledger.read_bytes() if ledger.exists() else b""
            torn = bool(data) and not data.endswith(b"\n")  # empty (rolled back to nothing) is fine
            filler.unlink()
            again = pv(root, "approve", target.name, "--as", "Ada")
            audit_ok = ledger_ok(root)
            if (
                first.traceback
                or first.hung
                or (first.rc != 0 and len(lines) != 1)
                or torn
                or again.rc != 0
                or not audit_ok
            ):
                bad += 1
                why = f"rc={first.rc} torn={torn} again={again.rc} audit_ok={audit_ok}"
                print(f"  trial {n}: {why}: {first.err[-300:]!r} / {again.err[-300:]!r}", file=sys.stderr)
        finally:
            sh("umount", str(mount), check=False)
    return (
        trials,
        bad,
        "traceback, not one line, torn line left, or approve/audit failing after space is freed",
    )


def full_disk_session(tmp: Path, trials: int) -> tuple[int, int, str]:
    bad = 0
    for n in range(trials):
        mount = tmp / f"sdisk{n}"
        mount.mkdir()
        sh("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount))
        try:
            root = project(mount / "p")
            script = tmp / f"script{n}.jsonl"
            script.write_text(
                "".join(json.dumps({"text": f"turn {i} " + "y" * 1500}) + "\n" for i in range(6))
            )
            pv(root, "run", "--script", str(script), "start")
            filler = fill(mount, n % 3)
            pv(root, "run", "--resume", "--script", str(script), "more " + "z" * 3000)
            filler.unlink()
            again = pv(root, "run", "--resume", "--script", str(script), "and more")
            if again.rc != 0 or again.traceback:
                bad += 1
        finally:
            sh("umount", str(mount), check=False)
    return trials, bad, "resume after the disk filled mid-save refused or crashed"


def torn_session(tmp: Path, trials: int) -> tuple[int, int, str]:
    bad = 0
    rng = random.Random(12)
    for n in range(trials):
        root = project(tmp / f"ts{n}")
        script = tmp / f"ts{n}.jsonl"
        script.write_text('{"text": "one"}\n{"text": "two"}\n')
        pv(root, "run", "--script", str(script), "start")
        (session,) = (root / ".planview" / "sessions").glob("*.jsonl")
        data = session.read_bytes()
        cut = data[: rng.randrange(len(data) // 2, len(data) - 1)]
        session.write_bytes(cut)
        again = pv(root, "run", "--resume", "--script", str(script), "go on")
        if again.rc != 0 or again.traceback:
            bad += 1
    return trials, bad, "resume refused a session file cut at a random byte of its last half"


READ_ONLY_COMMANDS = [
    ("status",),
    ("status", "--json"),
    ("status", "{plan}"),
    ("audit",),
    ("audit", "--json"),
    ("plans",),
    ("plans", "--json"),
    ("steps", "{plan}"),
    ("steps", "--json", "{plan}"),
    ("gate", "check"),
    ("--help",),
    ("--version",),
    ("approve", "--help"),
]
WRITE_COMMANDS = [
    ("approve", "{plan}"),
    ("approve", "{plan2}"),
    ("run", "--script", "{script}", "hi"),
    ("run", "--resume", "--script", "{script}"),
    ("review", "{plan}", "--json"),
    ("audit", "--repair"),
    ("claude", "status"),
]


def read_only_home(tmp: Path, trials: int) -> tuple[int, int, str]:
    root = project(tmp / "ro")
    first = plan(root)
    second = plan(root, "2026-01-01-0001-other.md", PLAN + "\nmore\n")
    script = tmp / "ro.jsonl"
    script.write_text('{"text": "hi"}\n')
    pv(root, "approve", first.name, "--as", "Ada")
    pv(root, "run", "--script", str(script), "x")
    (root / ".planview" / "ledger.lock").unlink(missing_ok=True)
    home = root / ".planview"
    sh("mount", "--bind", str(home), str(home))
    sh("mount", "-o", "remount,bind,ro", str(home))
    runs = bad = 0
    try:
        for args in READ_ONLY_COMMANDS + WRITE_COMMANDS:
            argv = [a.format(plan=first, plan2=second, script=script) for a in args]
            done = pv(
                root,
                *argv,
                timeout=20,
                input=b"" if args[0] == "gate" else None,
                stdin=None if args[0] == "gate" else subprocess.DEVNULL,
            )
            runs += 1
            should_work = args in READ_ONLY_COMMANDS
            if done.hung or done.traceback or (should_work and done.rc not in (0, 1)):  # 1: not approved
                bad += 1
                print(f"  {' '.join(args)}: rc={done.rc} {done.err[-300:]!r}", file=sys.stderr)
    finally:
        sh("umount", str(home), check=False)
    return runs, bad, "traceback, hang, or a read-only command erring (status 2) (20 commands)"


def hostile_ledger(tmp: Path, trials: int) -> tuple[int, int, str]:
    runs = bad = 0
    for kind in ("fifo", "folder", "devzero"):
        root = project(tmp / f"h{kind}")
        target = plan(root)
        pv(root, "approve", target.name, "--as", "Ada")
        ledger = root / ".planview" / "ledger.jsonl"
        ledger.unlink()
        if kind == "fifo":
            os.mkfifo(ledger)
        elif kind == "folder":
            ledger.mkdir()
        else:
            ledger.symlink_to("/dev/zero")
        for args in (("status", target.name), ("audit",), ("approve", target.name)):
            start = time.monotonic()
            done = pv(root, *args, timeout=10)
            runs += 1
            if done.hung or done.traceback or time.monotonic() - start > 5 or done.rc not in (1, 2):
                bad += 1
    return (
        runs,
        bad,
        "FIFO, folder or /dev/zero as the ledger: hang, traceback or no error (status, audit, approve)",
    )


def nested(tmp: Path, trials: int) -> tuple[int, int, str]:
    runs = bad = 0
    deep = "[" * 100_000 + "]" * 100_000
    for where in ("ledger", "session", "script", "config"):
        root = project(tmp / f"n{where}")
        target = plan(root)
        script = tmp / f"n{where}.jsonl"
        script.write_text('{"text": "hi"}\n')
        pv(root, "approve", target.name, "--as", "Ada")
        pv(root, "run", "--script", str(script), "x")
        home = root / ".planview"
        if where == "ledger":
            with (home / "ledger.jsonl").open("a") as fh:
                fh.write(deep + "\n")
            args: tuple[str, ...] = ("audit",)
        elif where == "session":
            (session,) = (home / "sessions").glob("*.jsonl")
            text = session.read_text()
            session.write_text('{"type":"message","message":' + deep + "}\n" + text)
            args = ("run", "--resume", "--script", str(script))
        elif where == "script":
            script.write_text('{"text": ' + deep + "}\n")
            args = ("run", "--script", str(script), "x")
        else:
            (home / "config.toml").write_text("a = " + deep + "\n")
            args = ("run", "--script", str(script), "x")
        done = pv(root, *args)
        runs += 1
        if done.traceback or done.hung:
            bad += 1
    return runs, bad, "100,000-deep JSON/TOML in ledger, session, --script, config.toml: traceback"


def closed_pipe(tmp: Path, trials: int) -> tuple[int, int, str]:
    root = project(tmp / "pipe")
    target = plan(root)
    pv(root, "approve", target.name, "--as", "Ada")
    runs = bad = 0
    commands = [
        ("status",),
        ("status", "--json"),
        ("audit",),
        ("audit", "--json"),
        ("plans",),
        ("steps", str(target)),
        ("approve", target.name),
        ("--help",),
    ]
    for _ in range(max(trials, 1)):
        for args in commands:
            read_end, write_end = os.pipe()
            os.close(read_end)  # like `| true` that already exited
            try:
                done = pv(root, *args, stdout=write_end)
            finally:
                os.close(write_end)
            runs += 1
            if done.traceback or done.hung:
                bad += 1
    return runs, bad, "traceback with stdout closed (status, audit, plans, steps, approve, --help)"


def no_tty_review(tmp: Path, trials: int) -> tuple[int, int, str]:
    root = project(tmp / "tty")
    target = plan(root)
    bad = 0
    for _ in range(trials):
        done = pv(root, "review", str(target), "--json", timeout=10)
        if done.hung or done.rc != 2 or done.traceback:
            bad += 1
    return trials, bad, "review --json with no terminal: hang (10 s) or not exit 2"


def blank_plan(tmp: Path, trials: int) -> tuple[int, int, str]:
    root = project(tmp / "blank")
    bad = 0
    for n in range(trials):
        target = plan(
            root,
            f"2026-01-01-00{n:02d}-b.md",
            f"# Plan {n}\n\n## Steps\n- [ ] one" + " " * 250_000 + "[DONE:\n",
        )
        start = time.monotonic()
        done = pv(root, "approve", target.name, "--as", "Ada", timeout=20)
        if done.hung or done.rc != 0 or time.monotonic() - start >= 1.0:
            bad += 1
    return trials, bad, "approving a 250 KB plan of blanks takes 1 s or more (20 s timeout)"


def forged_line(tmp: Path, trials: int) -> tuple[int, int, str]:
    import hashlib

    bad = 0
    for n in range(trials):
        root = project(tmp / f"forge{n}")
        good = plan(root)
        forged = plan(root, "2026-01-01-0009-nobody.md", PLAN + "\nnobody approved this\n")
        pv(root, "approve", good.name, "--as", "Ada")
        ledger = root / ".planview" / "ledger.jsonl"
        last = ledger.read_bytes().splitlines()[-1]
        event = json.loads(last)
        canon = json.loads(pv(root, "status", "--json", forged.name).out or b"{}")
        event.update(
            seq=event["seq"] + 1, prev=hashlib.sha256(last).hexdigest(), plan=f".planview/plans/{forged.name}"
        )
        if canon.get("plan"):
            event["plan"] = canon["plan"]
        # the forger copies the canonical hash the real status would compute
        from planview.plan.canonical import canonical_sha256

        event["canonical_sha256"] = canonical_sha256(forged.read_text())
        with ledger.open("ab") as fh:
            fh.write(
                json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
            )
        done = pv(root, "status", forged.name)
        if done.rc == 0:
            bad += 1
    return trials, bad, "a correctly chained forged line appended (head untouched): status says approved"


KILL_WRITER = """
import sys
from pathlib import Path
from planview.plan.store import PlanStore
store = PlanStore(Path(sys.argv[1]))
target = Path(sys.argv[2])
print("ready", flush=True)
n = 0
while True:
    n += 1
    store.write("Plan", ("# v%d\\n" % n) + "x" * 250_000, plan_path=target)
"""


def killed_store_writes(tmp: Path, trials: int) -> tuple[int, int, str]:
    root = project(tmp / "kill")
    home = root / ".planview"
    target = plan(root)
    rng = random.Random(3)
    for _ in range(trials):
        writer = subprocess.Popen(
            [sys.executable, "-c", KILL_WRITER, str(home), str(target)],
            stdout=subprocess.PIPE,
            text=True,
            env=env(),
            cwd=tmp,  # not this checkout: `-c` puts the cwd first on sys.path
        )
        writer.stdout.readline()
        time.sleep(rng.uniform(0.2, 0.6))  # past start-up, into the write loop
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        writer.stdout.close()
    time.sleep(2.5)  # older than a live writer's moment
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from planview.plan.store import "
            "PlanStore; PlanStore(Path(sys.argv[1])).write('Plan', '# last\\n', plan_path=Path(sys.argv[2]))",
            str(home),
            str(target),
        ],
        check=True,
        env=env(),
        cwd=tmp,
    )
    left = list((home / "plans").glob(".*.tmp"))
    return trials, len(left), "temp files left after SIGKILLs during plan writes, once the next write ran"


FAULTS: list[tuple[str, Callable[[Path, int], tuple[int, int, str]], int]] = [
    ("full disk during approve (tmpfs)", full_disk_approve, 12),
    ("full disk during session save (tmpfs)", full_disk_session, 6),
    ("session file torn at a random byte", torn_session, 10),
    ("read-only home", read_only_home, 1),
    ("FIFO / folder / device as the ledger", hostile_ledger, 1),
    ("deeply nested JSON/TOML", nested, 1),
    ("closed stdout", closed_pipe, 3),
    ("review without a terminal", no_tty_review, 3),
    ("250 KB plan of blanks", blank_plan, 3),
    ("forged appended ledger line", forged_line, 3),
    ("SIGKILL during plan writes", killed_store_writes, 40),
]


def main() -> int:
    global SRC
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", type=Path, help="a planview checkout to run instead of this one")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every fault's trial count")
    parser.add_argument("--only", help="run only the faults whose name contains this")
    opts = parser.parse_args()
    SRC = opts.src.resolve() if opts.src else None
    print(f"planview from {SRC or 'this checkout'}")
    print("| fault | trials | bad outcomes | counted as bad |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, fault, count in FAULTS:
            if opts.only and opts.only not in name:
                continue
            folder = Path(tmp) / fault.__name__
            folder.mkdir()
            trials, bad, what = fault(folder, max(1, round(count * opts.scale)))
            print(f"| {name} | {trials} | {bad} | {what} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
