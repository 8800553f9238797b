"""`planview gate check` as a user runs it: a subprocess fed JSON Lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def run(stdin: bytes | str, *args: str) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "planview", "gate", "check", *args],
        input=data,
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},  # output must not depend on the locale
    )


def lines(result: subprocess.CompletedProcess[bytes]) -> list[dict]:
    return [json.loads(line) for line in result.stdout.decode("utf-8").splitlines()]


CALLS = [
    ({"tool": "bash", "input": {"command": "git status"}}, "allow", ""),
    ({"tool": "bash", "input": {"command": "git push"}}, "deny", "git push changes the repository"),
    ({"tool": "write", "input": {"path": "x"}}, "deny", '"write" is not read-only'),
    ({"tool": "read", "input": {"path": "x"}, "builtin": True}, "allow", ""),
    (
        {"tool": "web_search", "input": {"q": "x"}, "annotations": {"readOnlyHint": True}, "builtin": False},
        "allow",
        "",
    ),
    (
        {"tool": "fs_read", "input": {"path": "x"}, "annotations": {"readOnlyHint": True}, "builtin": False},
        "deny",
        "takes a file path",
    ),
    (
        {"tool": "write_plan", "input": {"title": "t", "content": "c"}, "builtin": False},
        "deny",
        "not planview's own",
    ),
    ({"tool": "ask_user", "input": {"question": "Which?"}}, "allow", ""),
]


def test_one_answer_per_line_in_order() -> None:
    stdin = "".join(json.dumps(call) + "\n" for call, _, _ in CALLS)
    result = run(stdin, "--mode", "plan")
    assert result.returncode == 0, result.stderr
    answers = lines(result)
    assert len(answers) == len(CALLS)
    for answer, (_, decision, fragment) in zip(answers, CALLS, strict=True):
        assert answer["decision"] == decision
        assert fragment in answer["reason"]


def test_default_mode_is_plan() -> None:
    answers = lines(run('{"tool": "write", "input": {}}\n'))
    assert answers == [{"decision": "deny", "reason": answers[0]["reason"]}]
    assert "exit_plan_mode" in answers[0]["reason"]


def test_execute_mode_allows_well_formed_calls_only() -> None:
    stdin = '{"tool": "write", "input": {"path": "x"}}\n{"tool": "write", "input": []}\n'
    answers = lines(run(stdin, "--mode", "execute"))
    assert answers[0] == {"decision": "allow", "reason": ""}
    assert answers[1]["decision"] == "deny" and answers[1]["reason"].startswith("malformed tool call: ")


MALFORMED_LINES = [
    b"not json",
    b"",
    b"   ",
    b"[]",
    b"42",
    b'"bash"',
    b"null",
    b"{}",
    b'{"input": {}}',
    b'{"tool": 1}',
    b'{"tool": "bash", "input": "git status"}',
    b'{"tool": "bash", "input": {"command": "git status"}',
    b'{"tool": "read", "input": {}, "builtin": "yes"}',
    b'{"tool": "read", "input": {"x": NaN}}',
    b"\xff\xfe not utf-8",
    b"[" * 100_000,
    b'{"tool": "x", "input": {"a": ' + b"[" * 5000 + b"]" * 5000 + b"}}",
]


def test_malformed_lines_are_denied_and_never_crash() -> None:
    stdin = b"\n".join(MALFORMED_LINES) + b"\n" + b'{"tool": "ls", "input": {}}\n'
    result = run(stdin)
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    answers = lines(result)
    assert len(answers) == len(MALFORMED_LINES) + 1
    for line, answer in zip(MALFORMED_LINES, answers, strict=False):
        assert answer["decision"] == "deny", line[:40]
        if line.startswith(b'{"tool": "x"'):
            assert "too deep" in answer["reason"] or "malformed tool call" in answer["reason"]
        else:
            assert answer["reason"].startswith("malformed tool call: "), (line[:40], answer)
    assert answers[-1] == {"decision": "allow", "reason": "read-only tool"}


def test_last_line_without_newline_and_crlf_lines() -> None:
    stdin = b'{"tool": "ls", "input": {}}\r\n{"tool": "grep", "input": {"pattern": "x"}}'
    answers = lines(run(stdin))
    assert [answer["decision"] for answer in answers] == ["allow", "allow"]


def test_unicode_round_trips_as_utf8() -> None:
    stdin = json.dumps(
        {"tool": "bash", "input": {"command": "git log --author='José' && rm -rf ü"}}, ensure_ascii=False
    )
    answers = lines(run(stdin + "\n"))
    assert answers[0]["decision"] == "deny" and '"rm"' in answers[0]["reason"]


def test_subagent_forced_input_is_reported() -> None:
    call = {
        "tool": "subagent",
        "input": {"agent": "explorer"},
        "input_schema": {"properties": {"readOnly": {}}},
    }
    answers = lines(run(json.dumps(call) + "\n"))
    assert answers == [
        {
            "decision": "allow",
            "reason": "subagent forced read-only",
            "input": {"agent": "explorer", "readOnly": True},
        }
    ]


def test_no_read_only_hint_switch() -> None:
    call = {
        "tool": "web_search",
        "input": {"q": "x"},
        "annotations": {"readOnlyHint": True},
        "builtin": False,
    }
    answers = lines(run(json.dumps(call) + "\n", "--no-read-only-hint"))
    assert answers[0]["decision"] == "deny" and "by configuration" in answers[0]["reason"]


def test_plans_dir_containment(tmp_path: Path) -> None:
    plans = tmp_path / ".planview" / "plans"
    plans.mkdir(parents=True)
    inside = {"tool": "write_plan", "input": {"title": "t", "content": "c", "plan_path": str(plans / "a.md")}}
    outside = {
        "tool": "write_plan",
        "input": {"title": "t", "content": "c", "plan_path": str(tmp_path / "a.md")},
    }
    stdin = json.dumps(inside) + "\n" + json.dumps(outside) + "\n"
    answers = lines(run(stdin, "--plans-dir", str(plans)))
    assert [answer["decision"] for answer in answers] == ["allow", "deny"]


def test_empty_stdin_writes_nothing() -> None:
    result = run(b"")
    assert result.returncode == 0 and result.stdout == b""


def test_answers_stream_before_stdin_closes() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "planview", "gate", "check"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for command, decision in (("git status", "allow"), ("git push", "deny")):
            process.stdin.write((json.dumps({"tool": "bash", "input": {"command": command}}) + "\n").encode())
            process.stdin.flush()
            answer = json.loads(process.stdout.readline())
            assert answer["decision"] == decision
    finally:
        process.stdin.close()
        assert process.wait(timeout=60) == 0
        process.stdout.close()


@pytest.mark.parametrize(
    "args",
    [["--mode", "yolo"], ["--bogus"], ["extra"]],
)
def test_bad_arguments_exit_2(args: list[str]) -> None:
    result = run(b"", *args)
    assert result.returncode == 2
    assert result.stdout == b""
    assert b"Traceback" not in result.stderr


def test_gate_without_action_exits_2_with_usage() -> None:
    result = subprocess.run([sys.executable, "-m", "planview", "gate"], capture_output=True, timeout=60)
    assert result.returncode == 2
    assert b"planview gate check" in result.stderr


def test_gate_never_imports_textual() -> None:
    code = (
        "import sys, planview.gate, planview.commands.gate, planview.gate.policy;"
        "from planview.gate.policy import decide; decide({'tool': 'write_plan', 'input': {'plan_path': 'a.md'}}, 'plan');"
        "assert 'textual' not in sys.modules, 'textual imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr


# QA §4: gate check allowed these reads, which a plan-mode session refuses (the confinement lived
# only in the tools). Each is (tool, input, refused in plan mode).
def _reads(outside: Path, plan: Path) -> list[tuple[str, dict, bool]]:
    return [
        ("read", {"path": "/etc/passwd"}, True),
        ("read", {"path": "../../../etc/passwd"}, True),
        ("ls", {"path": "/"}, True),
        ("grep", {"pattern": "root", "path": "/etc"}, True),
        ("find", {"path": "~", "glob": "*"}, True),
        ("find", {"path": "~"}, True),  # no glob: refused by the gate before the tool can complain
        ("read", {"path": str(outside / "key")}, True),
        ("read", {"path": "link"}, True),  # a symlink inside the project to a file outside it
        ("ls", {"path": "linkdir"}, True),
        ("read", {"path": "linkdir/../README.md"}, True),  # resolves to outside/../README.md
        ("read", {"path": "linkdir/../project/README.md"}, False),  # resolves back inside
        ("read", {"path": "\x00"}, True),  # cannot be resolved, so cannot be checked: refused
        ("read", {"path": "README.md"}, False),
        ("read", {"path": str(plan)}, False),  # planview's home holds the plans, outside the project here
        ("grep", {"pattern": "sample"}, False),
        ("find", {"glob": "*.md"}, False),
        ("ls", {}, False),
    ]


async def test_reader_paths_get_the_verdict_a_plan_mode_session_gives(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from planview.session.events import ToolFinished
    from planview.session.providers.scripted import ScriptedProvider
    from planview.session.session import Session

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "key").write_text("TOPSECRET\n")
    (project / "link").symlink_to(outside / "key")
    (project / "linkdir").symlink_to(outside)
    home = tmp_path / "home"  # planview's home outside the project, as outside a git repository
    monkeypatch.setenv("PLANVIEW_HOME", str(home))
    (home / "plans").mkdir(parents=True)
    plan = home / "plans" / "p.md"
    plan.write_text("# P\n")
    reads = _reads(outside, plan)

    script = "\n".join(json.dumps({"tool_calls": [{"name": t, "arguments": i}]}) for t, i, _ in reads)
    events: list = []
    session = Session(
        project_root=project,
        provider=ScriptedProvider.from_text(script),
        on_event=events.append,
        plan_mode=True,
    )
    await session.send("look")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.refused for e in finished] == [refused for _, _, refused in reads]
    assert not any("TOPSECRET" in e.result for e in finished)

    stdin = "".join(json.dumps({"tool": t, "input": i}) + "\n" for t, i, _ in reads)
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "PLANVIEW_HOME": str(home)}
    for args, cwd in (([], project), (["--project-root", str(project)], tmp_path)):
        result = subprocess.run(
            [sys.executable, "-m", "planview", "gate", "check", *args],
            input=stdin.encode(),
            capture_output=True,
            timeout=60,
            env=env,
            cwd=cwd,
        )
        assert result.returncode == 0, result.stderr
        answers = lines(result)
        assert [a["decision"] == "deny" for a in answers] == [refused for _, _, refused in reads], answers
        for answer, event in zip(answers, finished, strict=True):
            if event.refused:  # the same reason the session gave the model
                assert answer["reason"] == event.reason
                assert "plan mode reads only the project" in answer["reason"]


@pytest.mark.parametrize("root", ["/nonexistent/project", "/etc/passwd"])
def test_a_project_root_that_is_no_folder_exits_2_naming_it(root: str) -> None:
    # QA3: every reader path was judged (and "read x" allowed) against a root that does not exist.
    result = run(b'{"tool": "read", "input": {"path": "x"}, "builtin": true}\n', "--project-root", root)
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().startswith(f"planview: --project-root {root} ")
    assert b"pass the project's folder" in result.stderr and b"Traceback" not in result.stderr
