"""A repository cannot lead planview's own folder out of the project with a committed symlink.

Git stores symlinks, so a hostile repository can ship `.planview/plans -> ../../.ssh`. Before:
plan-mode readers treat the home's plans folder as readable (its real path), so `read
.planview/plans/id_rsa` returned the user's private key to the model, and `write_plan` wrote the
plan into ~/.ssh. A linked `ledger.jsonl` or `sessions` folder would have had planview append
outside the project, and a linked `.planview` would have moved the whole home (its `.gitignore`
included) to a folder the repository chose. Now (planview.home) the project's home must lie inside
the project, and no entry in a home may be a link leading out of it: planview stops with a message
that names the link and the fix, and writes nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview.gate.calls import GatePolicy, ToolCall
from planview.gate.policy import decide
from planview.gate.read_scope import read_roots
from planview.home import HomeError, default_home, ensure_home, planview_home
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session

SECRET = "PRIVATE-KEY-0b7d"


@pytest.fixture
def victim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(project, the user's ~/.ssh): a clone in the home folder whose .planview/plans links to ../../.ssh."""
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    ssh = tmp_path / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text(f"{SECRET}\n")
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".planview").mkdir()
    (root / ".planview" / ".gitignore").write_text("*\n")
    (root / ".planview" / "plans").symlink_to(Path("..") / ".." / ".ssh")
    return root, ssh


def _session(root: Path) -> Session:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "x"})))
    return Session(project_root=root, provider=provider, plan_mode=True, persist=False)


def test_a_plans_folder_linked_out_of_the_project_stops_the_session(victim: tuple[Path, Path]) -> None:
    root, ssh = victim
    with pytest.raises(HomeError) as caught:
        _session(root)
    message = str(caught.value)
    assert str(root / ".planview" / "plans") in message and "outside" in message
    assert "replace the link with a folder" in message
    assert sorted(p.name for p in ssh.iterdir()) == ["id_rsa"]


def test_the_readers_do_not_follow_the_plans_link(victim: tuple[Path, Path]) -> None:
    """The gate (and `planview gate check`) refuse a read through the link: the plans folder is only
    a read root when it lies inside its home."""
    root, ssh = victim
    home = root / ".planview"
    assert Path(os.path.realpath(ssh)) not in read_roots(root, home)
    decision = decide(
        ToolCall("read", {"path": ".planview/plans/id_rsa"}),
        "plan",
        GatePolicy(project_root=root, home=home),
    )
    assert not decision.allowed and "outside the project" in decision.reason
    done = subprocess.run(
        [sys.executable, "-m", "planview", "gate", "check", "--mode", "plan"],
        input=json.dumps({"tool": "read", "input": {"path": ".planview/plans/id_rsa"}}) + "\n",
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
    )
    assert SECRET not in done.stdout
    assert json.loads(done.stdout.splitlines()[0])["decision"] == "deny", done.stdout + done.stderr


def test_planview_run_refuses_to_start_and_writes_nothing_outside(
    victim: tuple[Path, Path], tmp_path: Path
) -> None:
    root, ssh = victim
    script = tmp_path / "script.jsonl"
    turn = {"tool_calls": [{"name": "read", "arguments": {"path": ".planview/plans/id_rsa"}}]}
    script.write_text(json.dumps(turn) + "\n" + json.dumps({"text": "done"}) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "planview", "run", "--plan", "--script", str(script), "--json", "look"],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    assert done.returncode != 0
    assert SECRET not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr and ".planview/plans" in done.stderr
    assert sorted(p.name for p in ssh.iterdir()) == ["id_rsa"]


@pytest.mark.parametrize(
    "name", ["ledger.jsonl", "sessions", "artifacts", "reviews", "ledger.head", "config.toml"]
)
def test_no_entry_of_a_home_may_lead_out_of_it(tmp_path: Path, name: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "target"
    target.write_text("untouched\n") if "." in name else target.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / name).symlink_to(target)
    with pytest.raises(HomeError, match="replace the link"):
        ensure_home(home)
    assert (target.read_text() if target.is_file() else sorted(os.listdir(target))) in ("untouched\n", [])


def test_links_inside_the_home_are_fine(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "kept").mkdir(parents=True)
    (home / "plans").symlink_to("kept")
    ensure_home(home)
    assert (home / ".gitignore").read_text() == "*\n"


def test_a_project_home_linked_out_of_the_project_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".planview").symlink_to(elsewhere)
    with pytest.raises(HomeError) as caught:
        planview_home(root)
    assert "PLANVIEW_HOME" in str(caught.value) and str(elsewhere) in str(caught.value)
    assert list(elsewhere.iterdir()) == []  # not even the .gitignore
    with pytest.raises(HomeError):
        default_home(root)
    # the fix the message names works: the user vouches for the folder explicitly
    monkeypatch.setenv("PLANVIEW_HOME", str(elsewhere))
    assert planview_home(root) == elsewhere


def test_a_project_home_linked_inside_the_project_is_fine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    root = tmp_path / "project"
    (root / "state").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".planview").symlink_to("state")
    assert planview_home(root) == root / ".planview"
    assert (root / "state" / ".gitignore").exists()
