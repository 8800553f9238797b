"""`planview plans` keeps each plan's summary by stat stamp, safely (issue 28).

A summary is used again only at the very (inode, size, mtime_ns, ctime_ns) it was read at; a cache
that is not what planview wrote is rebuilt; a plan changed in the last moments is not cached.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview.plan import store as store_module
from planview.plan import summary_cache
from planview.plan.store import PlanStore

PLAN = "# Ship it\n\n## Steps\n\n- [x] one\n- [ ] two\n"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PlanStore:
    monkeypatch.setattr(summary_cache, "RACY_NS", 0)  # the tests' files are all written just now
    store = PlanStore(tmp_path / ".planview")
    store.plans_dir.mkdir(parents=True)
    for i in range(3):
        (store.plans_dir / f"2026-01-0{i + 1}-0900-p{i}.md").write_text(PLAN.replace("Ship it", f"Plan {i}"))
    return store


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    real = store_module._summary

    def counting(path: Path, odd: str | None):  # type: ignore[no-untyped-def]
        seen.append(path.name)
        return real(path, odd)

    monkeypatch.setattr(store_module, "_summary", counting)
    return seen


def _rows(store: PlanStore) -> list[tuple[str, int, int]]:
    return [(i.title, i.steps_done, i.steps_total) for i in store.list()]


def test_a_second_listing_reads_no_plan(store: PlanStore, reads: list[str]) -> None:
    first = _rows(store)
    assert len(reads) == 3 and (store.home / "cache" / "plans.json").is_file()
    assert _rows(store) == first and len(reads) == 3


def test_a_same_size_edit_with_its_mtime_put_back_is_read_again(store: PlanStore, reads: list[str]) -> None:
    """utime restores mtime, never ctime: the stamp still moves."""
    _rows(store)
    plan = store.plans_dir / "2026-01-01-0900-p0.md"
    before = os.stat(plan)
    plan.write_text(PLAN.replace("Ship it", "Plan 0").replace("- [ ] two", "- [x] two"))  # same size
    os.utime(plan, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(plan).st_size == before.st_size and os.stat(plan).st_mtime_ns == before.st_mtime_ns
    rows = dict((t, d) for t, d, _ in _rows(store))
    assert rows["Plan 0"] == 2 and reads.count(plan.name) == 2


def test_a_plan_replaced_by_another_file_is_read_again(store: PlanStore, reads: list[str]) -> None:
    _rows(store)
    plan = store.plans_dir / "2026-01-02-0900-p1.md"
    other = store.plans_dir / "other.tmp"
    other.write_text(PLAN.replace("Ship it", "Plan X"))
    st = os.stat(plan)
    os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(other, plan)  # a new inode with the old mtime and size
    assert "Plan X" in [t for t, _, _ in _rows(store)]


@pytest.mark.parametrize(
    "garbage",
    [
        b"not json",
        b"[" * 100_000,
        b'{"version": 99, "plans": {}}',
        b'{"version": 1, "plans": []}',
        b"\xff\xfe",
        b'{"version": 1, "plans": {"2026-01-01-0900-p0.md": [1, 2, 3, 4, "forged", 9, 1, null]}}',
        b'{"version": 1, "plans": {"2026-01-01-0900-p0.md": ["x"]}}',
    ],
)
def test_a_corrupt_cache_is_rebuilt_never_trusted(store: PlanStore, reads: list[str], garbage: bytes) -> None:
    (store.home / "cache").mkdir()
    (store.home / "cache" / "plans.json").write_bytes(garbage)
    assert sorted(t for t, _, _ in _rows(store)) == ["Plan 0", "Plan 1", "Plan 2"] and len(reads) == 3
    data = json.loads((store.home / "cache" / "plans.json").read_text())
    assert data["version"] == 1 and len(data["plans"]) == 3  # rewritten whole


def test_a_forged_entry_under_a_stale_stamp_is_not_shown(store: PlanStore) -> None:
    _rows(store)
    path = store.home / "cache" / "plans.json"
    data = json.loads(path.read_text())
    name = "2026-01-01-0900-p0.md"
    data["plans"][name][2] += 1  # the mtime it claims is not the file's
    data["plans"][name][4] = "Forged title"
    path.write_text(json.dumps(data))
    assert "Forged title" not in [t for t, _, _ in _rows(store)]


def test_a_plan_written_just_now_is_not_cached(store: PlanStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(summary_cache, "RACY_NS", 60 * 10**9)
    _rows(store)
    assert not (store.home / "cache" / "plans.json").exists()  # nothing old enough to keep


def test_removed_plans_leave_the_cache(store: PlanStore) -> None:
    _rows(store)
    (store.plans_dir / "2026-01-03-0900-p2.md").unlink()
    _rows(store)
    assert len(json.loads((store.home / "cache" / "plans.json").read_text())["plans"]) == 2


LIST = "import sys; from planview.plan.store import PlanStore; print(len(PlanStore(__import__('pathlib').Path(sys.argv[1])).list()))"


def test_a_read_only_mount_lists_without_writing(tmp_path: Path) -> None:
    """A read-only checkout (here a read-only bind mount of the home) lists every plan, writes nothing."""
    home = tmp_path / "home" / ".planview"
    (home / "plans").mkdir(parents=True)
    (home / "plans" / "2026-01-01-0900-p.md").write_text(PLAN)
    os.utime(home / "plans" / "2026-01-01-0900-p.md", ns=(10**9, 10**9))
    ro = tmp_path / "ro"
    ro.mkdir()
    done = subprocess.run(
        ["mount", "--bind", "-o", "ro", str(tmp_path / "home"), str(ro)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip("cannot bind-mount read-only here (needs root)")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(ro)], check=True, capture_output=True)
        out = subprocess.run(
            [sys.executable, "-c", LIST, str(ro / ".planview")], capture_output=True, text=True
        )
        assert out.returncode == 0 and out.stdout.strip() == "1", out.stderr
        assert not (home / "cache").exists()
    finally:
        subprocess.run(["umount", str(ro)], check=False)
