"""The ledger under faults: a full disk, a failed fsync, a forged line, a torn tail, hostile files."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from planview.approval import ledger as ledger_module
from planview.approval import ledger_chain
from planview.approval.errors import LedgerError
from planview.approval.ledger import Ledger
from planview.approval.ledger_format import GENESIS, canonical_json, sha256_hex


def make_ledger(tmp_path: Path, count: int = 3) -> Ledger:
    ledger = Ledger(tmp_path / "ledger.jsonl")
    for n in range(count):
        ledger.append({"type": "approved", "plan": f"plans/p{n}.md", "approver": "Ada"})
    return ledger


def _enospc_after(limit: int):
    """An os.write that writes at most `limit` bytes in total, then fails with ENOSPC (a short write)."""
    real = os.write
    budget = {"left": limit}

    def write(fd: int, data: bytes) -> int:
        if budget["left"] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        chunk = bytes(data[: budget["left"]])
        budget["left"] -= len(chunk)
        return real(fd, chunk)

    return write


@pytest.mark.parametrize("room", [0, 1, 40])
def test_full_disk_mid_line_rolls_the_append_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, room: int
) -> None:
    ledger = make_ledger(tmp_path)
    before = ledger.path.read_bytes()
    monkeypatch.setattr(ledger_module.os, "write", _enospc_after(room))
    with pytest.raises(LedgerError, match="the disk is full.*nothing was recorded"):
        ledger.append({"type": "approved", "plan": "plans/x.md"})
    monkeypatch.undo()
    assert ledger.path.read_bytes() == before  # no torn line left behind
    assert Ledger(ledger.path).verify().ok
    ledger.append({"type": "approved", "plan": "plans/x.md"})  # space freed: the next append works
    assert Ledger(ledger.path).verify().ok and Ledger(ledger.path).last_seq() == 4


def test_failed_fsync_rolls_the_append_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = make_ledger(tmp_path)
    before = ledger.path.read_bytes()

    def fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(ledger_module.os, "fsync", fsync)
    with pytest.raises(LedgerError, match="I/O error"):
        ledger.append({"type": "approved", "plan": "plans/x.md"})
    monkeypatch.undo()
    assert ledger.path.read_bytes() == before
    assert Ledger(ledger.path).verify().ok


def test_full_disk_for_the_head_records_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = make_ledger(tmp_path)
    before = ledger.path.read_bytes(), ledger.head_path.read_bytes()

    def no_space(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("planview.atomic.atomic_write", no_space)
    with pytest.raises(LedgerError, match="the disk is full.*nothing was recorded"):
        ledger.append({"type": "approved", "plan": "plans/x.md"})
    monkeypatch.undo()
    assert (ledger.path.read_bytes(), ledger.head_path.read_bytes()) == before


def test_full_disk_for_the_final_head_keeps_the_recorded_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line is on disk and the pending head announced it: the event counts, the next append catches up."""
    ledger = make_ledger(tmp_path)
    from planview import atomic

    real, calls = atomic.atomic_write, []

    def second_fails(*args: object, **kwargs: object) -> None:
        calls.append(args)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(*args, **kwargs)

    monkeypatch.setattr(atomic, "atomic_write", second_fails)
    record = ledger.append({"type": "approved", "plan": "plans/x.md"})
    monkeypatch.undo()
    assert record["seq"] == 4
    assert Ledger(ledger.path).verify().ok and Ledger(ledger.path).last_seq() == 4
    ledger.append({"type": "rejected", "plan": "plans/x.md"})
    assert Ledger(ledger.path).verify().ok and json.loads(ledger.head_path.read_text())["seq"] == 5


def _forged_line(ledger: Ledger, **fields: object) -> bytes:
    lines = ledger.path.read_bytes().splitlines()
    record = {
        "type": "approved",
        "plan": "plans/p0.md",
        "approver": "Mallory",
        "at": "2026-01-01T00:00:00Z",
        "seq": len(lines) + 1,
        "prev": sha256_hex(lines[-1]) if lines else GENESIS,
        **fields,
    }
    return canonical_json(record).encode()


def test_a_forged_correctly_chained_line_appended_without_the_head_is_caught(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    with ledger.path.open("ab") as fh:
        fh.write(_forged_line(ledger) + b"\n")
    result = Ledger(ledger.path).verify()
    assert result.first_bad_seq == 4 and "appended outside planview" in result.describe()
    with pytest.raises(LedgerError, match="line 4"):
        Ledger(ledger.path).events(plan="plans/p0.md")


def test_editing_the_newest_line_and_moving_the_head_back_is_caught(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    lines = ledger.path.read_bytes().splitlines(keepends=True)
    edited = json.loads(lines[2])
    edited["approver"] = "Mallory"
    lines[2] = canonical_json(edited).encode() + b"\n"
    ledger.path.write_bytes(b"".join(lines))
    # The head moved back one, as if the edited line were an append whose head was not written yet.
    prefix = b"".join(lines[:2])
    moved = {
        "seq": 2,
        "sha256": sha256_hex(lines[1][:-1]),
        "bytes": len(prefix),
        "digest": sha256_hex(prefix),
    }
    ledger.head_path.write_text(canonical_json(moved) + "\n")
    result = Ledger(ledger.path).verify()
    assert result.first_bad_seq == 3 and "appended outside planview" in result.describe()
    legacy = {"seq": 2, "sha256": sha256_hex(lines[1][:-1])}  # a head in the older format: strict too
    ledger.head_path.write_text(canonical_json(legacy) + "\n")
    assert Ledger(ledger.path).verify().first_bad_seq == 3


def test_a_recomputed_chain_is_caught_by_the_head_digest(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    lines = [json.loads(line) for line in ledger.path.read_bytes().splitlines()]
    lines[0]["approver"] = "Mallory"
    prev, out = GENESIS, []
    for record in lines:  # every hash recomputed, the head's newest-line hash matched too
        record["prev"] = prev
        raw = canonical_json(record).encode()
        out.append(raw + b"\n")
        prev = sha256_hex(raw)
    ledger.path.write_bytes(b"".join(out))
    head = json.loads(ledger.head_path.read_text())
    head["sha256"] = prev
    ledger.head_path.write_text(canonical_json(head) + "\n")
    result = Ledger(ledger.path).verify()
    assert not result.ok and "rewritten" in result.describe()
    with pytest.raises(LedgerError, match="rewritten"):
        Ledger(ledger.path).events()


def test_torn_tail_is_reported_with_the_repair_and_repair_keeps_a_backup(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    good = ledger.path.read_bytes()
    torn = good + b'{"approver":"Ada","at":"2026-'
    ledger.path.write_bytes(torn)
    with pytest.raises(LedgerError, match=r"torn.*planview audit --repair"):
        Ledger(ledger.path).events()
    done = Ledger(ledger.path).repair()
    assert done.removed == len(torn) - len(good) and done.line == 4
    assert done.backup is not None and done.backup.read_bytes() == torn
    assert ledger.path.read_bytes() == good
    assert Ledger(ledger.path).verify().ok
    assert Ledger(ledger.path).repair().removed == 0  # nothing torn: nothing done
    ledger.append({"type": "approved", "plan": "plans/x.md"})
    assert Ledger(ledger.path).verify().ok


def test_repair_removes_nothing_when_the_torn_line_is_not_the_only_problem(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    lines = ledger.path.read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b"Ada", b"Eve")
    damaged = b"".join(lines) + b'{"torn'
    ledger.path.write_bytes(damaged)
    with pytest.raises(LedgerError, match="removes only a torn last line"):
        Ledger(ledger.path).repair()
    assert ledger.path.read_bytes() == damaged
    assert not list(tmp_path.glob("*.bak"))


def _in_thread_with_timeout(fn, seconds: float = 5.0) -> BaseException | None:
    box: dict[str, BaseException | None] = {"error": None, "done": None}

    def run() -> None:
        try:
            fn()
        except BaseException as exc:
            box["error"] = exc
        box["done"] = True  # type: ignore[assignment]

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert box["done"], f"blocked for more than {seconds} s"
    return box["error"]


@pytest.mark.parametrize("name", ["ledger.jsonl", "ledger.head", "ledger.lock"])
@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_fifo_or_folder_in_place_of_a_ledger_file_is_refused_at_once(
    tmp_path: Path, name: str, kind: str
) -> None:
    ledger = make_ledger(tmp_path)
    target = tmp_path / name
    target.unlink()
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    for action in (
        lambda: Ledger(ledger.path).verify(),
        lambda: Ledger(ledger.path).events(),
        lambda: Ledger(ledger.path).append({"type": "approved", "plan": "plans/x.md"}),
    ):
        error = _in_thread_with_timeout(action)
        if name == "ledger.lock" and kind == "folder" and error is None:
            continue  # a reader that cannot open the lock reads unlocked: that is fine
        assert isinstance(error, LedgerError), repr(error)
        assert "not a regular file" in str(error) or "folder" in str(error)


def test_dev_zero_as_the_ledger_is_refused(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    ledger.path.unlink()
    ledger.path.symlink_to("/dev/zero")
    error = _in_thread_with_timeout(lambda: Ledger(ledger.path).verify())
    assert isinstance(error, LedgerError) and "a device" in str(error)


def test_deeply_nested_line_is_a_problem_not_a_recursion_error(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    good = ledger.path.read_bytes()
    ledger.path.write_bytes(good + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    result = Ledger(ledger.path).verify()
    assert result.first_bad_seq == 4 and "nested too deeply" in result.describe()
    ledger.path.write_bytes(good)
    ledger.head_path.write_bytes(b"[" * 4000)
    assert "unreadable" in Ledger(ledger.path).verify().describe()


def test_reads_parse_only_the_lines_of_the_plan_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Incremental from the head: no full walk and no parse of other plans' lines."""
    ledger = make_ledger(tmp_path, 30)
    walks: list[int] = []
    parsed: list[bytes] = []
    real_check, real_loads = ledger_chain.check, ledger_module.json.loads
    monkeypatch.setattr(ledger_chain, "check", lambda *a: walks.append(1) or real_check(*a))

    def loads(raw, *args, **kwargs):
        parsed.append(raw)
        return real_loads(raw, *args, **kwargs)

    monkeypatch.setattr(ledger_module.json, "loads", loads)
    fresh = Ledger(ledger.path)
    found = fresh.events(plan="plans/p7.md")
    assert [e["seq"] for e in found] == [8]
    assert fresh.last_seq() == 30
    lines = [raw for raw in parsed if b'"digest"' not in raw]  # the head is read too
    assert walks == [] and len(lines) == 1 and b"p7.md" in lines[0]
    fresh.append({"type": "revoked", "plan": "plans/p7.md"})
    assert walks == []
    assert [e["type"] for e in Ledger(ledger.path).events(plan="plans/p7.md")] == ["approved", "revoked"]


def test_a_head_in_the_older_format_is_still_read(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path)
    lines = ledger.path.read_bytes().splitlines()
    ledger.head_path.write_text(canonical_json({"seq": 3, "sha256": sha256_hex(lines[-1])}) + "\n")
    assert Ledger(ledger.path).verify().ok and len(Ledger(ledger.path).events()) == 3
    ledger.append({"type": "approved", "plan": "plans/x.md"})
    assert "digest" in json.loads(ledger.head_path.read_text())  # upgraded by the next append


READ_ONLY = """
import sys
from pathlib import Path
from planview.approval.ledger import Ledger
ledger = Ledger(Path(sys.argv[1]))
print(ledger.verify().ok, len(ledger.events()), ledger.last_seq())
"""


def _mount_tmpfs(target: Path, size: str) -> None:
    target.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(target)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or 'mount failed'}): needs root")


def test_reads_work_on_a_read_only_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _mount_tmpfs(home, "1m")
    try:
        ledger = make_ledger(home)
        (home / "ledger.lock").unlink()  # a home that was copied without its lock
        subprocess.run(["mount", "-o", "remount,ro", str(home)], check=True)
        done = subprocess.run(
            [sys.executable, "-c", READ_ONLY, str(ledger.path)], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["True", "3", "3"]
        with pytest.raises(LedgerError, match="read-only"):
            Ledger(ledger.path).append({"type": "approved", "plan": "plans/x.md"})
    finally:
        subprocess.run(["umount", str(home)], check=False)


def test_a_really_full_disk_leaves_no_torn_line(tmp_path: Path) -> None:
    """A tmpfs filled to the last byte: the append fails with a message, nothing is half-written."""
    home = tmp_path / "home"
    _mount_tmpfs(home, "64k")
    try:
        ledger = make_ledger(home, 2)
        before = ledger.path.read_bytes()
        filler = home / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"x" * 512):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        failures = 0
        for n in range(20):  # a long event needs more room than is left
            try:
                ledger.append({"type": "approved", "plan": f"plans/{n}.md", "reason": "y" * 8000})
            except LedgerError as exc:
                failures += 1
                assert "disk is full" in str(exc)
            assert Ledger(ledger.path).verify().ok
        assert failures == 20 and ledger.path.read_bytes() == before
        filler.unlink()
        ledger.append({"type": "approved", "plan": "plans/after.md", "reason": "y" * 8000})
        assert Ledger(ledger.path).verify().ok and Ledger(ledger.path).last_seq() == 3
    finally:
        subprocess.run(["umount", str(home)], check=False)


def test_a_full_disk_after_the_ledger_line_keeps_the_approval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The evidence packet could not be saved: the approval stands and the packet is rebuilt on demand."""
    from planview.approval.approvals import Approvals
    from planview.approval.packet import EvidencePacket
    from planview.plan.store import PlanStore

    home = tmp_path / ".planview"
    plan = PlanStore(home, project_root=tmp_path).write("Plan", "# Plan\n\n## Steps\n- [ ] one\n").path
    approvals = Approvals(home, tmp_path)

    def no_space(self: EvidencePacket, path: Path) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(EvidencePacket, "save", no_space)
    record = approvals.approve(plan, approver="Ada", channel="test")
    monkeypatch.undo()
    assert approvals.is_current(plan) and approvals.ledger.verify().ok
    assert approvals.packet(record).sha256 == record.packet_sha256  # rebuilt to the recorded hash


def test_a_full_disk_while_sealing_is_one_typed_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from planview.approval.approvals import Approvals
    from planview.approval.errors import ApprovalError
    from planview.plan.store import PlanStore

    home = tmp_path / ".planview"
    plan = PlanStore(home, project_root=tmp_path).write("Plan", "# Plan\n\n## Steps\n- [ ] one\n").path
    approvals = Approvals(home, tmp_path)

    def no_space(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("planview.atomic.atomic_write", no_space)
    with pytest.raises(ApprovalError, match="the disk is full.*nothing was approved"):
        approvals.approve(plan, approver="Ada", channel="test")
    monkeypatch.undo()
    assert not approvals.is_current(plan) and approvals.ledger.last_seq() == 0
