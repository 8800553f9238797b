"""Who counts: an outsider's key, a pull request that adds its own key, the author approving their own
change to the policy, and a key removed on the target branch after the branch was cut."""

from __future__ import annotations

from planview.plan.canonical import canonical_sha256
from tests.team.teamkit import PLAN, Team, reasons, third_clone, verify


def test_a_signature_by_a_key_not_in_the_bases_allowed_signers_fails(
    team: Team, approved: dict[str, str]
) -> None:
    carol = team.clone("carol-out", "carol")
    team.git(carol, "checkout", "-q", "-b", "carol-work")
    plan = team.write_plan(carol, PLAN.replace("# Add the parser", "# Carol's plan"))
    done = team.pv(carol, "approve", str(plan), "--sign")
    assert done.returncode == 0, done.stderr
    assert "your key is not in .planview/allowed_signers" in done.stderr  # said at signing time already
    canonical = canonical_sha256(plan.read_text())
    team.commit(carol, {"src/parser.py": "evil = 1\n"}, f"carol\n\nPlan: sha256:{canonical}")
    done = team.pv(carol, "verify", "--base", "origin/main")
    assert done.returncode == 1
    assert "signature does not verify for carol@example.com" in done.stdout


def test_a_pull_request_that_adds_its_own_key_gains_nothing(team: Team, approved: dict[str, str]) -> None:
    carol = team.clone("carol-pr", "carol")
    team.git(carol, "checkout", "-q", "-b", "carol-key")
    init = team.pv(carol, "team", "init")  # adds carol's key to the working tree's allowed_signers
    assert init.returncode == 0, init.stderr and "added your key" in init.stdout
    plan = team.write_plan(carol, PLAN.replace("# Add the parser", "# Carol adds herself"))
    signed = team.pv(carol, "approve", str(plan), "--sign")
    assert "signed:carol@example.com" in signed.stdout and "not in" not in signed.stderr
    mine = (carol / ".planview" / "allowed_signers").read_text()
    team.commit(
        carol, {"src/parser.py": "mine = 1\n", ".planview/allowed_signers": mine}, "add me and my code"
    )
    assert "Plan: sha256:" in team.git(carol, "show", "-s", "--format=%B")  # the hook added it
    assert "carol@example.com" in team.git(carol, "show", "HEAD:.planview/allowed_signers")
    done = team.pv(carol, "verify", "--base", "origin/main")
    assert done.returncode == 1
    assert "signature does not verify for carol@example.com" in done.stdout


def test_the_author_approving_their_own_policy_change_does_not_count(
    team: Team, approved: dict[str, str]
) -> None:
    alice = team.clone("alice-policy", "alice")
    team.pv(alice, "team", "init")  # the hook
    team.git(alice, "checkout", "-q", "-b", "policy")
    text = "---\nscope: [.planview/policy.toml]\n---\n# Loosen the policy\n\n## Steps\n- [ ] edit it\n"
    plan = team.write_plan(alice, text, "2026-01-01-0001-policy.md")
    team.approve(alice, plan)
    policy = (alice / ".planview" / "policy.toml").read_text().replace("approvals = 2", "approvals = 1")
    commit = team.commit(alice, {".planview/policy.toml": policy}, "loosen")
    team.pv(alice, "sync")
    team.git(alice, "push", "-q", "origin", "policy")
    ci = team.clone("ci-policy")
    team.git(ci, "fetch", "-q", "origin", "refs/notes/planview/approvals:refs/notes/planview/approvals")
    team.git(ci, "checkout", "-q", "policy")
    code, report = verify(team, ci)
    assert code == 1
    [finding] = report["findings"]
    assert (finding["commit"], finding["path"]) == (commit, ".planview/policy.toml")
    assert (
        "the author excluded is not met: 0 of 1 (none); not counted: alice@example.com" in finding["reason"]
    )
    # bob (another maintainer) approves the same plan: now it passes
    bob = team.clone("bob-policy", "bob")
    team.pv(bob, "sync")
    team.approve(bob, team.write_plan(bob, text, "2026-01-01-0001-policy.md"))
    team.pv(bob, "sync")
    team.git(ci, "fetch", "-q", "origin", "+refs/notes/planview/approvals:refs/notes/planview/approvals")
    code, report = verify(team, ci)
    assert code == 0, reasons(report)


def test_a_key_removed_on_the_target_branch_since_no_longer_counts(
    team: Team, approved: dict[str, str]
) -> None:
    """Policy rollback: the branch was cut when bob was a member; main has removed him since. verify reads
    the policy of the target branch's tip, so bob's older signature no longer counts."""
    clone = third_clone(team, "rollback")
    team.as_member(clone, "alice")
    team.git(clone, "checkout", "-q", "-b", "newmain", "origin/main")
    signers = clone / ".planview" / "allowed_signers"
    signers.write_text("".join(ln for ln in signers.read_text().splitlines(True) if "bob@" not in ln))
    team.git(clone, "commit", "-q", "-am", "bob left")
    team.git(clone, "checkout", "-q", "feature")
    done = team.pv(clone, "verify", "--base", "newmain", "--json")
    code, report = done.returncode, __import__("json").loads(done.stdout)
    assert code == 1
    assert "1 of 2 (alice@example.com)" in reasons(report)
    assert "signature does not verify for bob@example.com" in reasons(report) or any(
        a["principal"] == "bob@example.com" and a["problem"] for a in report["approvals"]
    )
