"""AcpSession against the fake ACP agents: each layer of plan mode, tried the way an agent would break it."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from planview.agents.session import AcpSession, build
from planview.approval.approvals import Approvals
from planview.plan.decision import Approved, Keep, Refine
from planview.session import events as ev


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def ended(self) -> Any:
        ends = self.of(ev.TurnEnded)
        assert len(ends) == 1, f"one TurnEnded per turn, got {ends}"
        return ends[0]


class ReviewUI:
    """A UI that answers the review with `decision(request)` and confirmations with `allow`."""

    def __init__(self, decide: Any = None, allow: bool = True) -> None:
        self.decide = decide
        self.allow = allow
        self.reviews: list[Any] = []
        self.confirms: list[tuple[str, str]] = []

    async def review(self, request: Any) -> Any:
        self.reviews.append(request)
        if self.decide is None:
            from planview.plan.canonical import canonical_sha256

            return Approved(request.plan_path, canonical_sha256(request.text))
        return self.decide(request)

    async def confirm(self, title: str, message: str) -> bool:
        self.confirms.append((title, message))
        return self.allow


async def run_turn(session: AcpSession, text: str = "do the task", timeout: float = 30) -> None:
    try:
        await asyncio.wait_for(session.send(text), timeout)
    finally:
        await session.close()


FAKE = Path(__file__).with_name("fake_agent.py")


def make(project: Path, scenario: str, rec: Recorder, **kw: Any) -> AcpSession:
    import shlex
    import sys

    command = shlex.join([sys.executable, str(FAKE), "--scenario", scenario])
    return build(command, project_root=project, on_event=rec, **kw)


async def test_fs_write_in_plan_mode_is_refused_and_the_plan_file_is_not(
    project: Path, agent_log: Any
) -> None:
    rec = Recorder()
    session = make(project, "fs-write", rec, plan_mode=True)
    await run_turn(session)
    assert not (project / "src.txt").exists()
    refusal = agent_log.find(event="write-src")[0]
    assert refusal["result"] == "error"
    assert (
        "plan mode is read-only" in refusal["message"] and ".planview/plans/<name>.md" in refusal["message"]
    )
    # the refusal is a transcript row like planview's own refused write
    refused = [e for e in rec.of(ev.ToolFinished) if e.refused]
    assert refused and refused[0].name == "write" and "src.txt" in refused[0].reason
    # the plan write went through the plan store, and the end of the turn asked for a review
    assert agent_log.find(event="write-plan")[0]["result"] == "ok"
    plan = project / ".planview" / "plans" / "fake-plan.md"
    assert plan.read_text().startswith("# Add a greeting")
    assert rec.of(ev.ReviewRequested)[0].plan_path == plan
    assert (
        rec.ended.reason == "review" and "planview approve .planview/plans/fake-plan.md" in rec.ended.message
    )
    # planview put the agent in its plan mode first
    assert agent_log.find(method="session/set_mode")[0]["mode"] == "plan"
    assert agent_log.find(method="session/prompt")[0]["mode"] == "plan"


@pytest.mark.usefixtures("lists_only")
async def test_disk_write_behind_the_clients_back_is_a_breach(project: Path, agent_log: Any) -> None:
    rec = Recorder()
    session = make(project, "disk-write", rec, plan_mode=True)
    await run_turn(session)
    assert rec.ended.reason == "error"
    message = rec.ended.message
    assert "Plan-mode breach" in message and "breach.txt" in message
    assert "+written behind the client's back" in message  # the git diff of the new file
    assert agent_log.find(method="session/cancel"), "the turn was cancelled at the agent"
    assert agent_log.find(method="prompt-end")[0]["stop"] == "cancelled"
    assert session.approvals.history() == []  # nothing approved


@pytest.mark.usefixtures("lists_only")
async def test_breach_of_a_tracked_file_shows_its_diff(project: Path, agent_log: Any) -> None:
    from planview.agents.breach import classify, diff_of

    (project / "README.md").write_text("# sample project\nchanged\n")
    diff = await diff_of(project, await classify(project, ["README.md"]))
    assert "+changed" in diff and "a/README.md" in diff


async def test_switch_mode_with_a_plan_opens_review_records_approval_and_allows(
    project: Path, agent_log: Any
) -> None:
    rec = Recorder()
    ui = ReviewUI()
    session = make(project, "switch-mode", rec, plan_mode=True, ui=ui)
    await run_turn(session)
    plan = next((project / ".planview" / "plans").glob("*.md"))
    assert plan.read_text().startswith("# Add a greeting")
    assert ui.reviews and ui.reviews[0].plan_path == plan
    status = Approvals(project / ".planview", project).status(plan)
    assert status.state == "approved"
    import json

    events = [json.loads(line) for line in (project / ".planview" / "ledger.jsonl").read_text().splitlines()]
    assert events[-1]["type"] == "approved"
    assert events[-1]["channel"] == "ACP: python fake_agent.py --scenario switch-mode"
    # the agent received the allow option planview prefers (allow_once: it keeps asking, so the pin is checked)
    answer = agent_log.find(event="exit-plan-answer")[0]["outcome"]
    assert answer == {"outcome": "selected", "optionId": "default", "_meta": None}
    # approval before the answer: the ledger's approval exists before the agent wrote in execute mode
    assert (project / "done.txt").read_text() == "hello\n"
    assert session.mode == "execute" and session.approval is not None
    assert [t.text for t in session.todos] == ["Write done.txt", "Tell the user"]
    assert rec.ended.reason == "done"
    # the execute-mode edit was put to the user (inline confirmation), as planview's gate asks
    assert ui.confirms and "Write done.txt" in ui.confirms[0][1]
    # planview performed the fs/write_text_file itself: the transcript has its row (issue 24)
    rows = [e for e in rec.of(ev.ToolFinished) if e.name == "write"]
    assert [r.result for r in rows] == ["wrote done.txt (6 bytes)"] and not rows[0].refused
    started = [e for e in rec.of(ev.ToolStarted) if e.call_id == rows[0].call_id]
    assert len(started) == 1


async def test_refine_sends_the_feedback_back_and_rejects_the_exit(project: Path, agent_log: Any) -> None:
    rec = Recorder()
    calls = []

    def decide(request: Any) -> Any:
        calls.append(request)
        return Refine("add a test step") if len(calls) == 1 else Keep()

    session = make(project, "switch-mode", rec, plan_mode=True, ui=ReviewUI(decide))
    await run_turn(session)
    answers = [r["outcome"]["optionId"] for r in agent_log.find(event="exit-plan-answer")]
    assert answers == ["plan", "plan"]  # reject_once both times
    prompts = agent_log.find(method="session/prompt")
    assert len(prompts) == 2 and "add a test step" in prompts[1]["text"]
    assert Approvals(project / ".planview", project).history() == []
    assert not (project / "done.txt").exists()


async def test_agent_without_a_plan_mode_is_refused_plan_mode(project: Path, agent_log: Any) -> None:
    rec = Recorder()
    session = make(project, "no-plan", rec, plan_mode=True)
    await run_turn(session)
    assert rec.ended.reason == "error"
    assert "has no plan or read-only mode (it offers code (Code), yolo (YOLO))" in rec.ended.message
    assert not agent_log.find(method="session/prompt"), "the agent was never prompted"


async def test_agent_without_a_plan_mode_still_runs_in_execute_mode(project: Path, agent_log: Any) -> None:
    rec = Recorder()
    session = make(project, "no-plan", rec)
    await run_turn(session)
    assert rec.ended.reason == "done"
    assert "I have no plan mode." in "".join(e.text for e in rec.of(ev.TextDelta))


async def test_mode_offered_as_a_config_option(project: Path, agent_log: Any) -> None:
    rec = Recorder()
    session = make(project, "config-mode", rec, plan_mode=True)
    await run_turn(session)
    assert agent_log.find(method="session/set_config_option")[0]["value"] == "read-only"
    assert "mode is read-only" in "".join(e.text for e in rec.of(ev.TextDelta))


async def test_cancel_sends_session_cancel_and_answers_pending_permissions_cancelled(
    project: Path, agent_log: Any
) -> None:
    rec = Recorder()

    class SlowUI(ReviewUI):
        async def confirm(self, title: str, message: str) -> bool:
            await asyncio.sleep(60)  # the user never answers
            return True

    session = make(project, "stream", rec, ui=SlowUI())
    turn = asyncio.create_task(session.send("talk for a long time"))
    for _ in range(400):
        if len(rec.of(ev.TextDelta)) >= 5:
            break
        await asyncio.sleep(0.025)
    assert len(rec.of(ev.TextDelta)) >= 5, "the agent streams"
    session.cancel()
    await asyncio.wait_for(turn, 10)
    await session.close()
    assert rec.ended.reason == "cancelled"
    assert agent_log.find(method="session/cancel")
    assert agent_log.find(method="prompt-end")[0]["stop"] == "cancelled"
    assert agent_log.find(event="stream-permission")[0]["outcome"] == {"outcome": "cancelled"}


@pytest.mark.usefixtures("lists_only")  # the pin checked at the permission (no hand-off to a new process)
async def test_execute_pin_refuses_an_edit_after_the_plan_changed(project: Path, agent_log: Any) -> None:
    rec = Recorder()
    session = make(project, "slow-edit", rec, plan_mode=True, ui=ReviewUI())
    turn = asyncio.create_task(session.send("do the task"))
    for _ in range(400):
        if session.approval is not None:
            break
        await asyncio.sleep(0.025)
    assert session.approval is not None
    plan = session.plan_path
    plan.write_text(
        plan.read_text().replace("Say hello.", "Say hello loudly.")
    )  # the plan changes after approval
    (project / "go").write_text("")
    await asyncio.wait_for(turn, 20)
    await session.close()
    assert agent_log.find(event="edit-answer")[0]["outcome"]["optionId"] == "reject"
    assert not (project / "done.txt").exists()
    assert session.mode == "plan"
    refused = [e for e in rec.of(ev.ToolFinished) if e.refused]
    assert refused and "changed after approval" in refused[-1].reason and "Goal" in refused[-1].reason
    kinds = [entry.revocation is not None for entry in session.approvals.history()]
    assert kinds == [True], "the ledger records the revocation"


async def test_fs_write_outside_the_project_is_refused_in_execute_mode(project: Path, tmp_path: Path) -> None:
    session = make(project, "no-plan", Recorder())
    with pytest.raises(Exception, match="outside the project"):
        await session.on_write(str(tmp_path / "elsewhere.txt"), "x")
    assert not (tmp_path / "elsewhere.txt").exists()


async def test_read_text_file_is_confined_and_slices_lines(project: Path, tmp_path: Path) -> None:
    session = make(project, "no-plan", Recorder())
    (project / "notes.txt").write_text("one\ntwo\nthree\n")
    assert await session.on_read(str(project / "notes.txt"), 2, 1) == "two\n"
    (tmp_path / "secret.txt").write_text("s")
    (project / "link.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(Exception, match="outside the project"):
        await session.on_read(str(project / "link.txt"), None, None)


@pytest.mark.timeout(60)
async def test_read_text_file_never_blocks_on_a_fifo_and_is_capped(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FIFO in the project (a hostile checkout) would hold a thread forever; a huge file would
    be one JSON-RPC message of any size. Both are one-line answers to the agent."""
    from planview.agents import files

    session = make(project, "no-plan", Recorder())
    os.mkfifo(project / "pipe.txt")
    with pytest.raises(Exception, match="not a regular file"):
        await session.on_read(str(project / "pipe.txt"), None, None)
    monkeypatch.setattr(files, "READ_CAP", 64)
    (project / "big.txt").write_text("".join(f"line {n}\n" for n in range(100)))
    with pytest.raises(Exception, match="read it in parts with line and limit"):
        await session.on_read(str(project / "big.txt"), None, None)
    assert await session.on_read(str(project / "big.txt"), 51, 2) == "line 50\nline 51\n"


def test_git_index_refresh_is_not_a_breach_but_a_ref_change_is(project: Path) -> None:
    from planview.agents.breach import BreachWatcher

    home = project / ".planview"
    watcher = BreachWatcher(project, home, home / "plans", lambda paths: None)
    assert watcher.classify(project / ".git" / "index") == "ignored"
    assert watcher.classify(project / ".git" / "refs" / "heads" / "main.lock") == "ignored"
    assert watcher.classify(project / ".git" / "refs" / "heads" / "main") == "breach"
    assert watcher.classify(home / "plans" / "a.md") == "plan"
    assert watcher.classify(home / "ledger.jsonl") == "ignored"
    assert watcher.classify(project / "src" / "x.py") == "breach"


async def test_stderr_goes_to_a_log_file_not_the_screen(
    project: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    session = make(project, "no-plan", Recorder())
    await run_turn(session)
    assert "fake agent no-plan starting" in session.stderr_path.read_text()
    assert "fake agent" not in capfd.readouterr().err


def test_missing_binary_is_one_line_naming_the_install(project: Path) -> None:
    from planview.agents.errors import AgentNotInstalledError
    from planview.agents.profiles import BUILTIN, require_installed

    with pytest.raises(AgentNotInstalledError) as info:
        require_installed(BUILTIN["gemini"], path=str(project))
    assert str(info.value) == "gemini is not installed: npm install -g @google/gemini-cli"


def test_git_repo_untouched_by_a_refused_plan(project: Path) -> None:
    out = subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True).stdout
    assert out == ""


@pytest.mark.parametrize(
    "target",
    [
        ".planview/ledger.jsonl",  # planview's own state
        ".planview/plans/../config.toml",
        ".planview/plans/notes.txt",
        ".planview/plans/escape.md",  # a symlink out of the plans folder
        "README.md",
    ],
)
async def test_plan_mode_fs_writes_planview_refuses(project: Path, target: str) -> None:
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True)
    (plans / "escape.md").symlink_to(project / "README.md")
    session = make(project, "no-plan", Recorder(), plan_mode=True)
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".git" not in p.parts}
    with pytest.raises(Exception, match="Refused by planview|outside the project"):
        await session.on_write(str(project / target), "# hostile\n")
    after = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert after == before


async def test_plan_mode_fs_write_of_a_plan_goes_through_the_store(project: Path) -> None:
    rec = Recorder()
    session = make(project, "no-plan", rec, plan_mode=True)
    await session.on_write(str(project / ".planview" / "plans" / "p.md"), "# My plan\n\n## Steps\n- [ ] a\n")
    assert session.plan_path == project / ".planview" / "plans" / "p.md"
    assert rec.of(ev.PlanWritten)[0].bytes == len("# My plan\n\n## Steps\n- [ ] a\n")


async def test_an_agent_asking_for_a_key_in_the_environment_is_told_to_use_it(
    project: Path, agent_log: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_AGENT_KEY", "k")
    rec = Recorder()
    await run_turn(make(project, "needs-auth", rec))
    assert agent_log.find(method="authenticate") == [
        {"method": "authenticate", "id": "fake-key", "key_seen": True}
    ]
    assert rec.ended.reason == "done"


async def test_an_agent_needing_a_login_says_so_in_one_line(
    project: Path, agent_log: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FAKE_AGENT_KEY", raising=False)
    rec = Recorder()
    await run_turn(make(project, "needs-auth", rec))
    assert rec.ended.reason == "error"
    assert "needs you to sign in first (Use FAKE_AGENT_KEY)" in rec.ended.message
    assert "\n" not in rec.ended.message and not agent_log.find(method="authenticate")


@pytest.mark.usefixtures("lists_only")
async def test_session_wide_hard_limits_plan_in_one_session_and_execute_in_a_fresh_one(
    project: Path, agent_log: Any
) -> None:
    """Claude's disallowedTools hold for a whole ACP session: planview plans in a limited session and,
    after the approval, carries the plan out in a new one without the limits (the plan as its context)."""
    import dataclasses
    import shlex
    import sys

    from planview.agents.profiles import require_installed, resolve_agent

    command = shlex.join([sys.executable, str(FAKE), "--scenario", "switch-mode"])
    limits = {"claudeCode": {"options": {"disallowedTools": ["Write", "Edit", "Bash"]}}}
    profile = dataclasses.replace(require_installed(resolve_agent(command)), session_meta=limits)
    rec = Recorder()
    session = AcpSession(
        profile=profile, spec=command, project_root=project, on_event=rec, plan_mode=True, ui=ReviewUI()
    )
    await run_turn(session)
    opened = agent_log.find(method="session/new")
    assert [o["meta"].get("claudeCode") for o in opened] == [limits["claudeCode"], None]
    prompts = agent_log.find(method="session/prompt")
    assert [p["session"] for p in prompts] == ["fake-session-1", "fake-session-2"]
    assert (
        prompts[1]["text"].startswith("The user approved this plan")
        and "# Add a greeting" in prompts[1]["text"]
    )
    assert agent_log.find(event="exit-plan-answer")[0]["outcome"]["optionId"] == "default"
    assert (project / "done.txt").read_text() == "hello\n"  # written by the unlimited session
    assert rec.ended.reason == "done"


@pytest.mark.usefixtures("lists_only")
async def test_an_agent_that_stays_in_plan_mode_after_the_allow_is_moved_out(
    project: Path, agent_log: Any
) -> None:
    rec = Recorder()
    await run_turn(make(project, "exit-stay", rec, plan_mode=True, ui=ReviewUI()))
    assert [r["mode"] for r in agent_log.find(method="session/set_mode")] == ["plan", "default"]
    assert agent_log.find(event="mode-at-end") == [{"event": "mode-at-end", "mode": "default"}]


@pytest.mark.usefixtures("lists_only")
async def test_a_plan_written_to_a_file_is_reviewed_at_the_end_of_the_turn_and_carried_out(
    project: Path, agent_log: Any
) -> None:
    """The route for agents without an exit-plan request: approval switches the agent out of its plan
    mode and sends it on with the plan."""
    rec = Recorder()
    ui = ReviewUI()
    session = make(project, "fs-write", rec, plan_mode=True, ui=ui)
    await run_turn(session)
    assert ui.reviews and ui.reviews[0].plan_path.name == "fake-plan.md"
    assert session.mode == "execute" and session.approval is not None
    assert [r["mode"] for r in agent_log.find(method="session/set_mode")] == ["plan", "default"]
    prompts = agent_log.find(method="session/prompt")
    assert len(prompts) == 2 and prompts[1]["text"].startswith(
        "The user approved the plan .planview/plans/fake-plan.md"
    )


@pytest.mark.usefixtures("lists_only")
async def test_an_agent_that_ignores_the_cancel_after_a_breach_is_stopped(
    project: Path, agent_log: Any
) -> None:
    rec = Recorder()
    session = make(project, "stubborn", rec, plan_mode=True)
    started = asyncio.get_running_loop().time()
    await asyncio.wait_for(session.send("plan"), 20)
    elapsed = asyncio.get_running_loop().time() - started
    assert elapsed < 15, "the hard stop came after the grace period, not after the agent's minute"
    assert rec.ended.reason == "error" and "breach.txt" in rec.ended.message
    assert not session.agent.open, "the agent process was stopped"
    assert not agent_log.find(method="prompt-end"), "the agent never ended its turn itself"
    await session.close()


async def test_closing_the_session_stops_the_processes_the_agent_started(
    project: Path, agent_log: Any
) -> None:
    import os

    rec = Recorder()
    await run_turn(make(project, "launcher", rec))
    pid = agent_log.find(event="child")[0]["pid"]
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    else:
        os.kill(pid, 9)
        raise AssertionError("the agent's helper process outlived the session")
