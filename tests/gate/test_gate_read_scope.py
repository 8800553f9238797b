"""gate.read_scope: the one rule for where plan-mode readers may look (the gate, the tools, the Claude hook)."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.gate.calls import GatePolicy, ToolCall
from planview.gate.policy import decide
from planview.gate.read_scope import inside, locate, read_roots, refusal


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "key").write_text("secret")
    (root / "out").symlink_to(tmp_path / "outside")
    (root / "src" / "up").symlink_to("..")  # a link that stays inside
    (root / "src" / "esc").symlink_to("../..")  # a link that leaves
    (root / "loop").symlink_to("loop")
    (root / "file").write_text("")
    return root


VALUES = [
    ".", "./", "src", "src/pkg/a.py", "src//pkg/./a.py", "missing/deeper/x", "missing/../../x",
    "out", "out/key", "out/../proj/src", "src/up/src/pkg", "src/esc", "src/esc/outside/key",
    "src/esc/proj/src", "loop", "loop/x", "file/x", "file/../..", "..", "../proj/src", "../outside",
    "src/pkg/../../..", "~", "~/x", " /etc", "a\\..\\..", "-rf",
]  # fmt: skip


@pytest.mark.parametrize("value", VALUES)
def test_the_fast_path_agrees_with_realpath(tree: Path, value: str) -> None:
    """refusal() skips realpath for plain relative paths; its answer must be realpath's."""
    expected = inside(locate(tree, value), read_roots(tree))
    assert (refusal(value, tree) is None) == expected, value


def test_a_root_replaced_by_a_link_is_resolved_again(tmp_path: Path) -> None:
    # The resolved root is cached while the folder is the same file; replacing it must not keep the
    # old answer (the new root's link "x" leaves it).
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (tmp_path / "outside").mkdir()
    root = tmp_path / "root"
    root.symlink_to(first)
    (first / "x").mkdir()
    assert refusal("x/y", root) is None
    root.unlink()
    root.symlink_to(second)
    (second / "x").symlink_to(tmp_path / "outside")
    assert refusal("x/y", root) is not None


def test_planviews_home_is_readable_and_nothing_else_outside(tmp_path: Path, tree: Path) -> None:
    home = tmp_path / "home"
    (home / "plans").mkdir(parents=True)
    plan = home / "plans" / "p.md"
    assert refusal(str(plan), tree, home) is None
    assert refusal(str(plan), tree) is not None
    assert refusal(str(tmp_path / "outside" / "key"), tree, home) is not None


@pytest.mark.parametrize("value", ["\x00", "a\x00b", "~nosuchuser-planview/x"])
def test_what_cannot_be_resolved_is_refused(tree: Path, value: str) -> None:
    reason = refusal(value, tree)
    assert reason is not None and "plan mode reads only the project" in reason


def test_the_gate_confines_readers_only_when_it_knows_the_project(tree: Path) -> None:
    call = ToolCall("read", {"path": "/etc/passwd"})
    assert decide(call, "plan").allowed  # no project: the readers confine themselves
    decision = decide(call, "plan", GatePolicy(project_root=tree))
    assert not decision.allowed and "plan mode reads only the project" in decision.reason
    assert decide(call, "execute", GatePolicy(project_root=tree)).allowed
    for name in ("grep", "find", "ls"):
        assert not decide(ToolCall(name, {"path": "out"}), "plan", GatePolicy(project_root=tree)).allowed
        assert decide(ToolCall(name, {}), "plan", GatePolicy(project_root=tree)).allowed
    # a non-string path is the tool's argument error, not a confinement question
    assert decide(ToolCall("read", {"path": 5}), "plan", GatePolicy(project_root=tree)).allowed


def test_of_planviews_home_only_the_plans_are_readable(tmp_path: Path, tree: Path) -> None:
    """QA3: outside a git repository the home is the per-user data folder every such project shares;
    its sessions (other projects' conversations), agent and MCP logs and ledger were one `read` away."""
    home = tmp_path / "home"
    for name in ("plans", "sessions", "logs", "mcp", "artifacts"):
        (home / name).mkdir(parents=True)
    (home / "sessions" / "other.jsonl").write_text('{"secret": "another project"}\n')
    assert refusal(str(home / "plans" / "p.md"), tree, home) is None
    assert refusal(str(home / "plans"), tree, home) is None
    for inside_home in (
        "sessions/other.jsonl",
        "sessions",
        "logs/x.agent.log",
        "mcp/fx.log",
        "ledger.jsonl",
        ".",
    ):
        assert refusal(str(home / inside_home), tree, home) is not None, inside_home
    assert refusal(str(home / "plans" / ".." / "sessions" / "other.jsonl"), tree, home) is not None
    assert not inside(home / "sessions" / "other.jsonl", read_roots(tree, home))
