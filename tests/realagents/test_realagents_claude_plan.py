"""Claude Code 2.1.328 for real, with planview's hooks installed, in plan mode (`claude -p
--permission-mode plan`): what planview refuses reaches the model as the tool's result, naming a fix
in terms of tools this Claude has, and nothing is written."""

from __future__ import annotations

from pathlib import Path

from harness import claude_run
from harness.agents import claude_env
from harness.anthropic_api import AnthropicServer
from harness.netns import run_isolated
from harness.scenario import call, say


def _refusals(project: Path, home: Path) -> dict:
    home.mkdir(parents=True, exist_ok=True)
    outside = home / "secret.txt"
    outside.write_text("the user's secret\n")
    steps = [
        call("Write", file_path=str(project / "notes.txt"), content="planned\n"),
        call("Bash", command="echo hi > written.txt", description="write"),
        call("Read", file_path=str(outside)),
        # A quoted argument that, if the hook's wrapper quoted it wrongly, would run `touch`.
        call("Bash", command="git log -1 --format='%s'\"'\"'; touch PWNED; echo '", description="log"),
        call("Bash", command="git log -1 --format=%s'\n'; touch PWNED2", description="log"),
        say("I will plan instead."),
    ]
    with AnthropicServer(steps) as server:
        env = claude_env(home, server.url, project)
        claude_run.install_hooks(project, env)
        result = claude_run.headless(project, env, "add a notes file", "--permission-mode", "plan")
        return {"result": result, "results": server.results()}


def test_plan_mode_refusals_reach_claude_with_a_fix_it_has(
    agents: Path, project: Path, tmp_path: Path
) -> None:
    seen = run_isolated(_refusals, project, tmp_path / "home")
    write, shell_write, outside, quoted, newline = seen["results"]
    assert write.name == "Write" and write.is_error
    assert "planview" in write.text.lower() or "plan" in write.text
    assert "ExitPlanMode" in write.text and "TodoWrite" not in write.text
    assert shell_write.is_error and "written.txt" not in {p.name for p in project.iterdir()}
    assert outside.is_error and "the user's secret" not in outside.text
    assert not (project / "notes.txt").exists()
    # The hostile quoting either ran as one git argument or was refused; `touch` never ran.
    assert not (project / "PWNED").exists() and not (project / "PWNED2").exists()
    for refusal in (write, shell_write, outside):
        # Refusals name only tools this Claude Code has (2.1.328 has no Grep, Glob, LS or TodoWrite).
        for missing_tool in ("Grep", "Glob", "LS", "TodoWrite"):
            assert missing_tool not in refusal.text, (missing_tool, refusal.text)
    assert seen["result"]["is_error"] is False


def _deferred(body: dict) -> list[str]:
    """The tools Claude Code lists as deferred (loadable through ToolSearch) in its first request."""
    marker = "deferred tools are now available via ToolSearch"
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            text = block.get("text", "") if isinstance(block, dict) else ""
            if marker in text:
                listing = text[text.index(marker) :].split("\n\n")[0]
                return [line.strip() for line in listing.splitlines()[1:] if line.strip()]
    return []


def _plan_on_default_mode(project: Path, home: Path) -> dict:
    steps = [
        call("Write", file_path=str(project / "notes.txt"), content="planned\n"),
        call("Bash", command="git log --oneline -1", description="last commit"),
        say("Planned."),
    ]
    with AnthropicServer(steps) as server:
        env = claude_env(home, server.url, project)
        claude_run.install_hooks(project, env)
        claude_run.planview(project, env, "claude", "plan", "on")
        claude_run.headless(project, env, "add a notes file")  # Claude's default permission mode
        first = server.main_requests()[0].body
        offered = [tool["name"] for tool in first["tools"]]
        return {"results": server.results(), "offered": offered + _deferred(first)}


def test_plan_on_in_default_mode_refuses_with_enter_plan_mode_and_runs_read_only_git(
    agents: Path, project: Path, tmp_path: Path
) -> None:
    seen = run_isolated(_plan_on_default_mode, project, tmp_path / "home")
    write, log = seen["results"]
    assert write.is_error and not (project / "notes.txt").exists()
    # Claude Code rejects ExitPlanMode outside its plan mode: the fix starts with EnterPlanMode.
    assert write.text.index("EnterPlanMode") < write.text.index("ExitPlanMode"), write.text
    # The hook's allow (with the command rewritten under planview's git environment) is honoured here.
    assert not log.is_error and "init" in log.text, log.text
    # `claude -p` offers neither plan-mode tool, not even deferred: a headless Claude cannot hand a plan over.
    assert "ToolSearch" in seen["offered"] and "WebFetch" in seen["offered"]  # the deferred list was read
    assert "ExitPlanMode" not in seen["offered"] and "EnterPlanMode" not in seen["offered"]


SEARCHES = (
    "rg -n zebracorn .",
    "grep -rn zebracorn src",
    "find . -name '*.py'",
    "ls -la src",
    "cat README.md | head -3",
)


def _plan_on_searches(project: Path, home: Path) -> dict:
    (project / "src").mkdir()
    (project / "src" / "animals.py").write_text("# stable\nHORN = 'zebracorn'\n")
    (project / "src" / "util.py").write_text("def helper():\n    return 1\n")
    (project / "README.md").write_text("# sample project\nsecond line\nthird line\nfourth line\n")
    steps = [call("Bash", command=command, description="search") for command in SEARCHES]
    steps += [call("Bash", command="echo x > f.txt", description="write"), say("Searched.")]
    with AnthropicServer(steps) as server:
        env = claude_env(home, server.url, project)
        claude_run.install_hooks(project, env)
        claude_run.planview(project, env, "claude", "plan", "on")
        result = claude_run.headless(project, env, "find the zebracorn")  # default permission mode
        return {"result": result, "results": server.results()}


def test_plan_on_in_default_mode_runs_read_only_searches_in_the_sandbox_and_not_a_write(
    agents: Path, project: Path, tmp_path: Path
) -> None:
    seen = run_isolated(_plan_on_searches, project, tmp_path / "home")
    rg, grep, find, ls, head, write = seen["results"]
    for searched in (rg, grep, find, ls, head, write):
        assert searched.name == "Bash", searched
    for ran in (rg, grep, find, ls, head):
        assert not ran.is_error, ran.text
    # Each tool_result Claude sent back is the command's real output.
    assert "src/animals.py:2:HORN = 'zebracorn'" in rg.text, rg.text
    assert "src/animals.py:2:HORN = 'zebracorn'" in grep.text, grep.text
    assert "./src/animals.py" in find.text and "./src/util.py" in find.text, find.text
    assert "animals.py" in ls.text and "util.py" in ls.text and "total" in ls.text, ls.text
    assert "# sample project\nsecond line\nthird line" in head.text, head.text
    assert "fourth line" not in head.text, head.text
    # The write in the same run does not happen (refused, or stopped by the read-only sandbox).
    assert not (project / "f.txt").exists(), write.text
    assert seen["result"]["is_error"] is False
