"""A repository cannot lead planview's own folder out of the project with a committed symlink.

Git stores symlinks, so a hostile repository can ship `.planview/plans -> ../../.ssh`. Before:
plan-mode readers treat the home's plans folder as readable (its real path), so `read
.planview/plans/id_rsa` returned the user's private key to the model, and `write_plan` wrote the
plan into ~/.ssh. A linked `ledger.jsonl` or `sessions` folder would have had planview append
outside the project, and a linked `.planview` would have moved the whole home (its `.gitignore`
included) to a folder the repository chose. Now (planview.home) a link the repository ships (git
tracks it) may not lead the project's home, or any entry of a home, out of it: planview stops with a
message that names the link and the fix, and writes nothing. A link the user made (untracked) still
works, and the readers never read through a plans folder that leads out of its home.
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
from planview.home import HOME_GITIGNORE, HomeError, default_home, ensure_home, planview_home
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session

SECRET = "PRIVATE-KEY-0b7d"
GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}


def git(cwd: Path, *args: str) -> None:
    identity = ("-c", "user.name=t", "-c", "user.email=t@e")
    subprocess.run(["git", *identity, *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True)


def repository(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q")
    return root


def ship(root: Path, *names: str) -> None:
    """Commit `names` as a hostile repository would (forced past the home's own .gitignore)."""
    git(root, "add", "-f", "--", *names)
    git(root, "commit", "-qm", "ship")


@pytest.fixture
def victim(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(project, the user's ~/.ssh): a clone in the home folder whose .planview/plans links to ../../.ssh."""
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    ssh = tmp_path / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text(f"{SECRET}\n")
    root = repository(tmp_path / "project")
    (root / ".planview").mkdir()
    (root / ".planview" / ".gitignore").write_text("*\n")
    (root / ".planview" / "plans").symlink_to(Path("..") / ".." / ".ssh")
    ship(root, ".planview/plans")
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
    assert "the repository ships it" in message and "Replace the link with a folder" in message
    assert sorted(p.name for p in ssh.iterdir()) == ["id_rsa"]


def test_the_printed_fix_runs_and_planview_starts_again(victim: tuple[Path, Path]) -> None:
    root, ssh = victim
    with pytest.raises(HomeError) as caught:
        _session(root)
    command = str(caught.value).split("of its own: ", 1)[1].split(", then delete the link")[0]
    subprocess.run(command, shell=True, check=True, env=GIT_ENV)
    (root / ".planview" / "plans").unlink()
    session = _session(root)
    assert session.store.plans_dir == root / ".planview" / "plans"
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
    root = repository(tmp_path / "project")
    home = root / ".planview"
    home.mkdir()
    (home / name).symlink_to(target)
    ship(root, f".planview/{name}")
    with pytest.raises(HomeError, match="Replace the link"):
        ensure_home(home)
    assert (target.read_text() if target.is_file() else sorted(os.listdir(target))) in ("untouched\n", [])


def test_a_link_the_user_made_still_works(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Untracked (the home ignores itself), so no repository shipped it: plans kept in another folder."""
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    elsewhere = tmp_path / "synced-plans"
    elsewhere.mkdir()
    root = repository(tmp_path / "project")
    ensure_home(root / ".planview")
    (root / ".planview" / "plans").symlink_to(elsewhere)
    session = _session(root)
    written = session.store.write("Kept", "# Kept\n")
    assert (elsewhere / written.path.name).read_text() == "# Kept\n"
    # the readers still do not follow it out (only the project is read)
    assert Path(os.path.realpath(elsewhere)) not in read_roots(root, root / ".planview")


def test_links_inside_the_home_are_fine(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "kept").mkdir(parents=True)
    (home / "plans").symlink_to("kept")
    ensure_home(home)
    assert (home / ".gitignore").read_text() == HOME_GITIGNORE


def test_a_project_home_linked_out_of_the_project_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    root = repository(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".planview").symlink_to(elsewhere)
    ship(root, ".planview")
    with pytest.raises(HomeError) as caught:
        planview_home(root)
    assert "the repository ships it" in str(caught.value) and str(elsewhere) in str(caught.value)
    assert list(elsewhere.iterdir()) == []  # not even the .gitignore
    with pytest.raises(HomeError):
        default_home(root)
    # the user vouching for a folder explicitly is another matter
    monkeypatch.setenv("PLANVIEW_HOME", str(elsewhere))
    assert planview_home(root) == elsewhere


def test_a_project_home_the_user_linked_elsewhere_is_fine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    root = repository(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / ".planview").symlink_to(elsewhere)  # untracked: the user's own
    assert planview_home(root) == root / ".planview"
    assert (elsewhere / ".gitignore").read_text() == HOME_GITIGNORE


def test_a_project_home_linked_inside_the_project_is_fine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    root = repository(tmp_path / "project")
    (root / "state").mkdir()
    (root / ".planview").symlink_to("state")
    ship(root, ".planview")
    assert planview_home(root) == root / ".planview"
    assert (root / "state" / ".gitignore").exists()
