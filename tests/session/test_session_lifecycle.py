"""The whole plan-mode lifecycle, driven by a scripted model and a fake UI (no SDK, no network).

explore -> a write and a `git commit` refused with the fix -> plan written -> refine -> approve ->
steps seeded as todos -> files edited -> steps ticked in the file -> a word of the plan changed ->
back to plan mode, the next write refused naming the section -> resume restores all of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planview.approval.approvals import Approvals
from planview.plan.canonical import canonical_sha256
from planview.plan.decision import Approved, Keep, Refine, ReviewDecision
from planview.session.conversation import ToolMessage
from planview.session.events import ModeChanged, Todo, TodosChanged, ToolFinished, TurnEnded
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.session.ui import ReviewRequest

PLAN = """\
# Add a hello script

## Goal

`python hello.py` prints a greeting.

## Approach

A tiny script beside the README.

## Steps

- [ ] Create hello.py that prints a greeting
- [ ] Mention hello.py in the README

## Verification

- `python hello.py` prints `hello`.
"""


class FakeUI:
    """Answers reviews from a queue; each answer may be a decision or a function of the request."""

    channel = "test review"

    def __init__(
        self, *answers: ReviewDecision | Callable[[ReviewRequest], ReviewDecision], confirm: bool = True
    ):
        self.answers = list(answers)
        self.reviews: list[ReviewRequest] = []
        self.confirmations: list[str] = []
        self.confirm_answer = confirm

    async def review(self, request: ReviewRequest) -> ReviewDecision:
        self.reviews.append(request)
        answer = self.answers.pop(0)
        return answer(request) if callable(answer) else answer

    async def confirm(self, title: str, message: str) -> bool:
        self.confirmations.append(title)
        return self.confirm_answer


def approve_as_shown(request: ReviewRequest) -> ReviewDecision:
    return Approved(request.plan_path, canonical_sha256(request.text))


def turns(*lines: dict[str, Any]) -> str:
    return "\n".join(json.dumps(line) for line in lines)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def add_turns(provider: ScriptedProvider, *lines: dict[str, Any]) -> None:
    provider.turns += parse_script(turns(*lines))


def results(events: list[Any], name: str | None = None) -> list[ToolFinished]:
    return [e for e in events if isinstance(e, ToolFinished) and (name is None or e.name == name)]


def plan_notes(messages: Any) -> int:
    return sum(1 for m in messages if "[PLAN MODE ACTIVE]" in str(m.get("content", "")))


async def approved_session(project: Path, events: list[Any] | None = None) -> Session:
    """A session whose model wrote PLAN and had it approved; it is now in execute mode."""
    provider = ScriptedProvider.from_text(
        turns(
            {"tool_calls": [call("write_plan", title="Hello", content=PLAN)]},
            {"tool_calls": [call("exit_plan_mode")]},
            {"text": "approved"},
        )
    )
    on_event = events.append if events is not None else None
    session = Session(
        project_root=project,
        provider=provider,
        ui=FakeUI(approve_as_shown),
        on_event=on_event,
        plan_mode=True,
    )
    await session.send("plan it")
    assert session.mode == "execute"
    return session


async def test_the_whole_lifecycle(project: Path) -> None:
    events: list[Any] = []
    ui = FakeUI(Refine("Also mention it in the README, please."), approve_as_shown)
    provider = ScriptedProvider(())
    session = Session(project_root=project, provider=provider, ui=ui, on_event=events.append, plan_mode=True)
    assert session.mode == "plan" and session.provider_label == "scripted"

    # --- turn 1: explore, try to write and commit (refused), write the plan, get a refinement
    add_turns(
        provider,
        {
            "text": "Looking around.",
            "tool_calls": [
                call("read", path="README.md"),
                call("ls"),
                call("grep", pattern="sample"),
                call("bash", command="git status && git log --oneline -1"),
            ],
        },
        {
            "tool_calls": [
                call("write", path="hello.py", content="print('hello')\n"),
                call("bash", command="git commit -am 'sneaky'"),
                call(
                    "todo",
                    action="add",
                    items=[
                        {"text": "Check the README style", "status": "in_progress"},
                        {"text": "Mention hello.py in the README"},
                    ],
                ),
            ]
        },
        {
            "tool_calls": [
                call(
                    "write_plan",
                    title="Add a hello script",
                    content=PLAN.replace("\n- [ ] Mention hello.py in the README", ""),
                )
            ]
        },
        {"tool_calls": [call("exit_plan_mode")]},
        {"text": "I'll refine the plan."},
    )
    await session.send("add a hello script")
    assert isinstance(events[-1], TurnEnded) and events[-1].reason == "done"
    explored = results(events)[:4]
    assert [r.refused or r.error for r in explored] == [False] * 4
    assert "sample project" in explored[0].result and "init" in explored[3].result
    write, commit = results(events, "write")[0], results(events, "bash")[1]
    assert write.refused and "exit_plan_mode" in write.reason
    assert commit.refused and "read-only git" in commit.reason
    assert not (project / "hello.py").exists()
    plan_path = session.plan_path
    assert plan_path is not None and plan_path.parent == project / ".planview" / "plans"
    refine = results(events, "exit_plan_mode")[0]
    assert (
        "Also mention it in the README, please." in refine.result and "write_plan(plan_path=" in refine.result
    )
    assert session.mode == "plan" and session.approval is None
    # Only the newest plan-mode note is in context, however many requests the turn made.
    assert all(plan_notes(r.messages) == 1 for r in provider.requests)
    assert session.todos == (
        Todo("Check the README style", "in_progress"),
        Todo("Mention hello.py in the README"),
    )

    # --- turn 2: revise the same file, get it approved, execute, tick steps
    rel = session.relative(plan_path)
    add_turns(
        provider,
        {"tool_calls": [call("write_plan", title="Add a hello script", content=PLAN, plan_path=rel)]},
        {"tool_calls": [call("exit_plan_mode")]},
        {
            "tool_calls": [
                call("write", path="hello.py", content="print('hello')\n"),
                call(
                    "set_plan_steps",
                    updates=[
                        {
                            "step": 1,
                            "status": "completed",
                            "expected": "Create hello.py that prints a greeting",
                        }
                    ],
                ),
                call(
                    "edit",
                    path="README.md",
                    old_string="# sample project",
                    new_string="# sample project\n\nRun `python hello.py`.",
                ),
                call("set_plan_steps", updates=[{"step": 2, "status": "completed"}]),
            ]
        },
        {"text": "Done."},
    )
    before = len(provider.requests)
    await session.send("looks good, refine it")
    assert events[-1] == TurnEnded("done")
    assert session.plan_path == plan_path  # the refinement overwrote the same file
    assert len(ui.reviews) == 2 and ui.reviews[1].text == PLAN
    approved = results(events, "exit_plan_mode")[1]
    assert "Plan approved" in approved.result and "source of truth" in approved.result
    assert "1. [ ] Create hello.py that prints a greeting" in approved.result
    assert session.mode == "execute" and session.approval is not None
    ledger = Approvals(project / ".planview", project)
    assert ledger.is_current(plan_path)
    # Steps merged into the existing list: the model's items keep their place and status,
    # the identical step is not added twice.
    seeded = next(e for e in events if isinstance(e, TodosChanged) and len(e.todos) == 3)
    assert seeded.todos == (
        Todo("Check the README style", "in_progress"),
        Todo("Mention hello.py in the README"),
        Todo("Create hello.py that prints a greeting"),
    )
    assert (project / "hello.py").read_text() == "print('hello')\n"
    assert "Run `python hello.py`." in (project / "README.md").read_text()
    text = plan_path.read_text()
    assert (
        "- [x] Create hello.py that prints a greeting" in text
        and "- [x] Mention hello.py in the README" in text
    )
    assert session.todos[1:] == (
        Todo("Mention hello.py in the README", "completed"),
        Todo("Create hello.py that prints a greeting", "completed"),
    )
    # After approval every request carries the evidence packet as data, and no plan note.
    after = provider.requests[before + 2 :]
    assert after
    for request in after:
        first = request.messages[0]
        assert first["role"] == "user" and first["content"].startswith("<change_evidence_packet sha256=")
        assert session.approval.packet_sha256 in first["content"]
        assert plan_notes(request.messages) == 0
        assert "change_evidence_packet" not in request.system

    # --- a word of the plan changes mid-turn: back to plan mode, the next write is refused
    rel = session.relative(plan_path)
    add_turns(
        provider,
        {
            "tool_calls": [
                call("bash", command=f"sed -i 's/A tiny script/A small script/' {rel}"),
                call("write", path="hello.py", content="print('hi')\n"),
                call("edit", path="README.md", old_string="Run", new_string="Try"),
            ]
        },
        {"text": "The plan changed; I'll wait."},
    )
    events.clear()
    await session.send("one more tweak")
    changed, first, second = results(events)
    assert not changed.refused and "A small script" in plan_path.read_text()
    assert first.refused and "Approach" in first.reason and "exit_plan_mode" in first.reason
    assert second.refused and "exit_plan_mode" in second.reason
    assert (project / "hello.py").read_text() == "print('hello')\n"
    assert session.mode == "plan" and session.approval is None and session.is_stale()
    chip = next(e for e in events if isinstance(e, ModeChanged))
    assert chip.mode == "plan" and chip.stale and not chip.approved and chip.plan_path == plan_path
    assert "Approach" in chip.note
    assert not ledger.is_current(plan_path)
    assert any(e.get("type") == "revoked" for e in ledger.ledger.events())
    assert plan_notes(provider.requests[-1].messages) == 1

    # --- resume restores conversation, mode, plan, approval state and todos
    restored = Session.resume(project_root=project, provider=ScriptedProvider(()), ui=ui)
    assert restored.id == session.id
    assert restored.conversation == session.conversation
    assert restored.mode == "plan" and restored.plan_path == plan_path and restored.approval is None
    assert restored.todos == session.todos
    assert restored.is_stale()


async def test_resume_after_approval_restores_execute_mode(project: Path) -> None:
    session = await approved_session(project)
    restored = Session.resume(session.id, project_root=project, provider=ScriptedProvider(()))
    assert restored.mode == "execute"
    assert restored.approval == session.approval
    assert restored.todos == session.todos and len(restored.todos) == 2
    assert restored.resume_notice is None  # nothing new happened outside the session
    await restored.send("go on")
    assert restored.provider.requests[-1].messages[0]["content"].startswith("<change_evidence_packet")


async def test_keep_and_changed_during_review(project: Path) -> None:
    events: list[Any] = []
    shown: list[str] = []

    def approve_stale_then_changed(request: ReviewRequest) -> ReviewDecision:
        # The reviewer approved what they saw, but the file changed on disk meanwhile.
        shown.append(request.text)
        decision = Approved(request.plan_path, canonical_sha256(request.text))
        request.plan_path.write_text(request.text.replace("A tiny script", "A different script"))
        return decision

    ui = FakeUI(Keep(), approve_stale_then_changed, approve_as_shown)
    provider = ScriptedProvider.from_text(
        turns(
            {"tool_calls": [call("write_plan", title="Hello", content=PLAN)]},
            {"tool_calls": [call("exit_plan_mode")]},
            {"tool_calls": [call("exit_plan_mode")]},
            {"text": "ok"},
        )
    )
    session = Session(project_root=project, provider=provider, ui=ui, on_event=events.append, plan_mode=True)
    await session.send("plan")
    keep, approved = results(events, "exit_plan_mode")
    assert "not approved" in keep.result and session.approval is not None
    # The changed plan was shown again and the approval is for what was shown the second time.
    assert len(ui.reviews) == 3 and "A different script" in ui.reviews[2].text
    assert session.approval.canonical_sha256 == canonical_sha256(ui.reviews[2].text)
    assert "Plan approved" in approved.result


async def test_no_ui_stops_with_the_approve_command_and_resume_executes(project: Path) -> None:
    events: list[Any] = []
    provider = ScriptedProvider.from_text(
        turns(
            {"tool_calls": [call("write_plan", title="Hello", content=PLAN)]},
            {"tool_calls": [call("exit_plan_mode"), call("write", path="x.txt", content="x")]},
            {"text": "never reached"},
        )
    )
    session = Session(project_root=project, provider=provider, on_event=events.append, plan_mode=True)
    await session.send("plan")
    ended = events[-1]
    rel = session.relative(session.plan_path)
    assert ended.reason == "review" and f"planview approve {rel}" in ended.message
    assert provider.position == 2  # the model was not asked again
    assert session.conversation[-1].content.startswith("not run")
    # The user approves from the CLI; a resumed session continues in execute mode with the steps seeded.
    Approvals(project / ".planview", project).approve(session.plan_path, channel="test")
    restored = Session.resume(project_root=project, provider=provider)
    assert restored.mode == "execute" and restored.approval is not None
    assert [t.text for t in restored.todos] == [
        "Create hello.py that prints a greeting",
        "Mention hello.py in the README",
    ]
    notice = restored.resume_notice
    assert notice is not None and notice.kind == "approved" and "source of truth" in notice.for_model
    await restored.send(notice.for_model)
    assert restored.provider.requests[-1].messages[0]["content"].startswith("<change_evidence_packet")


async def test_enter_plan_mode_is_confirmed(project: Path) -> None:
    events: list[Any] = []
    script = turns({"tool_calls": [call("enter_plan_mode")]}, {"text": "ok"})
    declined = Session(
        project_root=project,
        provider=ScriptedProvider.from_text(script),
        ui=FakeUI(confirm=False),
        on_event=events.append,
    )
    await declined.send("big change")
    assert declined.mode == "execute" and "declined" in results(events)[0].result
    events.clear()
    ui = FakeUI(confirm=True)
    agreed = Session(
        project_root=project, provider=ScriptedProvider.from_text(script), ui=ui, on_event=events.append
    )
    await agreed.send("big change")
    assert agreed.mode == "plan" and ui.confirmations == ["Enter plan mode?"]
    assert "Plan mode enabled" in results(events)[0].result
    # The newest request after entering plan mode carries the plan note.
    assert plan_notes(agreed.provider.requests[-1].messages) == 1


async def test_user_toggles_and_plan_tools_outside_plan_mode(project: Path) -> None:
    events: list[Any] = []
    provider = ScriptedProvider.from_text(
        turns(
            {
                "tool_calls": [
                    call("write_plan", title="x", content="# x\n"),
                    call("set_plan_steps", updates=[{"step": 1, "status": "completed"}]),
                ]
            }
        )
    )
    session = Session(project_root=project, provider=provider, on_event=events.append)
    session.toggle_plan_mode()
    assert session.mode == "plan" and isinstance(events[-1], ModeChanged) and events[-1].mode == "plan"
    session.toggle_plan_mode()
    assert session.mode == "execute"
    await session.send("go")
    write_plan, steps = results(events)
    assert write_plan.error and "enter_plan_mode" in write_plan.result
    assert steps.error and "no approved plan" in steps.result


async def test_refused_and_malformed_calls_reach_the_model_as_results(project: Path) -> None:
    events: list[Any] = []
    provider = ScriptedProvider.from_text(
        turns(
            {
                "tool_calls": [
                    call("nuke", everything=True),
                    call("read"),
                    call("edit", path="README.md", old_string="zzz", new_string="y"),
                ]
            }
        )
    )
    session = Session(project_root=project, provider=provider, on_event=events.append, plan_mode=False)
    await session.send("go")
    unknown, missing, absent = results(events)
    assert unknown.error and "unknown tool 'nuke'" in unknown.result
    assert missing.error and "missing required argument `path`" in missing.result
    assert absent.error and "not found in README.md" in absent.result
    tool_messages = [m for m in session.conversation if isinstance(m, ToolMessage)]
    assert [m.content for m in tool_messages] == [unknown.result, missing.result, absent.result]
    assert all(m.error and not m.refused for m in tool_messages)


async def test_deleted_plan_after_approval_refuses_writes(project: Path) -> None:
    events: list[Any] = []
    session = await approved_session(project, events)
    provider = session.provider
    session.plan_path.unlink()
    add_turns(provider, {"tool_calls": [call("bash", command="touch made.txt")]})
    await session.send("go")
    refused = results(events, "bash")[-1]
    assert refused.refused and not (project / "made.txt").exists() and session.mode == "plan"
    # Caught before the model was asked: no packet of the deleted plan, and the note says why.
    request = provider.requests[-1].messages
    assert not any("change_evidence_packet" in str(m.get("content")) for m in request)
    (note,) = [m["content"] for m in request if "[PLAN MODE ACTIVE]" in str(m.get("content"))]
    assert "changed after approval" in note and "was deleted" in note and "withdrawn" in note


async def test_plan_changed_between_turns_drops_the_packet_before_the_next_request(project: Path) -> None:
    events: list[Any] = []
    session = await approved_session(project, events)
    provider = session.provider
    add_turns(provider, {"text": "reading only"})
    session.plan_path.write_text(PLAN.replace("A tiny script", "A small script"))
    await session.send("what next?")
    # The turn made no mutating call, yet the stale approval was not sent as the approved scope.
    request = provider.requests[-1].messages
    assert not any("change_evidence_packet" in str(m.get("content")) for m in request)
    (note,) = [m["content"] for m in request if "[PLAN MODE ACTIVE]" in str(m.get("content"))]
    assert "changed sections: Approach" in note
    assert session.mode == "plan" and session.approval is None and session.is_stale()
    chip = [e for e in events if isinstance(e, ModeChanged)][-1]
    assert chip.mode == "plan" and chip.stale and "Approach" in chip.note


async def test_resume_respects_the_users_return_to_planning(project: Path) -> None:
    session = await approved_session(project)
    session.enter_plan_mode()  # the user's toggle, after the approval
    restored = Session.resume(project_root=project, provider=ScriptedProvider(()))
    assert restored.mode == "plan" and restored.approval is None and restored.resume_notice is None
    # A newer approval from outside (planview approve after a change) does resume into execute mode.
    session.plan_path.write_text(PLAN.replace("A tiny script", "A small script"))
    Approvals(project / ".planview", project).approve(session.plan_path, channel="test")
    again = Session.resume(project_root=project, provider=ScriptedProvider(()))
    assert again.mode == "execute" and again.resume_notice is not None


async def test_approval_seals_only_the_text_the_reviewer_saw(project: Path, monkeypatch: Any) -> None:
    # The plan is saved again between exit_plan_mode's hash check and the seal (the model's
    # write_plan racing the review): nothing is approved and the session stays in plan mode.
    events: list[Any] = []
    provider = ScriptedProvider.from_text(
        turns(
            {"tool_calls": [call("write_plan", title="Hello", content=PLAN)]},
            {"tool_calls": [call("exit_plan_mode")]},
            {"text": "waiting"},
        )
    )
    session = Session(
        project_root=project,
        provider=provider,
        ui=FakeUI(approve_as_shown),
        on_event=events.append,
        plan_mode=True,
    )
    real_approve = session.approvals.approve

    def approve_after_a_change(path: Path, *args: Any, **kwargs: Any) -> Any:
        path.write_text(PLAN.replace("A tiny script", "A sneaky script"))
        return real_approve(path, *args, **kwargs)

    monkeypatch.setattr(session.approvals, "approve", approve_after_a_change)
    await session.send("plan it")
    (result,) = results(events, "exit_plan_mode")
    assert result.error and "changed after it was shown" in result.result
    assert session.mode == "plan" and session.approval is None
    assert not Approvals(project / ".planview", project).is_current(session.plan_path)
