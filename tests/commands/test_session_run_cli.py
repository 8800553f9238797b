"""`planview run`: headless text and JSONL output, the approve-then-resume flow, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planview.cli import main
from planview.invocation import planview_command

PLAN = "# Hello\n\n## Steps\n\n- [ ] Create hello.txt\n"


def script(path: Path, *turns: dict) -> Path:
    path.write_text("\n".join(json.dumps(t) for t in turns) + "\n")
    return path


def test_plan_then_approve_then_resume(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = script(
        tmp_path / "demo.jsonl",
        {
            "text": "Planning.",
            "tool_calls": [{"name": "write", "arguments": {"path": "hello.txt", "content": "x"}}],
        },
        {"tool_calls": [{"name": "write_plan", "arguments": {"title": "Hello", "content": PLAN}}]},
        {"tool_calls": [{"name": "exit_plan_mode", "arguments": {}}]},
        {
            "text": "Approved, working.",
            "tool_calls": [
                {"name": "write", "arguments": {"path": "hello.txt", "content": "hello\n"}},
                {"name": "set_plan_steps", "arguments": {"updates": [{"step": 1, "status": "completed"}]}},
            ],
        },
        {"text": "All done."},
    )
    assert main(["run", "--plan", "--script", str(demo), "say hello"]) == 0
    out = capsys.readouterr().out
    plan = next((project / ".planview" / "plans").glob("*.md"))
    rel = plan.relative_to(project).as_posix()
    assert "▸ write hello.txt" in out and "✗ Refused:" in out
    assert f"Approve it with:   {planview_command()} approve {rel}" in out
    assert "planview run --resume" in out
    assert not (project / "hello.txt").exists()

    # Resuming without approving (and without a new task) says what to do instead of planning on.
    assert main(["run", "--resume", "--script", str(demo)]) == 2
    err = capsys.readouterr().err
    assert f"is not approved yet: run `{planview_command()} approve {rel}` first" in err
    session_id = out.split("run --resume ")[-1].split()[0]
    assert f'(`{planview_command()} run --resume {session_id} "refine the steps"`)' in err

    # The user approves from the CLI; the resumed run continues the script in execute mode.
    from planview.approval.approvals import Approvals

    Approvals(project / ".planview", project).approve(plan, channel="test")
    assert main(["run", "--resume", "--script", str(demo)]) == 0
    out = capsys.readouterr().out
    assert "execute mode" in out.splitlines()[0]
    assert (project / "hello.txt").read_text() == "hello\n"
    assert "- [x] Create hello.txt" in plan.read_text()
    assert "All done." in out


def test_json_events(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo = script(
        tmp_path / "j.jsonl",
        {"text": "hi", "tool_calls": [{"name": "read", "arguments": {"path": "README.md"}}]},
    )
    assert main(["run", "--json", "--script", str(demo), "look"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    kinds = [r["type"] for r in records]
    assert kinds == ["session", "text_delta", "tool_started", "tool_finished", "turn_ended"]
    assert records[2]["headline"] == "read README.md" and records[2]["arguments"] == {"path": "README.md"}
    assert records[3]["refused"] is False and "sample project" in records[3]["result"]
    assert records[-1]["reason"] == "done"


def test_no_ui_review_in_json_names_the_commands(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = script(
        tmp_path / "p.jsonl",
        {"tool_calls": [{"name": "write_plan", "arguments": {"title": "Hello", "content": PLAN}}]},
        {"tool_calls": [{"name": "exit_plan_mode", "arguments": {}}]},
    )
    assert main(["run", "--plan", "--json", "--script", str(demo), "plan"]) == 0
    last = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert last["type"] == "awaiting_approval" and last["approve"].startswith(
        f"{planview_command()} approve .planview/plans/"  # the running planview, so it runs as printed
    )


def test_errors_are_one_line(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PLANVIEW_PROVIDER"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    assert main(["run", "no provider"]) == 2
    assert "no model provider configured" in capsys.readouterr().err
    assert main(["run"]) == 2
    assert 'give the task: planview run "what to do"' in capsys.readouterr().err
    assert main(["run", "--script", str(tmp_path / "nope.jsonl"), "x"]) == 2
    assert "script not found" in capsys.readouterr().err
    assert main(["run", "--resume"]) == 2
    assert "no saved sessions" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{oops\n')
    assert main(["run", "--script", str(bad), "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.jsonl: line 2" in err


class _ClosedPipe:
    """stdout whose reader went away after the first line (`planview run ... | head -1`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> int:
        if self.lines:
            raise BrokenPipeError(32, "Broken pipe")
        self.lines.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        raise OSError("no file descriptor")


@pytest.mark.parametrize("as_json", [False, True])
def test_closed_output_pipe_stops_the_turn_without_a_traceback(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    demo = script(
        tmp_path / "pipe.jsonl",
        {"text": "Working.", "delay": 0.05},
        {"tool_calls": [{"name": "write", "arguments": {"path": "late.txt", "content": "x"}}], "delay": 0.05},
    )
    out = _ClosedPipe()
    monkeypatch.setattr("sys.stdout", out)
    argv = ["run", "--script", str(demo), "go"] + (["--json"] if as_json else [])
    assert main(argv) == 1
    assert len(out.lines) == 1
    assert not (project / "late.txt").exists()  # nobody reads the output: the agent stops


def test_resume_with_a_mistyped_id_is_no_such_session(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA: `run --resume nosuch` went on with the newest session, "nosuch" as the user's task."""
    demo = script(tmp_path / "s.jsonl", {"text": "Looking."}, {"text": "Still here."})
    assert main(["run", "--script", str(demo), "look around"]) == 0
    (saved,) = (project / ".planview" / "sessions").glob("*.jsonl")
    before = saved.read_bytes()
    capsys.readouterr()
    for argv in (["run", "--resume", "nosuch"], ["run", "--resume=nosuch"]):
        assert main([*argv, "--script", str(demo)]) == 2
        err = capsys.readouterr().err
        assert f"no session 'nosuch'; recent sessions: {saved.stem}" in err
    assert saved.read_bytes() == before  # nothing was sent to the newest session
    # The hint run prints (`planview run --resume "refine the steps"`): text with spaces is a task.
    assert main(["run", "--resume", "go on then", "--script", str(demo)]) == 0
    assert b"go on then" in saved.read_bytes()


def test_json_reports_an_out_of_project_read_in_plan_mode_as_refused(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # QA §11: it was "refused": false, "error": true (the tool failed; the gate had allowed it).
    demo = script(
        tmp_path / "reads.jsonl",
        {"tool_calls": [{"name": "read", "arguments": {"path": "/etc/passwd"}}]},
        {"tool_calls": [{"name": "read", "arguments": {"path": "README.md"}}]},
    )
    assert main(["run", "--plan", "--json", "--script", str(demo), "look"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    outside, readme = [r for r in records if r["type"] == "tool_finished"]
    assert outside["refused"] is True and outside["error"] is False
    assert "plan mode reads only the project" in outside["reason"] and "root:" not in outside["result"]
    assert readme["refused"] is False and "sample project" in readme["result"]


def test_an_mcp_server_is_a_tool_process_so_approve_there_refuses(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """QA3: MCP servers were started without PLANVIEW_TOOL_PROCESS (the SDK passes on only a short
    default environment), so a server's own shell could run `planview approve` unrefused."""
    import shlex
    import sys

    pytest.importorskip("mcp", reason="the MCP tests need the mcp extra: pip install -e '.[test]'")
    server = Path(__file__).resolve().parent.parent / "session" / "mcp" / "fixture_server.py"
    seen = tmp_path / "server-env.txt"
    line = f"env > {shlex.quote(str(seen))}; exec {shlex.quote(sys.executable)} {shlex.quote(str(server))}"
    home = project / ".planview"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[mcp.servers.fx]\ncommand = "sh"\nargs = ["-c", {json.dumps(line)}]\nenv = {{ KEPT = "yes" }}\n'
    )
    demo = script(tmp_path / "s.jsonl", {"tool_calls": [{"name": "mcp__fx__clock", "arguments": {}}]})
    assert main(["run", "--json", "--script", str(demo), "tick"]) == 0
    records = [json.loads(r) for r in capsys.readouterr().out.splitlines()]
    assert any(r["type"] == "tool_finished" and "fixture server" in r["result"] for r in records)
    env = dict(row.split("=", 1) for row in seen.read_text().splitlines() if "=" in row)
    assert env.get("PLANVIEW_TOOL_PROCESS", "").strip() and env.get("KEPT") == "yes"


def test_a_folded_result_counts_its_lines_in_words(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The README sample script printed "(+1 lines)" under write_plan."""
    (project / "two.txt").write_text("one\ntwo\n")
    (project / "three.txt").write_text("one\ntwo\nthree\n")
    calls = [{"name": "read", "arguments": {"path": name}} for name in ("two.txt", "three.txt")]
    path = script(project / "s.jsonl", {"tool_calls": calls}, {"text": "ok"})
    assert main(["run", "--script", str(path), "look"]) == 0
    out = capsys.readouterr().out
    assert "(+1 line)" in out and "(+2 lines)" in out and "(+1 lines)" not in out


def test_run_says_once_when_plan_mode_runs_on_lists_alone(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from planview.sandbox import status as sandbox_status

    demo = script(tmp_path / "l.jsonl", {"text": "hi"})
    with sandbox_status.forced(sandbox_status.lists_only("this kernel has no Landlock system calls")):
        assert main(["run", "--plan", "--json", "--script", str(demo), "look"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("lists alone") == 1 and "no Landlock" in captured.err
    assert all(json.loads(line) for line in captured.out.splitlines())  # stdout stays JSON
    assert main(["run", "--plan", "--json", "--script", str(demo), "look"]) == 0
    if sandbox_status.current().enforcing:
        assert "lists alone" not in capsys.readouterr().err
