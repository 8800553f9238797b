"""The pure rules of the ACP layer: profiles, modes, how a request maps onto the gate, option picking."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from planview.agents import permissions as perm
from planview.agents.errors import AgentConfigError
from planview.agents.modes import AgentModes, current_from_update
from planview.agents.profiles import BUILTIN, GUARANTEE_TEXT, agent_spec, resolve_agent
from planview.gate.calls import GatePolicy
from planview.gate.policy import decide

ROOT = Path("/repo")
PLANS = ROOT / ".planview" / "plans"


def test_every_builtin_profile_says_how_far_it_holds() -> None:
    assert set(BUILTIN) == {"gemini", "claude", "codex", "goose", "opencode"}
    for profile in BUILTIN.values():
        assert profile.argv and profile.install and profile.plan_modes and profile.execute_modes
        assert profile.guarantee in GUARANTEE_TEXT and profile.layers and profile.advisory
        assert profile.label == f"ACP: {profile.name}"
    assert BUILTIN["claude"].session_meta["claudeCode"]["options"]["disallowedTools"][:2] == ["Write", "Edit"]
    assert BUILTIN["codex"].env == {"INITIAL_AGENT_MODE": "read-only"}
    assert BUILTIN["gemini"].argv[1:] == ("--acp", "--approval-mode", "plan")


def test_a_command_line_gets_the_generic_profile() -> None:
    profile = resolve_agent('python "my agent.py" --fast')
    assert profile.argv == ("python", "my agent.py", "--fast") and not profile.builtin
    assert "plan" in profile.plan_modes and "read-only" in profile.plan_modes
    with pytest.raises(AgentConfigError, match="check its quotes"):
        resolve_agent('python "unclosed')
    with pytest.raises(AgentConfigError, match="needs a name"):
        resolve_agent("  ")


@pytest.mark.parametrize(
    "command",
    [
        "gemini --yolo",
        "gemini --approval-mode yolo",
        "gemini --approval-mode=yolo",
        "claude-agent-acp --dangerously-skip-permissions",
        "codex --dangerously-bypass-approvals-and-sandbox",
        "codex --sandbox danger-full-access",
        "my-agent --permission-mode bypassPermissions",
    ],
)
def test_an_agent_command_that_turns_its_own_checks_off_is_refused(command: str) -> None:
    with pytest.raises(AgentConfigError, match="turns the agent's own permission checks off"):
        resolve_agent(command)


def test_which_agent_a_run_drives() -> None:
    config = NS(agent_command="gemini")
    assert agent_spec("claude", None, config, explicit=False) == "claude"
    assert agent_spec(None, None, config, explicit=False) == "gemini"
    assert (
        agent_spec(None, None, config, explicit=True) is None
    )  # --provider / --script chose planview's agent
    assert agent_spec(None, {"kind": "acp", "agent": "codex"}, config, explicit=False) == "codex"
    assert agent_spec(None, {"kind": "scripted", "path": "x"}, config, explicit=False) is None
    with pytest.raises(AgentConfigError, match="cannot be combined"):
        agent_spec("claude", None, config, explicit=True)


def modes(*pairs: tuple[str, str], current: str = "default") -> AgentModes:
    state = NS(current_mode_id=current, available_modes=[NS(id=i, name=n) for i, n in pairs])
    return AgentModes.from_response(state, None)


def test_plan_mode_is_found_by_id_then_by_name() -> None:
    found = modes(("default", "Default"), ("architect-x", "Plan")).find(["plan"])
    assert found is not None and found.value == "architect-x" and found.via == "mode"
    assert modes(("code", "Code")).find(["plan", "read-only"]) is None


def test_config_option_of_category_mode_wins_over_modes() -> None:
    option = NS(
        type="select",
        category="mode",
        id="mode",
        current_value="agent",
        options=[NS(value="agent", name="Agent"), NS(value="read-only", name="Read-only")],
    )
    state = NS(current_mode_id="x", available_modes=[NS(id="plan", name="Plan")])
    found = AgentModes.from_response(state, [option]).find(["plan", "read-only"])
    assert (
        found is not None
        and found.via == "config"
        and found.config_id == "mode"
        and found.value == "read-only"
    )
    assert current_from_update(NS(session_update="config_option_update", config_options=[option])) == "agent"
    assert current_from_update(NS(session_update="current_mode_update", current_mode_id="plan")) == "plan"


def gate(kind: str | None, raw: dict | None = None, title: str = "", locations: tuple[str, ...] = ()) -> bool:
    call = perm.gate_call(kind, title, raw, list(locations), PLANS, ROOT)
    return decide(call, "plan", GatePolicy(plans_dir=PLANS)).allowed


def test_plan_mode_permissions_through_the_gate() -> None:
    assert gate("execute", {"command": "git status"})
    assert gate("execute", {"command": ["git", "log", "--oneline"]})
    assert not gate("execute", {"command": "git commit -am x"})
    assert not gate("execute", {"command": "rm -rf src"})
    assert not gate("execute", {"command": "git status; rm -rf src"})
    assert not gate("execute", None)  # a command planview cannot see is not read-only
    assert not gate("edit", {"file_path": "/repo/src/app.py"})
    assert not gate("delete", {"path": "/repo/README.md"})
    assert not gate("move", {"path": "/repo/a", "destination": "/repo/b"})
    assert not gate("fetch", {"url": "https://example.com"})
    assert not gate(None, {}, title="mystery tool")
    assert gate("read", {"path": "/repo/README.md"}) and gate("search", {}) and gate("think", {})


def test_an_edit_of_the_plan_file_is_the_one_allowed_write(tmp_path: Path) -> None:
    root = tmp_path
    plans = root / ".planview" / "plans"
    plans.mkdir(parents=True)

    def allowed(path: str) -> bool:
        call = perm.gate_call("edit", "Write", {"file_path": path}, [], plans, root)
        return decide(call, "plan", GatePolicy(plans_dir=plans)).allowed

    assert allowed(str(plans / "my-plan.md"))
    assert not allowed(str(plans / "notes.txt"))
    assert not allowed(str(plans / ".hidden.md"))
    assert not allowed(str(plans / ".." / "ledger.md"))  # out of the plans folder
    (plans / "escape.md").symlink_to(root / "README.md")
    assert not allowed(str(plans / "escape.md"))  # a symlink out of the folder


def test_exit_plan_requests_and_their_plan() -> None:
    assert perm.is_exit_plan("switch_mode", "Ready to code?", ())
    assert perm.is_exit_plan("other", "Plan Approval", BUILTIN["gemini"].exit_plan_titles)
    assert not perm.is_exit_plan("edit", "Plan Approval is near", ())
    assert perm.plan_text({"plan": "# P\n"}, "") == "# P\n"
    assert perm.plan_text({}, "# From content\n") == "# From content\n"
    assert perm.plan_text({}, "  ") is None
    assert perm.plan_file({"plan_filename": "x.md"}, "", []) == "x.md"
    assert perm.plan_file(None, "Requesting plan approval for: /tmp/p/plan.md", []) == "/tmp/p/plan.md"


def test_options_are_picked_by_kind_in_order() -> None:
    options = [
        NS(option_id="always", kind="allow_always"),
        NS(option_id="once", kind="allow_once"),
        NS(option_id="no", kind="reject_once"),
    ]
    assert perm.pick_option(options, perm.ALLOW_KINDS) == "once"
    assert perm.pick_option(options, perm.REJECT_KINDS) == "no"
    assert perm.pick_option(options[:1], perm.REJECT_KINDS) is None


def test_a_read_the_agent_asks_for_outside_the_project_is_refused(tmp_path: Path) -> None:
    """An agent asking leave to read ~/.ssh/id_rsa (Gemini asks before reading outside its workspace)
    was answered with allow: a read kind dropped its paths. Now its paths get the readers' rule."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "ext").symlink_to(tmp_path)
    plans = root / ".planview" / "plans"
    policy = GatePolicy(plans_dir=plans, project_root=root)

    def asked(raw: dict, locations: tuple[str, ...] = ()) -> tuple[bool, str]:
        decision = decide(perm.gate_call("read", "Read", raw, list(locations), plans, root), "plan", policy)
        return decision.allowed, decision.reason

    for raw, locations in (
        ({"file_path": "/home/me/.ssh/id_rsa"}, ()),
        ({"path": "~/.aws/credentials"}, ()),
        ({}, (str(tmp_path / "secret.txt"),)),
        ({"absolute_path": "ext/secret.txt"}, ()),  # through a link that leads out
        ({"path": "src/app.py"}, ("/etc/passwd",)),
    ):
        allowed, reason = asked(raw, locations)
        assert not allowed and "outside the project" in reason, (raw, locations)
    assert asked({"file_path": str(root / "src" / "app.py")})[0]
    assert asked({"path": "src"}, (str(root / "src"),))[0]
    assert asked({})[0]  # nothing named: the agent's read of what it already shows


def test_every_path_in_a_request_is_read_nested_keys_lists_and_working_folders(tmp_path: Path) -> None:
    """Issue 23: ACP permission requests carry paths and working folders under keys the mapping never
    read (nested options, lists, cwd, workdir, filePath inside edits, locations as objects)."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    plans = root / ".planview" / "plans"
    policy = GatePolicy(plans_dir=plans, project_root=root)

    def allowed(kind: str, raw: dict) -> bool:
        return decide(perm.gate_call(kind, "Tool", raw, [], plans, root), "plan", policy).allowed

    for raw in (
        {"cwd": "/etc", "pattern": "root"},
        {"workdir": "/home/me/.ssh"},
        {"options": {"paths": ["src", "/home/me/.aws/credentials"]}},
        {"locations": [{"path": "/etc/shadow", "line": 1}]},
        {"query": "TODO", "include": ["~/.ssh/id_rsa"]},
        {"args": {"dir_path": "../../elsewhere"}},
        {"targets": [["nested", {"file": "/etc/hosts"}]]},
    ):
        assert not allowed("search", raw), raw
        assert not allowed("read", raw), raw
    assert allowed("search", {"cwd": str(root), "pattern": "TODO", "paths": ["src"]})
    assert allowed("search", {"pattern": "/api/users", "query": "~/notes", "path": "src"})
    # An edit naming a second file deep in its input is not "only the plan file".
    plan = str(plans / "p.md")
    assert allowed("edit", {"file_path": plan})
    assert not allowed("edit", {"file_path": plan, "edits": [{"filePath": str(root / "src" / "app.py")}]})
    assert sorted(perm.target_paths({"a": {"b": [{"path": "x"}, {"paths": ["y", "z"]}]}}, [])) == [
        "x",
        "y",
        "z",
    ]


@pytest.mark.parametrize(
    "raw",
    [
        {"command": "git status", "cwd": "/"},
        {"command": "git status", "workdir": "/tmp"},
        {"command": "git log", "env": {"GIT_DIR": "/elsewhere/.git"}},
        {"command": "git log", "env": [{"name": "PAGER", "value": "sh"}]},
        {"command": "git status", "run_in_background": True},
        {"command": "git status", "is_background": True},
        {"command": "git status", "background": "true"},
    ],
)
def test_an_execute_request_with_a_cwd_env_or_background_flag_is_refused(raw: dict) -> None:
    """The agent runs an allowed command in its own shell with what it asked for: a working folder,
    environment or background flag the gate never judged changes what `git status` does."""
    call = perm.gate_call("execute", "Run", raw, [], PLANS, ROOT)
    decision = decide(call, "plan", GatePolicy(plans_dir=PLANS))
    assert not decision.allowed
    assert any(word in decision.reason for word in ("cwd", "env", "background", "working folder")), (
        decision.reason
    )


def test_an_execute_request_without_extras_is_still_judged_by_its_command() -> None:
    assert gate("execute", {"command": "git status", "description": "show status", "timeout": 5000})
    assert gate("execute", {"command": "git status", "run_in_background": False, "env": {}})


def test_a_permission_of_another_kind_naming_a_folder_outside_is_refused_as_a_read(tmp_path: Path) -> None:
    """opencode 1.18 asks `external_directory` (kind "other") to reach a folder outside the project;
    planview answered '"other" is not known to be read-only'. A path outside now gets the readers' rule."""
    root = tmp_path / "repo"
    root.mkdir()
    plans = root / ".planview" / "plans"
    policy = GatePolicy(plans_dir=plans, project_root=root)
    raw = {"filepath": "/etc/hosts", "parentDir": "/etc"}
    decision = decide(perm.gate_call("other", "external_directory", raw, [], plans, root), "plan", policy)
    assert not decision.allowed and "outside the project" in decision.reason
    assert '"other"' not in decision.reason


def test_an_unknown_kind_is_refused_in_the_agents_terms() -> None:
    text = perm.unknown_kind_refusal("other", "todo sync", "opencode", ".planview/plans")
    assert '"todo sync"' in text and 'kind "other"' in text and ".planview/plans" in text
    assert "exit_plan_mode" not in text and "readOnlyHint" not in text
