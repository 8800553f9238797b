"""Crash safety: a writer killed with SIGKILL mid-write leaves the old plan or the new one, never a torn file."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planview.plan.store import PlanStore

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")

# Two large, distinct versions (about 250 KiB each, under the store's cap), each self-checking.
OLD = "# Old plan\n\n" + "".join(f"- [ ] old step {i:06d} {'o' * 40}\n" for i in range(4_000))
NEW = "# New plan\n\n" + "".join(f"- [x] new step {i:06d} {'n' * 40}\n" for i in range(4_000))

WRITER = r"""
import sys
from pathlib import Path
from planview.plan.store import PlanStore

home, target, old_path, new_path = sys.argv[1:5]
store = PlanStore(Path(home))
versions = [Path(old_path).read_text(), Path(new_path).read_text()]
print("ready", flush=True)
i = 0
while True:  # alternate old/new as fast as possible until killed
    i += 1
    store.write("Crash test", versions[i % 2], plan_path=target)
"""


def test_sigkill_mid_write_leaves_old_or_new(tmp_path: Path) -> None:
    assert len(OLD.encode()) < 256 * 1024 and len(NEW.encode()) < 256 * 1024
    store = PlanStore(tmp_path / ".planview")
    target = store.write("Crash test", OLD).path
    old_file, new_file = tmp_path / "old.txt", tmp_path / "new.txt"
    old_file.write_text(OLD)
    new_file.write_text(NEW)
    rng = random.Random(1234)
    seen = {"old": 0, "new": 0}
    iterations = 25
    for _ in range(iterations):
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(store.home), str(target), str(old_file), str(new_file)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert writer.stdout.readline().strip() == "ready", writer.stderr.read()
            time.sleep(rng.uniform(0.005, 0.08))  # land somewhere inside a write cycle
        finally:
            writer.send_signal(signal.SIGKILL)
            writer.wait(timeout=30)
        assert writer.returncode == -signal.SIGKILL  # it was still writing when killed
        content = target.read_text()
        assert content in (OLD, NEW), f"torn plan: {len(content)} chars"
        seen["old" if content == OLD else "new"] += 1
        # Whatever temp files the dead writer left are hidden and never listed as plans.
        assert [info.path for info in store.list()] == [target]
        for leftover in store.plans_dir.iterdir():
            assert leftover == target or leftover.name.startswith(".")
    assert seen["old"] + seen["new"] == iterations


def test_leftover_temp_files_do_not_block_the_next_write(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    target = store.write("Plan", "# v1\n").path
    torn = store.plans_dir / f".{target.name}.deadbeef0000.tmp"
    torn.write_text("# v2 half writ")  # what a killed writer leaves
    store.write("Plan", "# v2\n", plan_path=target)
    assert target.read_text() == "# v2\n"
    assert store.latest() == target
    assert os.path.exists(torn)  # never picked up as a plan, never promoted


def test_temp_files_of_killed_writers_are_removed_at_the_next_write(tmp_path: Path) -> None:
    import fcntl
    import time

    from planview import atomic

    store = PlanStore(tmp_path / ".planview")
    target = store.write("Plan", "# v1\n").path
    dead = [store.plans_dir / f".{target.name}.{n:012x}.tmp" for n in range(5)]
    for path in dead:
        path.write_text("# half writ")
    live = store.plans_dir / f".{target.name}.{'a' * 12}.tmp"
    live.write_text("# being written")
    holder = os.open(live, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)  # a writer still at work
    mine = store.plans_dir / ".notes.tmp"  # not a planview temp name: never touched
    mine.write_text("keep")
    old = time.time() - 60
    for path in [*dead, live, mine]:
        os.utime(path, (old, old))
    atomic._swept.clear()  # as in a new process
    try:
        store.write("Plan", "# v2\n", plan_path=target)
    finally:
        os.close(holder)
    assert not any(path.exists() for path in dead)
    assert live.exists() and mine.exists() and target.read_text() == "# v2\n"


SIGKILL_WRITER = """
import sys
from pathlib import Path
from planview.plan.store import PlanStore
store = PlanStore(Path(sys.argv[1]))
target = Path(sys.argv[2])
print("ready", flush=True)
n = 0
while True:
    n += 1
    store.write("Plan", ("# v%d\\n" % n) + "x" * 200_000, plan_path=target)
"""


def test_sigkilled_writers_leave_no_temp_files_behind_for_long(tmp_path: Path) -> None:
    import time

    home = tmp_path / ".planview"
    store = PlanStore(home)
    target = store.write("Plan", "# v0\n").path
    for _ in range(8):
        writer = subprocess.Popen(
            [sys.executable, "-c", SIGKILL_WRITER, str(home), str(target)], stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(0.05)
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        writer.stdout.close()
    old = time.time() - 60
    for leftover in store.plans_dir.glob(".*.tmp"):
        os.utime(leftover, (old, old))  # instead of waiting out STALE_AFTER
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from planview.plan.store import PlanStore;"
            "PlanStore(Path(sys.argv[1])).write('Plan', '# last\\n', plan_path=Path(sys.argv[2]))",
            str(home),
            str(target),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert list(store.plans_dir.glob(".*.tmp")) == []
    assert target.read_text() == "# last\n"
