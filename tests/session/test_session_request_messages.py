"""Request messages are built as the conversation grows (issue 28), and say exactly what a rebuild says.

The oracle is the rule written out once more: every visible message in order, the newest plan note
at its place only while planning, the evidence packet first only while executing.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from planview.session.conversation import AssistantMessage, ToolCallRecord, ToolMessage, UserMessage
from planview.session.lifecycle import PACKET_KIND, PLAN_NOTE_KIND, MessagesView, RequestMessages

REPO = Path(__file__).resolve().parents[2]


def oracle(conversation, mode, packet):
    newest = None
    if mode == "plan":
        notes = [i for i, m in enumerate(conversation) if getattr(m, "kind", None) == PLAN_NOTE_KIND]
        newest = notes[-1] if notes else None
    out = [packet.wire()] if packet is not None and mode == "execute" else []
    for i, m in enumerate(conversation):
        kind = getattr(m, "kind", None)
        if kind is None or (kind == PLAN_NOTE_KIND and i == newest):
            out.append(m.wire())
    return tuple(out)


def _message(rng: random.Random, n: int):
    pick = rng.random()
    if pick < 0.15:
        return UserMessage(f"note {n}", PLAN_NOTE_KIND)
    if pick < 0.2:
        return UserMessage(f"other hidden {n}", "other")
    if pick < 0.45:
        return UserMessage(f"user {n}")
    if pick < 0.75:
        return AssistantMessage(f"reply {n}", (ToolCallRecord(f"c{n}", "read", {"path": "x"}),))
    return ToolMessage(f"c{n}", "read", f"result {n}")


def test_incremental_requests_equal_a_rebuild_through_growth_inserts_and_resets() -> None:
    rng = random.Random(7)
    packet = UserMessage("<change_evidence_packet>{}</change_evidence_packet>", PACKET_KIND)
    builder = RequestMessages()
    conversation: list = []
    views = []
    for step in range(400):
        action = rng.random()
        if action < 0.75:
            conversation.append(_message(rng, step))
        elif action < 0.85 and conversation:  # a cancelled turn's result inserted before the end
            conversation.insert(rng.randrange(len(conversation)), _message(rng, step))
        elif action < 0.9:
            conversation = list(conversation)  # resumed: a new list with the same messages
        mode = rng.choice(("plan", "execute"))
        with_packet = packet if rng.random() < 0.5 else None
        view = builder.build(conversation, mode, with_packet)
        expected = oracle(conversation, mode, with_packet)
        assert view == expected and tuple(view) == expected and len(view) == len(expected)
        assert [view[i] for i in range(-len(view), len(view))] == list(expected) * 2
        assert view[1:3] == expected[1:3]
        views.append((view, expected))
    # A view keeps the messages it was built with, however the conversation grew afterwards.
    assert all(tuple(view) == expected for view, expected in views if view._wires is builder._wires)


def test_a_view_shares_the_list_instead_of_copying_it() -> None:
    builder = RequestMessages()
    conversation = [UserMessage(f"m{i}") for i in range(1000)]
    first = builder.build(conversation, "plan")
    conversation.append(UserMessage("next"))
    second = builder.build(conversation, "plan")
    assert isinstance(second, MessagesView) and second._wires is first._wires
    assert len(first) == 1000 and len(second) == 1001 and second[-1]["content"] == "next"


def test_the_session_benchmark_runs_with_30_calls() -> None:
    """Issue 28: `benchmarks/session.py --calls 30` crashed in its execute scenario (15 edits left
    src/mod_0.py edited, and the next run's first edit found nothing to replace)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("PLANVIEW_HOME", None)
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "session.py"), "--calls", "30", "--repeat", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "execute mode pinned" in done.stdout
