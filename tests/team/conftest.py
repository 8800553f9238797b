"""Fixtures of the team tests (helpers in teamkit.py): a module-scoped scratch team."""

from __future__ import annotations

import subprocess

import pytest

from tests.team.teamkit import POLICY, Team, clean_env, make_keys


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Team:
    """main on the remote holds the team policy (alice and bob) and one commit of code."""
    base = tmp_path_factory.mktemp("team")
    (base / "home").mkdir()
    remote = base / "origin.git"
    env = clean_env(base)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True, env=env)
    t = Team(base, remote, make_keys(base), env)
    seed = base / "seed"
    t.git(base, "init", "-q", "-b", "main", str(seed))
    t.as_member(seed, "alice")
    t.git(seed, "remote", "add", "origin", str(remote))
    done = t.pv(seed, "team", "init")
    assert done.returncode == 0, done.stderr
    signers = seed / ".planview" / "allowed_signers"
    signers.write_text(signers.read_text() + t.signer_line("bob"))
    (seed / ".planview" / "policy.toml").write_text(POLICY)
    (seed / "README.md").write_text("# project\n")
    t.git(seed, "add", ".planview/allowed_signers", ".planview/policy.toml", "README.md")
    t.git(seed, "commit", "-q", "-m", "team policy")
    t.git(seed, "push", "-q", "origin", "main")
    return t


@pytest.fixture(scope="module")
def approved(team: Team) -> dict[str, str]:
    """alice and bob both sign the plan on main's tip (concurrently: neither has synced), both sync;
    alice then executes it on branch `feature` (her hook adds the trailer) and pushes the branch."""
    alice, bob = team.clone("alice", "alice"), team.clone("bob", "bob")
    done = team.pv(alice, "team", "init")
    assert done.returncode == 0, done.stderr
    assert "already lists your key" in done.stdout
    plan_a, plan_b = team.write_plan(alice), team.write_plan(bob)
    out_a, out_b = team.approve(alice, plan_a), team.approve(bob, plan_b)
    assert "signed:alice@example.com" in out_a.stdout and "signed:bob@example.com" in out_b.stdout
    first = team.pv(alice, "sync")
    assert first.returncode == 0, first.stderr
    assert "remote.origin.fetch" in first.stderr and "mergeStrategy cat_sort_uniq" in first.stderr
    second = team.pv(bob, "sync")
    assert second.returncode == 0, second.stderr
    assert "synced 2 approval record(s)" in second.stdout  # bob's and alice's, both kept
    again = team.pv(alice, "sync")
    assert "synced 2 approval record(s)" in again.stdout
    canonical = next(
        line.removeprefix("canonical:") for line in out_a.stdout.splitlines() if line.startswith("canonical:")
    )
    team.git(alice, "checkout", "-q", "-b", "feature")
    c1 = team.commit(alice, {"src/parser.py": "print('parse')\n"}, "parser")
    c2 = team.commit(alice, {"src/secure/keys.py": "KEYS = ()\n"}, "keys")
    for commit in (c1, c2):
        body = team.git(alice, "show", "-s", "--format=%B", commit)
        assert f"Plan: sha256:{canonical}" in body  # the hook named the plan being executed
    team.git(alice, "push", "-q", "origin", "feature")
    return {"canonical": canonical, "c1": c1, "c2": c2}
