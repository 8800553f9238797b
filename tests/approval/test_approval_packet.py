"""The evidence packet: canonical JSON, a stable hash, verified on load."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview.approval.approvals import Approvals
from planview.approval.errors import EvidenceError
from planview.approval.packet import EvidencePacket, build_packet
from planview.plan.store import PlanStore

PLAN = """\
# Migrate sessions to Redis

## Goal
Move session storage out of process memory — café-safe ✓.

## Context
Sessions live in a dict in `app/sessions.py`.

## Out of scope
Changing the cookie format.

## Steps
1. [x] Add a Redis client
2. [ ] Swap the session store
   - keep the old one behind a flag
3. [ ] Remove the dict

## Risks
### Data loss
Sessions vanish on deploy.

## Verification
Log in, restart, still logged in.

## Assumptions
Redis 7 is available.

## Open questions
- TTL of 30 days?
"""

ARGS = dict(
    plan=".planview/plans/x.md",
    artifact="artifact:00000000-0000-5000-8000-000000000000",
    sha256="a" * 64,
    size=123,
    canonical_sha256="b" * 64,
    approver="Ada Reviewer <ada@example.com>",
    at="2026-01-14T10:30:00Z",
    commit="c" * 40,
)

BUILDER = """
import json, sys
from planview.approval.packet import build_packet
args = json.loads(sys.argv[1])
packet = build_packet(sys.stdin.read(), **args)
print(packet.sha256)
"""


def test_sections_steps_and_approval() -> None:
    data = build_packet(PLAN, **ARGS).data
    assert data["title"] == "Migrate sessions to Redis"
    assert data["goal"] == [
        {"title": "Goal", "text": "Move session storage out of process memory — café-safe ✓."}
    ]
    assert data["context"][0]["text"].startswith("Sessions live")
    assert data["scope"][0]["title"] == "Out of scope"
    assert data["risks"][0]["text"] == "### Data loss\nSessions vanish on deploy."
    assert data["verification"][0]["text"] == "Log in, restart, still logged in."
    assert data["assumptions"][0]["text"] == "Redis 7 is available."
    assert data["open_questions"][0]["text"] == "- TTL of 30 days?"
    assert [(s["n"], s["text"], s["done"]) for s in data["steps"]] == [
        (1, "Add a Redis client", True),
        (2, "Swap the session store", False),
        (3, "Remove the dict", False),
    ]
    assert data["artifact"]["id"] == ARGS["artifact"] and data["artifact"]["sha256"] == "a" * 64
    assert data["approval"] == {"approver": ARGS["approver"], "at": ARGS["at"], "commit": "c" * 40}


def test_absent_sections_are_left_out() -> None:
    data = build_packet("# Tiny\n\n- [ ] one\n- [ ] two\n", **ARGS).data
    for key in ("goal", "context", "scope", "risks", "verification", "assumptions", "open_questions"):
        assert key not in data
    assert len(data["steps"]) == 2


def test_canonical_json_and_hash() -> None:
    packet = build_packet(PLAN, **ARGS)
    text = packet.to_json()
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert "café" in text and "\\u" not in text and "\n" not in text.replace("\\n", "")
    assert packet.sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert packet.to_bytes() == text.encode("utf-8")


def test_hash_is_stable_across_processes_and_hash_seeds() -> None:
    expected = build_packet(PLAN, **ARGS).sha256
    for seed in ("0", "1", "4242", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", BUILDER, json.dumps(ARGS)],
            input=PLAN.encode("utf-8"),
            capture_output=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode()
        assert done.stdout.decode().strip() == expected, f"PYTHONHASHSEED={seed}"


def test_load_verifies_and_refuses_a_mismatch(tmp_path: Path) -> None:
    packet = build_packet(PLAN, **ARGS)
    path = tmp_path / "x.packet.json"
    packet.save(path)
    assert path.read_bytes() == packet.to_bytes()
    assert EvidencePacket.load(path, packet.sha256) == packet
    os.chmod(path, 0o644)
    path.write_bytes(packet.to_bytes().replace(b"Redis 7", b"Redis 6"))
    with pytest.raises(EvidenceError, match="does not match its recorded hash"):
        EvidencePacket.load(path, packet.sha256)
    with pytest.raises(EvidenceError, match="missing"):
        EvidencePacket.load(tmp_path / "gone.json", packet.sha256)


def test_load_refuses_non_canonical_bytes(tmp_path: Path) -> None:
    packet = build_packet(PLAN, **ARGS)
    pretty = json.dumps(packet.data, indent=2).encode()
    path = tmp_path / "p.json"
    path.write_bytes(pretty)
    with pytest.raises(EvidenceError, match="canonical"):
        EvidencePacket.load(path, hashlib.sha256(pretty).hexdigest())


def test_approval_saves_the_packet_beside_the_artifact(project: Path) -> None:
    store = PlanStore.for_cwd()
    plan = store.write("Migrate sessions", PLAN).path
    approvals = Approvals(store.home, store.project_root)
    record = approvals.approve(plan, channel="test")
    path = approvals.artifact_path(record).with_suffix(".packet.json")
    assert path.exists()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == record.packet_sha256
    packet = approvals.packet(record)
    assert packet.sha256 == record.packet_sha256
    assert packet.data["approval"]["approver"] == record.approver
    assert packet.data["artifact"]["path"] == approvals.artifact_path(record).relative_to(project).as_posix()
    assert packet.data["plan"] == record.plan

    path.unlink()  # a crash before it was saved: rebuilt to the same hash
    assert approvals.packet(record).sha256 == record.packet_sha256
    assert path.exists()

    os.chmod(path, 0o644)
    path.write_bytes(path.read_bytes().replace(b"Redis", b"Mongo"))
    with pytest.raises(EvidenceError):
        approvals.packet(record)


def test_packet_of_every_corpus_plan(corpus: list[Path]) -> None:
    for path in corpus:
        packet = build_packet(path.read_text(encoding="utf-8"), **ARGS)
        assert packet.data["title"]
        assert len(packet.data["steps"]) <= 50
        assert EvidencePacket.from_data(json.loads(packet.to_json())).sha256 == packet.sha256
