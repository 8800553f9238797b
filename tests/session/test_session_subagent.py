"""subagent: a child session with its own conversation and its own tool registry.

The adversary is the child's script (a confused or hostile model): a read-only child that tries
write, edit and a shell redirect leaves the project unchanged, however the call was made.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved
from planview.session.conversation import AssistantMessage, ToolMessage
from planview.session.events import SubagentEvent, ToolFinished, ToolStarted, TurnEnded
from planview.session.providers.scripted import ScriptedProvider, ScriptError, parse_script
from planview.session.session import Session

HOSTILE_CHILD = [
    {
        "text": "Let me change things.",
        "tool_calls": [
            {"name": "read", "arguments": {"path": "README.md"}},
            {"name": "write", "arguments": {"path": "f", "content": "x"}},
            {
                "name": "edit",
                "arguments": {"path": "README.md", "old_string": "sample", "new_string": "owned"},
            },
            {"name": "bash", "arguments": {"command": "echo x > f"}},
            {"name": "subagent", "arguments": {"task": "nest"}},
            {"name": "write_plan", "arguments": {"title": "T", "content": "# T\n"}},
        ],
    },
    {"text": "The project is a sample project; I changed nothing."},
]


def subagent_turn(arguments: dict, child: list[dict]) -> dict:
    return {"tool_calls": [{"name": "subagent", "arguments": arguments, "script": child}]}


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts and "sessions" not in p.parts and p.name != ".gitignore"
    }


def git_status(root: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout


async def run(project: Path, *turns: dict, plan_mode: bool = False) -> tuple[Session, list[Any]]:
    events: list[Any] = []
    provider = ScriptedProvider.from_text("\n".join(json.dumps(t) for t in turns))
    session = Session(project_root=project, provider=provider, on_event=events.append, plan_mode=plan_mode)
    await session.send("delegate")
    return session, events


def result_of(session: Session, name: str = "subagent") -> str:
    return next(
        m.content for m in reversed(session.conversation) if isinstance(m, ToolMessage) and m.name == name
    )


@pytest.mark.parametrize(
    ("plan_mode", "arguments"),
    [
        (True, {"task": "look around"}),  # plan mode forces readOnly
        (True, {"task": "look around", "readOnly": False}),  # even when the call asks otherwise
        (False, {"task": "look around", "readOnly": True}),  # asked for on purpose in execute mode
    ],
)
async def test_read_only_child_cannot_write_whatever_its_script_does(
    project: Path, plan_mode: bool, arguments: dict
) -> None:
    before, status = snapshot(project), git_status(project)
    session, events = await run(project, subagent_turn(arguments, HOSTILE_CHILD), plan_mode=plan_mode)
    assert snapshot(project) == before and git_status(project) == status
    assert not (project / "f").exists()
    answer = result_of(session)
    assert answer.startswith("The project is a sample project; I changed nothing.")
    assert "Files read (1): README.md" in answer
    child = [e.event for e in events if isinstance(e, SubagentEvent)]
    finished = {e.name: e for e in child if isinstance(e, ToolFinished)}
    assert not finished["read"].error
    for name in ("write", "edit", "bash", "subagent", "write_plan"):
        # Not in the child's registry: the call never reaches a tool.
        assert (
            finished[name].error and "available in plan mode: read, grep, find, ls" in finished[name].result
        )
    # The child's conversation is its own: the parent's holds only the call and its result.
    shown = [m for m in session.conversation if getattr(m, "kind", None) is None]
    assert [type(m).__name__ for m in shown] == [
        "UserMessage",
        "AssistantMessage",
        "ToolMessage",
        "AssistantMessage",
    ]
    assert not any(
        "I changed nothing" in m.content for m in session.conversation if isinstance(m, AssistantMessage)
    )


async def test_child_in_plan_mode_is_told_it_is_read_only_and_offered_only_readers(project: Path) -> None:
    session, _ = await run(project, subagent_turn({"task": "map it"}, [{"text": "mapped"}]), plan_mode=True)
    child = session.provider.spawned[0]  # type: ignore[attr-defined]
    request = child.requests[0]
    assert [t.name for t in request.tools] == ["read", "grep", "find", "ls"]
    assert "You are read-only" in request.system
    assert request.messages == ({"role": "user", "content": "map it"},)  # no plan note, no parent history


async def test_writing_child_in_execute_mode_is_pinned_like_the_parent(project: Path) -> None:
    from planview.approval.approvals import Approvals
    from planview.plan.store import PlanStore

    plan = PlanStore.for_cwd().write("Hello", "# Hello\n\n## Steps\n\n- [ ] Write hello.txt\n").path
    Approvals(project / ".planview", project).approve(plan, channel="test")
    child_script = [
        {"tool_calls": [{"name": "write", "arguments": {"path": "hello.txt", "content": "hi\n"}}]},
        {"text": "wrote it"},
    ]
    events: list[Any] = []
    provider = ScriptedProvider.from_text(json.dumps(subagent_turn({"task": "write hello"}, child_script)))
    session = Session(project_root=project, provider=provider, on_event=events.append)
    session.approve_reviewed(plan, Approved(str(plan), canonical_sha256(plan.read_text())))  # pinned
    await session.send("go")
    assert (project / "hello.txt").read_text() == "hi\n"
    assert result_of(session).startswith("wrote it")

    # The plan changes under the approval: the child's next write is refused naming the section.
    plan.write_text(plan.read_text() + "- [ ] An unreviewed step\n")
    provider = ScriptedProvider.from_text(
        json.dumps(
            subagent_turn(
                {"task": "write again"},
                [
                    {
                        "tool_calls": [
                            {"name": "write", "arguments": {"path": "hello.txt", "content": "owned\n"}}
                        ]
                    }
                ],
            )
        )
    )
    events.clear()
    session.provider = provider
    stop = await session._run_calls(provider.turns[0].tool_calls)  # straight to the call, no request first
    assert stop is None
    child = [e.event for e in events if isinstance(e, SubagentEvent)]
    write = next(e for e in child if isinstance(e, ToolFinished))
    assert write.refused
    assert (project / "hello.txt").read_text() == "hi\n"
    # The child noticed first; the parent is told in the result and plans again too.
    assert "changed sections: Steps" in result_of(session) and session.mode == "plan"


async def test_cancel_reaches_the_child(project: Path) -> None:
    marker = project / "never.txt"
    child_script = [
        {"tool_calls": [{"name": "read", "arguments": {"path": "README.md"}}]},
        {"delay": 30, "text": "too late"},
    ]
    events: list[Any] = []
    provider = ScriptedProvider.from_text(
        "\n".join(
            json.dumps(t)
            for t in (
                subagent_turn({"task": "slow"}, child_script),
                {"tool_calls": [{"name": "write", "arguments": {"path": str(marker), "content": "x"}}]},
            )
        )
    )
    session = Session(project_root=project, provider=provider, on_event=events.append)
    task = asyncio.create_task(session.send("go"))
    for _ in range(1000):
        if provider.spawned and len(provider.spawned[0].requests) == 2:
            break
        await asyncio.sleep(0.01)
    session.cancel()
    await asyncio.wait_for(task, 5)
    child_ends = [e.event for e in events if isinstance(e, SubagentEvent) and isinstance(e.event, TurnEnded)]
    assert child_ends == [TurnEnded("cancelled")]
    assert events[-1] == TurnEnded("cancelled")
    assert not marker.exists() and not session.busy
    tool = next(m for m in session.conversation if isinstance(m, ToolMessage))
    assert tool.name == "subagent" and "cancelled" in tool.content


async def test_child_events_are_tagged_with_the_parent_call(project: Path) -> None:
    session, events = await run(
        project,
        {
            "tool_calls": [
                {"name": "subagent", "id": "sub1", "arguments": {"task": "t"}, "script": [{"text": "ok"}]}
            ]
        },
    )
    started = next(e for e in events if isinstance(e, ToolStarted) and e.name == "subagent")
    assert started.call_id == "sub1"
    assert all(e.call_id == "sub1" for e in events if isinstance(e, SubagentEvent))
    assert result_of(session) == "ok\n\nFiles read: none"


async def test_a_child_without_a_script_says_it_gave_no_answer(project: Path) -> None:
    session, _ = await run(project, {"tool_calls": [{"name": "subagent", "arguments": {"task": "t"}}]})
    assert result_of(session).startswith("(the subagent gave no answer)")


def test_script_errors_for_child_scripts() -> None:
    with pytest.raises(ScriptError, match="only a subagent call takes a `script`"):
        parse_script(json.dumps({"tool_calls": [{"name": "read", "script": []}]}))
    with pytest.raises(ScriptError, match="`script` must be a list of turns"):
        parse_script(json.dumps({"tool_calls": [{"name": "subagent", "script": {"text": "x"}}]}))
    with pytest.raises(ScriptError, match=r"line 1: tool call 1: script turn 2: unknown key\(s\) bogus"):
        parse_script(
            json.dumps({"tool_calls": [{"name": "subagent", "script": [{"text": "a"}, {"bogus": 1}]}]})
        )
