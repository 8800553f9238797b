"""`planview run --plan --agent "python fake_agent.py …" "task"`: each fake agent headless, and the
same `planview approve PATH` hand-off as planview's own agent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planview.cli import main
from planview.invocation import planview_command


def run(*argv: str) -> int:
    return main(["run", *argv])


def test_switch_mode_agent_hands_off_to_planview_approve_then_resumes(
    project: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--plan", "--agent", agent_cmd("switch-mode"), "add a greeting") == 0
    out = capsys.readouterr().out
    plan = next((project / ".planview" / "plans").glob("*.md"))
    rel = plan.relative_to(project).as_posix()
    assert out.splitlines()[0].startswith(
        "planview run · ACP: python fake_agent.py --scenario switch-mode · plan mode"
    )
    assert f"✗ waiting for approval: {planview_command()} approve {rel}" in out
    assert f"Approve it with:   {planview_command()} approve {rel}" in out
    session_id = out.split("planview run --resume ")[-1].split()[0]
    assert agent_log.find(event="exit-plan-answer")[0]["outcome"]["optionId"] == "plan"  # not approved here
    assert not (project / "done.txt").exists()

    # Resuming before the approval says what to do.
    assert run("--resume") == 2
    assert f"is not approved yet: run `{planview_command()} approve {rel}` first" in capsys.readouterr().err

    assert main(["approve", rel]) == 0
    capsys.readouterr()
    assert run("--resume", session_id) == 0  # the saved session remembers which agent it ran
    out = capsys.readouterr().out
    assert "execute mode" in out.splitlines()[0]
    assert (project / "done.txt").read_text() == "hello\n"
    prompt = agent_log.find(method="session/prompt")[-1]["text"]
    assert (
        prompt.startswith(f"The user approved this plan ({rel}); carry it out")
        and "# Add a greeting" in prompt
    )


def test_fs_write_agent_is_refused_and_its_plan_file_goes_to_review(
    project: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--plan", "--agent", agent_cmd("fs-write"), "plan it") == 0
    out = capsys.readouterr().out
    assert "▸ write src.txt" in out and "✗ plan mode is read-only: src.txt was not written" in out
    assert f"Approve it with:   {planview_command()} approve .planview/plans/fake-plan.md" in out
    assert not (project / "src.txt").exists()


@pytest.mark.usefixtures("lists_only")
def test_disk_write_agent_is_a_breach_naming_the_file(
    project: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--plan", "--agent", agent_cmd("disk-write"), "plan it") == 2
    err = capsys.readouterr().err
    # The first line says plan mode runs on the lists (the test switches the sandbox off); the breach follows.
    breach = err[err.index("planview: Plan-mode breach:") :]
    assert "changed breach.txt while planning" in breach
    assert "+++ b/breach.txt" in err


def test_agent_without_plan_mode_is_refused_with_a_clear_message(
    project: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--plan", "--agent", agent_cmd("no-plan"), "plan it") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "has no plan or read-only mode" in err[0] and "run without --plan" in err[0]


def test_json_events_are_the_same_shape_as_planviews_own_agent(
    project: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--json", "--agent", agent_cmd("rows"), "go") == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = [line["type"] for line in lines]
    assert kinds[0] == "session" and lines[0]["provider"] == "ACP: python fake_agent.py --scenario rows"
    assert {"text_delta", "tool_started", "tool_finished", "turn_ended"} <= set(kinds)
    finished = {line["call_id"]: line for line in lines if line["type"] == "tool_finished"}
    assert finished["read-1"]["result"] == "line one\nline two" and not finished["read-1"]["error"]
    assert (
        "-print('hello')" in finished["edit-9"]["result"] and "+print('hi')" in finished["edit-9"]["result"]
    )
    assert finished["run-1"]["error"] is True
    todos = [line for line in lines if line["type"] == "todos_changed"]
    assert todos[-1]["todos"] == [
        {"text": "Read the docs", "status": "completed"},
        {"text": "Fix the tests", "status": "pending"},
    ]


def test_long_turn_is_cancelled_with_ctrl_c(project: Path, agent_cmd: Any, tmp_path: Path) -> None:
    """A real process: SIGINT while the fake agent streams ends the run and the agent."""
    import os
    import signal
    import time

    log = tmp_path / "agent.jsonl"
    env = {**os.environ, "FAKE_AGENT_LOG": str(log)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "planview", "run", "--agent", agent_cmd("stream"), "talk"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (not log.exists() or "session/prompt" not in log.read_text()):
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert "chunk 0" in out
    assert proc.returncode in (0, 130)


def test_unknown_agent_binary_is_one_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("--agent", "no-such-agent-binary --acp", "x") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "planview: no-such-agent-binary is not installed: check the command 'no-such-agent-binary' (it is not "
        "on PATH) or use one of: gemini, claude, codex, goose, opencode"
    ]


def test_agent_and_provider_flags_do_not_mix(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run("--agent", "gemini", "--provider", "openai", "x") == 2
    assert "cannot be combined with --provider or --script" in capsys.readouterr().err


def test_config_agent_command_is_used(
    project: Path, agent_cmd: Any, agent_log: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    config = project / ".planview" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(f"[agent]\ncommand = {json.dumps(agent_cmd('no-plan'))}\n")
    assert run("hello") == 0
    assert "I have no plan mode." in capsys.readouterr().out


def test_an_agent_that_speaks_no_acp_is_one_line_not_a_traceback(project: Path) -> None:
    """QA #3: a command that prints a non-JSON-RPC line made the SDK log a traceback to the terminal."""
    agent = f"{sys.executable} -c 'print(123)'"
    done = subprocess.run(
        [sys.executable, "-m", "planview", "run", "--agent", agent, "hi"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr and "ERROR:root" not in done.stderr, done.stderr
    assert done.stderr.count("\n") <= 2 and "stopped before answering initialize" in done.stderr
    logs = list((project / ".planview" / "logs").glob("*.agent.log"))
    assert logs and "Receive loop failed" in logs[0].read_text()


@pytest.mark.usefixtures("lists_only")
def test_the_agent_process_is_a_tool_process_so_its_own_shell_cannot_approve(
    project: Path, agent_cmd: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA3: an ACP agent runs commands with its own shell, as children of the process planview
    starts; that process lacked PLANVIEW_TOOL_PROCESS, so `planview approve` from the agent's shell
    recorded an approval (channel "planview approve (no terminal)") of a plan no person saw."""
    import shlex

    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True)
    plan = plans / "2026-12-01-0000-sneaky.md"
    plan.write_text("# Sneaky\n\n## Steps\n- [ ] do what I like\n")
    said = tmp_path / "agent-approve.txt"
    approve = shlex.join([sys.executable, "-m", "planview", "approve", str(plan)])
    script = f"{approve} > {shlex.quote(str(said))} 2>&1; exec {agent_cmd('rows')}"
    agent = f"sh -c {shlex.quote(script)}"
    assert main(["run", "--plan", "--agent", agent, "look around"]) == 0
    capsys.readouterr()
    assert "approvals come from a person, not from the agent's tools" in said.read_text()
    assert not (project / ".planview" / "ledger.jsonl").exists()
    assert main(["status", str(plan)]) == 1


def test_resuming_with_an_agent_that_no_longer_starts_says_how_to_choose_another(
    project: Path, agent_cmd: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA3: the session file named an agent that is gone; the resume said "--agent needs a name" or
    "X is not installed", though the user passed no --agent, and not how to resume with another."""
    assert main(["run", "--agent", agent_cmd("rows"), "hello"]) == 0
    session = capsys.readouterr().out.splitlines()[0].rsplit("session ", 1)[-1].strip()
    path = project / ".planview" / "sessions" / f"{session}.jsonl"
    for gone in ("planview-qa3-no-such-agent --x", ""):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        records[-1]["provider"]["agent"] = gone
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        assert main(["run", "--resume", session, "again"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert f"session {session} ran with this agent" in err and "--agent NAME|COMMAND" in err, err
    assert main(["run", "--resume", session, "--agent", agent_cmd("rows"), "again"]) == 0
