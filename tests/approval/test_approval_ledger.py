"""The hash-chained ledger: tampering, torn lines, concurrent appends."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from planview.approval.errors import LedgerError
from planview.approval.ledger import Ledger
from planview.approval.ledger_format import GENESIS, canonical_json


def make_ledger(tmp_path: Path, count: int = 5) -> Ledger:
    ledger = Ledger(tmp_path / "ledger.jsonl")
    for n in range(count):
        ledger.append(
            {"type": "approved", "plan": f"plans/p{n}.md", "approver": "Ada", "canonical_sha256": "ab" * 32}
        )
    return ledger


def lines_of(ledger: Ledger) -> list[bytes]:
    return ledger.path.read_bytes().splitlines(keepends=True)


def write_lines(ledger: Ledger, lines: list[bytes]) -> None:
    ledger.path.write_bytes(b"".join(lines))


def test_chain_fields_and_genesis(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 3)
    raw = ledger.path.read_bytes().split(b"\n")[:-1]
    events = [json.loads(line) for line in raw]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert events[0]["prev"] == GENESIS
    assert events[1]["prev"] == hashlib.sha256(raw[0]).hexdigest()
    assert events[2]["prev"] == hashlib.sha256(raw[1]).hexdigest()
    assert all(line == canonical_json(e).encode() for line, e in zip(raw, events, strict=True))
    assert events[0]["at"].endswith("Z")
    result = ledger.verify()
    assert result.ok and len(result.events) == 3 and result.first_bad_seq is None
    assert ledger.events() == result.events


def test_empty_and_missing_ledger_verify(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.jsonl")
    assert ledger.verify().ok and ledger.events() == ()


def test_unknown_type_and_reserved_fields_refused(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.jsonl")
    with pytest.raises(ValueError):
        ledger.append({"type": "aproved"})
    with pytest.raises(ValueError):
        ledger.append({"type": "approved", "seq": 7})
    assert not ledger.path.exists()


@pytest.mark.parametrize("line", [1, 3, 5])
def test_flipped_byte_reports_that_line(tmp_path: Path, line: int) -> None:
    ledger = make_ledger(tmp_path, 5)
    lines = lines_of(ledger)
    target = bytearray(lines[line - 1])
    at = target.index(b"Ada") + 1
    target[at] ^= 0x01  # "Ada" -> "Aea": still valid JSON, only the hash can tell
    lines[line - 1] = bytes(target)
    write_lines(ledger, lines)
    result = ledger.verify()
    assert not result.ok
    assert result.first_bad_seq == line
    assert len(result.events) == line - 1
    with pytest.raises(LedgerError, match=f"line {line}"):
        ledger.events()


def test_flipped_byte_that_breaks_json(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 4)
    lines = lines_of(ledger)
    lines[1] = lines[1].replace(b"{", b"[", 1)
    write_lines(ledger, lines)
    assert ledger.verify().first_bad_seq == 2


@pytest.mark.parametrize("line", [1, 2, 4, 5])
def test_deleted_line(tmp_path: Path, line: int) -> None:
    ledger = make_ledger(tmp_path, 5)
    lines = lines_of(ledger)
    del lines[line - 1]
    write_lines(ledger, lines)
    result = ledger.verify()
    assert not result.ok and result.first_bad_seq == line, result.describe()


def test_inserted_copy_and_forged_line(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 5)
    original = lines_of(ledger)

    copy = original[:3] + [original[1]] + original[3:]  # a duplicate of line 2 as line 4
    write_lines(ledger, copy)
    assert ledger.verify().first_bad_seq == 4

    # A forged event with the right seq and a correct prev still breaks the chain for the next line.
    forged = json.loads(original[2])
    forged.update(seq=3, approver="Mallory", prev=hashlib.sha256(original[1].rstrip(b"\n")).hexdigest())
    write_lines(ledger, original[:2] + [canonical_json(forged).encode() + b"\n"] + original[2:])
    result = ledger.verify()
    assert result.first_bad_seq == 3, result.describe()
    assert "inserted" in result.describe()


def test_reordered_lines(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 5)
    lines = lines_of(ledger)
    lines[2], lines[3] = lines[3], lines[2]
    write_lines(ledger, lines)
    assert ledger.verify().first_bad_seq == 3


def test_last_line_edit_and_truncation_are_caught_by_the_head(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 3)
    lines = lines_of(ledger)
    edited = json.loads(lines[2])
    edited["approver"] = "Mallory"
    write_lines(ledger, lines[:2] + [canonical_json(edited).encode() + b"\n"])
    assert ledger.verify().first_bad_seq == 3

    write_lines(ledger, lines[:2])  # the newest event removed
    result = ledger.verify()
    assert result.first_bad_seq == 3 and "removed" in result.describe()


def test_whitespace_edit_is_caught(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 3)
    lines = lines_of(ledger)
    lines[0] = lines[0].replace(b'","', b'", "', 1)
    write_lines(ledger, lines)
    assert ledger.verify().first_bad_seq == 1


def test_torn_last_line_is_reported_and_never_repaired(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 3)
    good = ledger.path.read_bytes()
    torn = good + b'{"approver":"Ada","at":"2026-'
    ledger.path.write_bytes(torn)
    result = ledger.verify()
    assert not result.ok and result.first_bad_seq == 4
    assert "torn" in result.describe()
    assert len(result.events) == 3
    with pytest.raises(LedgerError, match="line 4.*torn"):
        ledger.events()
    with pytest.raises(LedgerError, match="refusing to append"):
        ledger.append({"type": "approved", "plan": "plans/x.md"})
    assert ledger.path.read_bytes() == torn  # not dropped, not repaired


def test_crash_between_line_and_head_is_tolerated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ledger = make_ledger(tmp_path, 2)
    real = Ledger._write_head
    calls: list[object] = []

    def dies_before_the_final_head(self: Ledger, head: object) -> None:
        calls.append(head)
        if len(calls) == 2:
            raise KeyboardInterrupt  # the process dies after the line, before its final head
        real(self, head)

    monkeypatch.setattr(Ledger, "_write_head", dies_before_the_final_head)
    with pytest.raises(KeyboardInterrupt):
        ledger.append({"type": "approved", "plan": "plans/x.md"})
    monkeypatch.undo()
    assert len(lines_of(ledger)) == 3
    assert Ledger(ledger.path).verify().ok  # the pending head announced this very line
    assert len(Ledger(ledger.path).events()) == 3
    ledger.append({"type": "revoked", "plan": "plans/x.md"})
    assert ledger.verify().ok and len(ledger.events()) == 4
    assert json.loads(ledger.head_path.read_bytes())["seq"] == 4  # caught up


def test_append_refuses_a_tampered_ledger(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 3)
    lines = lines_of(ledger)
    del lines[0]
    write_lines(ledger, lines)
    with pytest.raises(LedgerError, match="line 1"):
        ledger.append({"type": "approved", "plan": "plans/x.md"})


APPENDER = """
import sys
from pathlib import Path
from planview.approval.ledger import Ledger
ledger = Ledger(Path(sys.argv[1]))
for n in range(int(sys.argv[3])):
    ledger.append({"type": "approved", "plan": f"plans/{sys.argv[2]}-{n}.md", "approver": sys.argv[2]})
"""


def test_concurrent_appends_from_several_processes(tmp_path: Path) -> None:
    path = tmp_path / "ledger.jsonl"
    procs = [
        subprocess.Popen([sys.executable, "-c", APPENDER, str(path), f"w{i}", "25"], stderr=subprocess.PIPE)
        for i in range(4)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    ledger = Ledger(path)
    result = ledger.verify()
    assert result.ok, result.describe()
    assert [e["seq"] for e in result.events] == list(range(1, 101))
    plans = {e["plan"] for e in result.events}
    assert len(plans) == 100
    for worker in range(4):  # each writer's own events stay in its order
        mine = [e["plan"] for e in result.events if e["approver"] == f"w{worker}"]
        assert mine == [f"plans/w{worker}-{n}.md" for n in range(25)]


def test_cached_verification_still_sees_later_tampering(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 4)
    assert ledger.verify().ok  # caches the verified prefix
    lines = lines_of(ledger)
    lines[1] = lines[1].replace(b"p1.md", b"p9.md")
    write_lines(ledger, lines)
    assert ledger.verify().first_bad_seq == 2  # same object: the cache must not hide it
    fresh = Ledger(ledger.path)
    assert fresh.verify().first_bad_seq == 2
    events = make_ledger(tmp_path / "other", 2).events()
    with pytest.raises(TypeError):
        events[0]["approver"] = "Eve"  # events are read-only views


def test_deleting_the_whole_ledger_is_caught(tmp_path: Path) -> None:
    ledger = make_ledger(tmp_path, 3)
    ledger.path.unlink()
    result = Ledger(ledger.path).verify()
    assert not result.ok and result.first_bad_seq == 1 and "removed" in result.describe()
    with pytest.raises(LedgerError):
        ledger.append({"type": "approved", "plan": "plans/x.md"})
