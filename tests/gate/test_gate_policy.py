"""decide(): one table row per tool rule, plus malformed calls of many shapes and write_plan containment."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from planview.gate.calls import Decision, GatePolicy, GateRefusal, ToolCall
from planview.gate.policy import decide

READ_ONLY_SCHEMA = {
    "type": "object",
    "properties": {"agent": {"type": "string"}, "readOnly": {"type": "boolean"}},
}
PLAIN_SCHEMA = {"type": "object", "properties": {"agent": {"type": "string"}, "task": {"type": "string"}}}
HINT = {"readOnlyHint": True}


def call(name: str, input: Mapping[str, Any] | None = None, **fields: Any) -> ToolCall:
    return ToolCall(name=name, input=input or {}, **fields)


# (call, allowed in plan mode, reason fragment)
PLAN_TABLE: list[tuple[ToolCall, bool, str]] = [
    # planview's structured readers and helpers
    (call("read", {"path": "src/app.py"}), True, ""),
    (call("grep", {"pattern": "TODO", "path": "."}), True, ""),
    (call("find", {"glob": "**/*.py"}), True, ""),
    (call("ls", {"path": "/etc"}), True, ""),
    (call("todo", {"items": []}), True, ""),
    (call("ask_user", {"question": "Which API?"}), True, ""),
    # same names from elsewhere get no exemption: they are judged like any other tool
    (call("read", {"path": "x"}, builtin=False), False, "does not declare readOnlyHint"),
    (call("read", {"path": "x"}, builtin=False, annotations=HINT), False, "takes a file path"),
    (call("todo", {"items": []}, builtin=False, annotations=HINT), True, ""),
    # plan controls: exempt only as planview's own tools
    (call("write_plan", {"title": "T", "content": "# T"}), True, ""),
    (call("exit_plan_mode", {"plan_path": "/anywhere.md"}), True, ""),
    (
        call("write_plan", {"title": "T", "content": "# T"}, builtin=False),
        False,
        "is not planview's own tool",
    ),
    (
        call("write_plan", {"title": "T"}, builtin=False, annotations=HINT),
        False,
        "is not planview's own tool",
    ),
    (call("exit_plan_mode", {}, builtin=False, annotations=HINT), False, "is not planview's own tool"),
    (call("write_plan", {"title": "T", "content": "x", "plan_path": 3}), False, "plan_path must be a string"),
    # mode and step controls
    (call("enter_plan_mode", {}), False, "plan mode is already on"),
    (
        call("set_plan_steps", {"plan_path": "p.md", "updates": []}),
        False,
        "call exit_plan_mode and get the plan approved",
    ),
    # writers
    (
        call("write", {"path": "x", "content": "y"}),
        False,
        '"write" is not read-only; call exit_plan_mode and get the plan approved before changing files',
    ),
    (call("edit", {"path": "x"}), False, '"edit" is not read-only; call exit_plan_mode'),
    (call("edit", {"path": "x"}, annotations=HINT), False, '"edit" is not read-only'),
    (call("apply_patch", {"patch": "..."}, builtin=False, annotations=HINT), False, "is not read-only"),
    # bash: read-only git only
    (call("bash", {"command": "git status"}), True, ""),
    (call("bash", {"command": "git status && git diff --stat", "timeout": 30}), True, ""),
    (call("bash", {"command": "git commit -m x"}), False, "git commit changes the repository"),
    (
        call("bash", {"command": "cd src && git status"}),
        False,
        "cd is not needed: commands already run in the project root",
    ),
    (call("bash", {"command": "cat x"}), False, "use the read / grep / find / ls tools to look at files"),
    (call("bash", {"command": ["git", "status"]}), False, "string"),
    (call("bash", {}), False, "bash needs a command"),
    (call("bash", {"command": "git status", "cwd": "/"}), False, "cd is not needed"),
    (call("bash", {"command": "git status", "env": {"GIT_DIR": "/x"}}), False, 'drop "env"'),
    (call("bash", {"command": "git status"}, builtin=False), False, "is not available in plan mode"),
    (
        call("bash", {"command": "git status"}, builtin=False, annotations=HINT),
        False,
        "is not available in plan mode",
    ),
    (call("powershell", {"command": "git status"}), False, '"powershell" is not available in plan mode'),
    (call("powershell", {"command": "Get-ChildItem"}, annotations=HINT), False, "not available"),
    # subagent: only with a readOnly schema, then forced read-only
    (call("subagent", {"agent": "explorer"}, input_schema=READ_ONLY_SCHEMA), True, ""),
    (call("subagent", {"agent": "worker", "readOnly": False}, input_schema=READ_ONLY_SCHEMA), True, ""),
    (call("subagent", {"agent": "explorer"}, input_schema=PLAIN_SCHEMA), False, "does not declare readOnly"),
    (call("subagent", {"agent": "explorer"}), False, "does not declare readOnly"),
    (call("subagent", {"agent": "x"}, annotations=HINT), False, "does not declare readOnly"),
    (
        call("subagent", {"a": 1}, input_schema={"properties": {"readOnly": {"type": "string"}}}),
        False,
        "readOnly",
    ),
    (call("subagent", {"a": 1}, input_schema={"properties": ["readOnly"]}), False, "readOnly"),
    # a subagent that is not planview's own starts an agent of its own: its readOnly argument is only
    # a claim, so it gets no exemption by name (before: allowed with any arguments, a path included,
    # without readOnlyHint and with hinted tools turned off)
    (
        call("mcp__agents__subagent", {"task": "t"}, builtin=False, input_schema=READ_ONLY_SCHEMA),
        False,
        "not planview's own subagent",
    ),
    (
        call(
            "subagent",
            {"task": "t", "path": "/etc/shadow"},
            builtin=False,
            input_schema=READ_ONLY_SCHEMA,
            annotations=HINT,
        ),
        False,
        "not planview's own subagent",
    ),
    (call("my.subagent", {"task": "t"}, builtin=False, input_schema=READ_ONLY_SCHEMA), False, "own subagent"),
    # readOnlyHint tools: allowed unless they take a path
    (call("web_search", {"query": "textual line api"}, builtin=False, annotations=HINT), True, ""),
    (
        call(
            "mcp__gh__list_issues",
            {"owner": "octo", "repo": "hello", "state": "open"},
            builtin=False,
            annotations=HINT,
        ),
        True,
        "",
    ),
    (call("web_fetch", {"url": "https://example.com/a/b.html"}, builtin=False, annotations=HINT), True, ""),
    (
        call("mcp__fs__read_file", {"path": "x"}, builtin=False, annotations=HINT),
        False,
        'path argument "path"',
    ),
    (
        call("mcp__fs__stat", {"target": {"filePaths": ["a"]}}, builtin=False, annotations=HINT),
        False,
        "target",
    ),
    (
        call("mcp__x__search", {"opts": {"where": ["~/secrets"]}}, builtin=False, annotations=HINT),
        False,
        '"~/secrets"',
    ),
    (
        call("mcp__x__q", {"q": "ok"}, builtin=False, annotations={"readOnlyHint": "true"}),
        False,
        "does not declare readOnlyHint",
    ),
    (
        call("mcp__x__q", {"q": "ok"}, builtin=False, annotations={"readOnlyHint": 1}),
        False,
        "does not declare readOnlyHint",
    ),
    (
        call("mcp__x__q", {"q": "ok"}, builtin=False, annotations={"readOnlyHint": False}),
        False,
        "does not declare readOnlyHint",
    ),
    (
        call("mcp__x__q", {"q": "ok"}, builtin=False, annotations={"destructiveHint": False}),
        False,
        "does not declare",
    ),
    # unknown tools: default deny
    (call("deploy", {}), False, '"deploy" is not known to be read-only'),
    (call("mcp__db__query", {"sql": "DROP TABLE x"}, builtin=False), False, "is not known to be read-only"),
    (call("Read", {"path": "x"}), False, "is not known to be read-only"),
    (call("read ", {"path": "x"}), False, "is not known to be read-only"),
]


@pytest.mark.parametrize(("tool_call", "allowed", "fragment"), PLAN_TABLE)
def test_plan_mode_rules(tool_call: ToolCall, allowed: bool, fragment: str) -> None:
    decision = decide(tool_call, "plan")
    assert decision.allowed is allowed, decision.reason
    assert fragment in decision.reason
    if not allowed:
        assert decision.reason  # every refusal says why


@pytest.mark.parametrize(("tool_call", "allowed", "fragment"), PLAN_TABLE)
def test_execute_mode_allows_every_well_formed_call(
    tool_call: ToolCall, allowed: bool, fragment: str
) -> None:
    decision = decide(tool_call, "execute")
    assert decision.allowed
    assert decision.call == tool_call  # nothing is rewritten outside plan mode


def test_subagent_is_forced_read_only() -> None:
    original = call(
        "subagent", {"agent": "worker", "readOnly": False, "task": "t"}, input_schema=READ_ONLY_SCHEMA
    )
    decision = decide(original, "plan")
    assert decision.allowed
    assert decision.call.input == {"agent": "worker", "readOnly": True, "task": "t"}
    assert decision.call.input_schema == READ_ONLY_SCHEMA
    assert original.input["readOnly"] is False  # the caller's call is not mutated


def test_subagent_schema_true_property_counts() -> None:
    decision = decide(call("subagent", {}, input_schema={"properties": {"readOnly": True}}), "plan")
    assert decision.allowed and decision.call.input == {"readOnly": True}


def test_config_switch_turns_hinted_tools_off() -> None:
    hinted = call("web_search", {"query": "x"}, builtin=False, annotations=HINT)
    off = GatePolicy(allow_read_only_hint=False)
    decision = decide(hinted, "plan", off)
    assert not decision.allowed
    assert "turned off in plan mode by configuration" in decision.reason
    # The switch leaves planview's own readers and the git shell alone.
    assert decide(call("read", {"path": "x"}), "plan", off).allowed
    assert decide(call("bash", {"command": "git log"}), "plan", off).allowed


def test_allowed_decisions_return_the_call() -> None:
    original = call("bash", {"command": "git status"})
    decision = decide(original, "plan")
    assert decision == Decision(True, "read-only git", original)


def test_require_raises_gate_refusal_with_the_reason() -> None:
    decision = decide(call("write", {"path": "x"}), "plan")
    with pytest.raises(GateRefusal) as caught:
        decision.require()
    assert caught.value.reason == decision.reason and caught.value.tool == "write"
    assert decide(call("read", {"path": "x"}), "plan").require().name == "read"


def test_mapping_calls_are_accepted() -> None:
    assert decide({"tool": "bash", "input": {"command": "git status"}}, "plan").allowed
    assert decide({"name": "read", "input": {"path": "x"}}, "plan").allowed
    assert decide({"tool": "todo"}, "plan").allowed  # no input means no arguments
    hinted = {
        "tool": "web_search",
        "input": {"q": "x"},
        "annotations": {"readOnlyHint": True},
        "builtin": False,
    }
    assert decide(hinted, "plan").allowed
    schema = {"tool": "subagent", "input": {}, "inputSchema": READ_ONLY_SCHEMA}
    assert decide(schema, "plan").call.input == {"readOnly": True}


def test_unknown_mode_is_refused() -> None:
    decision = decide(call("read", {"path": "x"}), "yolo")
    assert not decision.allowed and "unknown mode" in decision.reason


class ExplodingMapping(Mapping):
    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("boom")

    def __iter__(self) -> Iterator[str]:
        raise RuntimeError("boom")

    def __len__(self) -> int:
        return 1


MALFORMED: list[tuple[Any, str]] = [
    (None, "got null"),
    ("bash", "got a string"),
    (42, "got a number"),
    (True, "got a boolean"),
    (["bash", {"command": "git status"}], "got an array"),
    (object(), "got a object"),
    ({}, "missing the tool name"),
    ({"input": {"command": "git status"}}, "missing the tool name"),
    ({"tool": None}, "the tool name must be a string, got null"),
    ({"tool": 7}, "the tool name must be a string, got a number"),
    ({"tool": ["bash"]}, "the tool name must be a string, got an array"),
    ({"tool": ""}, "the tool name is empty"),
    ({"tool": "   "}, "the tool name is empty"),
    ({"tool": "bash", "input": ["git", "status"]}, "input must be a JSON object, got an array"),
    ({"tool": "bash", "input": "git status"}, "input must be a JSON object, got a string"),
    ({"tool": "bash", "input": None}, "input must be a JSON object, got null"),
    ({"tool": "bash", "input": {1: "x"}}, "non-string key"),
    ({"tool": "web", "input": {}, "annotations": ["readOnlyHint"]}, "annotations must be a JSON object"),
    ({"tool": "web", "input": {}, "annotations": True}, "annotations must be a JSON object"),
    ({"tool": "read", "input": {}, "builtin": "true"}, "builtin must be true or false"),
    ({"tool": "read", "input": {}, "builtin": 1}, "builtin must be true or false"),
    ({"tool": "subagent", "input": {}, "input_schema": "readOnly"}, "input_schema must be a JSON object"),
    ({"tool": "read", "name": "write", "input": {}}, '"tool" and "name" disagree'),
    ({"tool": "read", "input": {}, "annotation": {"readOnlyHint": True}}, 'unknown field "annotation"'),
    (ToolCall(name=5, input={}), "the tool name must be a string"),  # type: ignore[arg-type]
    (ToolCall(name="read", input=[]), "input must be a JSON object"),  # type: ignore[arg-type]
    (ToolCall(name="read", input={}, builtin="yes"), "builtin must be true or false"),  # type: ignore[arg-type]
    (ExplodingMapping(), "could not be read"),
    ({"tool": "bash", "input": ExplodingMapping()}, "could not be read"),
]


@pytest.mark.parametrize(("value", "fragment"), MALFORMED)
@pytest.mark.parametrize("mode", ["plan", "execute"])
def test_malformed_calls_are_refused_in_every_mode(value: Any, fragment: str, mode: str) -> None:
    decision = decide(value, mode)
    assert not decision.allowed
    assert decision.reason.startswith("malformed tool call: ")
    assert fragment in decision.reason
    assert isinstance(decision.call, ToolCall)


def test_malformed_call_keeps_a_readable_name() -> None:
    assert decide({"tool": "bash", "input": []}, "plan").call == ToolCall(name="bash", input={})


# -- write_plan's plan_path containment ------------------------------------------------------------


@pytest.fixture
def plans(tmp_path: Path) -> Path:
    folder = tmp_path / ".planview" / "plans"
    folder.mkdir(parents=True)
    return folder


def write_plan(plan_path: Any) -> ToolCall:
    return call("write_plan", {"title": "T", "content": "# T", "plan_path": plan_path})


def store_policy(plans: Path) -> GatePolicy:
    """The policy a session builds: its own plan store's check_path handed in."""
    from planview.plan.store import PlanStore

    return GatePolicy(plans_dir=plans, plan_path_check=PlanStore(plans.parent).check_path)


@pytest.mark.parametrize(
    "plan_path",
    ["2026-01-14-1030-x.md", "{plans}/2026-01-14-1030-x.md", "{plans}/existing.md"],
)
def test_plan_path_inside_the_folder_is_allowed(plans: Path, plan_path: str) -> None:
    (plans / "existing.md").write_text("# old\n")
    for policy in (store_policy(plans), GatePolicy(plans_dir=plans)):  # the store's rule; the lexical one
        decision = decide(write_plan(plan_path.format(plans=plans)), "plan", policy)
        assert decision.allowed, decision.reason


@pytest.mark.parametrize(
    ("plan_path", "fragment"),
    [
        ("{plans}/../escape.md", "inside"),
        ("/etc/passwd.md", "inside"),
        ("{plans}/notes.txt", ".md"),
        ("{plans}/.hidden.md", "hidden"),
        ("{plans}/.gitignore", "hidden"),
        ("{plans}", "plans folder itself"),
        ("", ".md"),
        ("{plans}/link.md", "symlink"),
        ("{plans}/linkdir/x.md", "outside"),
    ],
)
def test_plan_path_outside_the_rules_is_refused(
    plans: Path, tmp_path: Path, plan_path: str, fragment: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "target.md").write_text("x")
    os.symlink(outside / "target.md", plans / "link.md")
    os.symlink(outside, plans / "linkdir")
    decision = decide(write_plan(plan_path.format(plans=plans)), "plan", store_policy(plans))
    assert not decision.allowed
    assert decision.reason.startswith("write_plan refused: ")
    assert fragment in decision.reason, decision.reason
    lexical = decide(write_plan(plan_path.format(plans=plans)), "plan", GatePolicy(plans_dir=plans))
    assert not lexical.allowed, "without the store's check the lexical rule still refuses"


def test_a_plan_path_check_that_fails_is_a_refusal_not_a_crash(plans: Path) -> None:
    def broken(path: str) -> object:
        raise OSError(5, "Input/output error")

    policy = GatePolicy(plans_dir=plans, plan_path_check=broken)
    decision = decide(write_plan("a.md"), "plan", policy)
    assert not decision.allowed and "could not be checked" in decision.reason, decision.reason


def test_plan_path_with_a_plans_dir_the_store_cannot_express(tmp_path: Path) -> None:
    folder = tmp_path / "my-plans"
    folder.mkdir()
    policy = GatePolicy(plans_dir=folder)
    assert decide(write_plan(str(folder / "a.md")), "plan", policy).allowed
    assert decide(write_plan("a.md"), "plan", policy).allowed
    assert not decide(write_plan(str(tmp_path / "a.md")), "plan", policy).allowed
    assert not decide(write_plan(str(folder / ".a.md")), "plan", policy).allowed
    assert not decide(write_plan(str(folder / "a.txt")), "plan", policy).allowed


def test_the_gates_fallback_and_the_store_agree_on_sub_folders(plans: Path) -> None:
    """Issue 25.7: the fallback (no store handed in) allowed `sub/x.md`, which the store refuses."""
    from planview.plan.errors import PlanPathError
    from planview.plan.store import PlanStore

    store = PlanStore(plans.parent)
    for plan_path in ("sub/x.md", str(plans / "sub" / "x.md")):
        with pytest.raises(PlanPathError):
            store.check_path(plan_path)
        assert not decide(write_plan(plan_path), "plan", GatePolicy(plans_dir=plans)).allowed, plan_path
    (
        plans / "sub"
    ).mkdir()  # an existing sub-folder: the store takes it by its absolute path, so does the gate
    assert store.check_path(str(plans / "sub" / "x.md"))
    assert decide(write_plan(str(plans / "sub" / "x.md")), "plan", GatePolicy(plans_dir=plans)).allowed


def test_plan_path_without_a_plans_dir_accepts_only_a_file_name() -> None:
    assert decide(write_plan("2026-01-14-1030-x.md"), "plan").allowed
    for bad in ("/tmp/x.md", "../x.md", "sub/x.md", ".x.md", "x.txt"):
        decision = decide(write_plan(bad), "plan")
        assert not decision.allowed, bad
    assert "no plans folder is configured" in decide(write_plan("/tmp/x.md"), "plan").reason


def test_write_plan_without_plan_path_is_allowed_with_null() -> None:
    assert decide(write_plan(None), "plan").allowed


# Issue 11: with readOnlyHint: true the gate allowed each of these names.
HINTED_MUTATORS = [
    "Bash",
    "BASH",
    "bash ",
    " Bash\u200b",
    "Ｂａｓｈ",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Shell",
    "Exec",
    "execute_command",
    "run_shell_command",
    "Run-Shell-Command",
    "write_file",
    "replace",
    "apply_patch",
    "git_push",
    "Task",
    "mcp__fs__write_file",
    "filesystem.edit_file",
    "server/run_terminal_cmd",
    "mcp__shell__exec",
]


@pytest.mark.parametrize("name", HINTED_MUTATORS)
def test_known_mutators_and_shells_are_refused_whatever_they_declare(name: str) -> None:
    decision = decide(call(name, {"q": "ok"}, builtin=False, annotations=HINT), "plan")
    assert not decision.allowed, name
    assert "not read-only" in decision.reason or "not available in plan mode" in decision.reason


def test_loosely_named_plan_tools_get_their_specific_refusals() -> None:
    steps = decide(call("Set_Plan_Steps", {}, builtin=False, annotations=HINT), "plan")
    assert not steps.allowed and "updates an approved plan" in steps.reason
    sub = decide(call("Subagent", {"task": "x"}, builtin=False, annotations=HINT), "plan")
    assert not sub.allowed and "not planview's own subagent" in sub.reason
    plan = decide(call("Write_Plan", {"content": "x"}, builtin=False, annotations=HINT), "plan")
    assert not plan.allowed and "not planview's own tool" in plan.reason


@pytest.mark.parametrize(
    "value",
    [
        "//etc/passwd",
        "///etc/passwd",
        "etc/passwd",
        ".env",
        "$HOME/.ssh/id_rsa",
        "${HOME}/x",
        "%2Fetc%2Fpasswd",
        "\uff0fetc\uff0fpasswd",
        "\u200b/etc/passwd",
        "ok\n/etc/passwd",
        "x" * 4097,
        "cat /etc/passwd",
        '{"file": "/etc/passwd"}',
        "SELECT * FROM read_csv('/etc/passwd')",
    ],
)
def test_hinted_tools_cannot_smuggle_a_path(value: str) -> None:
    decision = decide(
        call("mcp__x__query", {"q": {"deep": [value]}}, builtin=False, annotations=HINT), "plan"
    )
    assert not decision.allowed and "takes a file path" in decision.reason
