"""Atomic writes: temp file in the same folder, fsync, os.replace, fsync of the folder; exact bytes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from planview import atomic
from planview.atomic import atomic_write
from planview.home import HOME_GITIGNORE
from planview.plan.errors import PlanContentError, PlanStoreError, PlanTooLargeError
from planview.plan.store import MAX_PLAN_BYTES, PlanStore


class Recorder:
    """Records the syscalls atomic_write makes, in order, while still doing them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[tuple] = []
        real_fsync, real_replace, real_open = os.fsync, os.replace, os.open

        def fsync(fd: int) -> None:
            mode = os.fstat(fd).st_mode
            self.events.append(("fsync", "dir" if stat.S_ISDIR(mode) else "file"))
            real_fsync(fd)

        def replace(src, dst, *, src_dir_fd=None, dst_dir_fd=None) -> None:
            self.events.append(("replace", src, dst, src_dir_fd == dst_dir_fd))
            real_replace(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

        def open_(path, flags, mode=0o777, *, dir_fd=None) -> int:
            if flags & os.O_CREAT:
                self.events.append(("create", os.fspath(path), dir_fd is not None))
            return real_open(path, flags, mode, dir_fd=dir_fd)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)
        monkeypatch.setattr(os, "open", open_)


def test_atomic_write_recipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "plan.md"
    target.write_text("old\n")
    rec = Recorder(monkeypatch)
    atomic_write(target, "new\n")
    kinds = [event[0] for event in rec.events]
    assert kinds == ["create", "fsync", "replace", "fsync"]
    create, fsync_file, replace, fsync_dir = rec.events
    temp = create[1]
    # Temp file: a bare, hidden name created relative to the destination's folder (same filesystem).
    assert os.sep not in temp and temp.startswith(".plan.md.") and temp.endswith(".tmp")
    assert create[2] is True
    assert fsync_file == ("fsync", "file")
    assert replace == ("replace", temp, "plan.md", True)
    assert fsync_dir == ("fsync", "dir")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.md"]  # no temp left behind


def test_bytes_are_written_exactly(tmp_path: Path) -> None:
    target = tmp_path / "plan.md"
    text = "# Title\r\n\r\n- [ ] café ☕\r\nlast line without newline"
    atomic_write(target, text)
    assert target.read_bytes() == text.encode("utf-8")  # CRLF kept, no newline added
    atomic_write(target, b"\xff\x00raw")
    assert target.read_bytes() == b"\xff\x00raw"


def test_permissions_kept_or_set(tmp_path: Path) -> None:
    target = tmp_path / "plan.md"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write(target, "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    atomic_write(target, "newer", mode=0o444)
    assert stat.S_IMODE(target.stat().st_mode) == 0o444
    fresh = tmp_path / "fresh.md"
    old_umask = os.umask(0o022)
    try:
        atomic_write(fresh, "x")
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o644


def test_failed_write_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "plan.md"
    target.write_text("old\n")

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        atomic_write(target, "new\n")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.md"]


def test_store_write_failure_is_a_typed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = PlanStore(tmp_path / ".planview")
    written = store.write("Plan", "# old\n")

    def full_disk(fd: int, data) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(
        PlanStoreError,
        match="the disk is full: free some space, then try again; the previous plan is unchanged",
    ):
        store.write("Plan", "# new\n", plan_path=written.path)
    monkeypatch.undo()
    assert written.path.read_text() == "# old\n"
    assert [p.name for p in store.plans_dir.iterdir()] == [written.path.name]


def test_exclusive_create_never_replaces(tmp_path: Path) -> None:
    fd = atomic.open_dir(tmp_path)
    try:
        assert atomic.write_in_dir(fd, "a.md", "first", exclusive=True) is True
        assert atomic.write_in_dir(fd, "a.md", "second", exclusive=True) is False
    finally:
        os.close(fd)
    assert (tmp_path / "a.md").read_text() == "first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_write_replaces_a_symlink_never_its_target(tmp_path: Path) -> None:
    # atomic_write itself (used for state files) renames over a link: the target is untouched.
    outside = tmp_path / "outside.md"
    outside.write_text("keep")
    link = tmp_path / "link.md"
    link.symlink_to(outside)
    atomic_write(link, "new")
    assert outside.read_text() == "keep"
    assert not link.is_symlink() and link.read_text() == "new"


# ---------------------------------------------------------------------------------- store writes


def test_write_creates_home_gitignore_and_exact_content(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    content = "# Plan\r\n\r\n## Steps\r\n- [ ] one\r\n"
    written = store.write("My plan", content)
    assert (store.home / ".gitignore").read_text() == HOME_GITIGNORE
    assert written.path.parent == store.plans_dir
    assert written.path.read_bytes() == content.encode()
    assert written.bytes == len(content.encode())
    assert store.read(written.path) == content  # newline="" on the way back too


def test_overwrite_with_plan_path(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    written = store.write("Plan", "# v1\n")
    again = store.write("Plan", "# v2\n", plan_path=written.path)
    assert again.path == written.path
    assert written.path.read_text() == "# v2\n"
    assert len(list(store.plans_dir.iterdir())) == 1


def test_size_cap(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    at_cap = "#" + "x" * (MAX_PLAN_BYTES - 1)
    assert store.write("Big", at_cap).bytes == MAX_PLAN_BYTES
    with pytest.raises(PlanTooLargeError, match=r"262,145 bytes, over the 256 KiB limit; shorten it"):
        store.write("Bigger", at_cap + "x")
    # Bytes, not characters: 2-byte characters reach the cap at half the length.
    with pytest.raises(PlanTooLargeError):
        store.write("Accents", "é" * (MAX_PLAN_BYTES // 2 + 1))
    written = store.write("Keep", "# keep\n")
    with pytest.raises(PlanTooLargeError):
        store.write("Keep", "x" * (MAX_PLAN_BYTES + 1), plan_path=written.path)
    assert written.path.read_text() == "# keep\n"


@pytest.mark.parametrize("content", ["", "   \n\n"])
def test_empty_content_refused(tmp_path: Path, content: str) -> None:
    store = PlanStore(tmp_path / ".planview")
    with pytest.raises(PlanContentError, match="empty"):
        store.write("Plan", content)


def test_unpaired_surrogate_refused(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    with pytest.raises(PlanContentError, match="not valid Unicode"):
        store.write("Plan", "# Plan \ud800\n")
