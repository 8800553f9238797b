"""The team workflow end to end with real git and ssh-keygen: two members sign from two clones, sync,
and a third clone verifies; each tampering fails verify naming its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.team.teamkit import PLAN, Team, reasons, third_clone, verify


def test_two_members_signed_from_two_clones_verify_on_a_third(team: Team, approved: dict[str, str]) -> None:
    clone = third_clone(team, "ci")
    code, report = verify(team, clone)
    assert code == 0, reasons(report)
    assert report["ok"] is True
    assert [c["commit"] for c in report["commits"]] == [approved["c1"], approved["c2"]]
    assert report["commits"][1]["approved_by"] == ["alice@example.com", "bob@example.com"]
    text = team.pv(clone, "verify", "--base", "origin/main")
    assert text.returncode == 0 and text.stdout.strip().endswith("verified")


def test_a_commit_without_a_trailer_fails(team: Team, approved: dict[str, str]) -> None:
    clone = third_clone(team, "no-trailer")  # no hook in this clone: a plain commit
    team.as_member(clone, "alice")
    bad = team.commit(clone, {"src/parser.py": "print('again')\n"}, "unplanned")
    code, report = verify(team, clone)
    assert code == 1
    assert any(f["commit"] == bad and "names no plan" in f["reason"] for f in report["findings"]), reasons(
        report
    )
    human = team.pv(clone, "verify", "--base", "origin/main")
    assert f"commit {bad[:12]} (unplanned): names no plan" in human.stdout


def trailer(approved: dict[str, str]) -> str:
    return f"\n\nPlan: sha256:{approved['canonical']}"


def test_a_path_outside_the_plans_scope_fails(team: Team, approved: dict[str, str]) -> None:
    clone = third_clone(team, "scope")
    team.as_member(clone, "alice")
    bad = team.commit(clone, {"docs/notes.md": "x\n"}, "docs" + trailer(approved))
    code, report = verify(team, clone)
    assert code == 1
    [finding] = report["findings"]
    assert (finding["commit"], finding["path"]) == (bad, "docs/notes.md")
    assert "outside the plan's scope" in finding["reason"]


def test_a_rule_that_needs_two_approvers_with_one_fails(team: Team, approved: dict[str, str]) -> None:
    clone = third_clone(team, "two")
    lines = team.git(clone, "notes", "--ref=planview/approvals", "show", "origin/main").splitlines()
    alice_only = [ln for ln in lines if "alice@example.com" in ln and approved["canonical"] in ln]
    assert len(alice_only) == 1
    base = team.git(clone, "rev-parse", "origin/main")
    team.git(clone, "notes", "--ref=planview/approvals", "add", "-f", "-m", alice_only[0], base)
    code, report = verify(team, clone)
    assert code == 1
    [finding] = report["findings"]
    assert finding["path"] == "src/secure/keys.py"
    assert (
        "rule 2 (src/secure/**): 2 from allowed signers is not met: 1 of 2 (alice@example.com)"
        in finding["reason"]
    )


def test_notes_deleted_fails(team: Team, approved: dict[str, str]) -> None:
    clone = third_clone(team, "no-notes")
    team.git(clone, "update-ref", "-d", "refs/notes/planview/approvals")
    code, report = verify(team, clone)
    assert code == 1
    assert len(report["findings"]) == 2
    assert all("refs/notes/planview/approvals is absent" in f["reason"] for f in report["findings"])


def _rewrite_notes(team: Team, clone: Path, edit) -> None:
    base = team.git(clone, "rev-parse", "origin/main")
    lines = team.git(clone, "notes", "--ref=planview/approvals", "show", base).splitlines()
    new = [edit(json.loads(ln)) if ln.strip() else ln for ln in lines]
    team.git(
        clone, "notes", "--ref=planview/approvals", "add", "-f", "-m", "\n".join(x for x in new if x), base
    )


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("at", "2020-01-01T00:00:00Z", "signature does not verify for {who}"),
        ("principal", "bob@example.com", "signature does not verify for bob@example.com"),
        ("scope", ["**"], "the signed scope is not the plan's scope"),
    ],
)
def test_an_edited_record_fails(team: Team, approved: dict[str, str], field: str, value, reason: str) -> None:
    clone = third_clone(team, f"edited-{field}")

    def edit(record: dict) -> str:
        payload = json.loads(record["payload"])
        payload[field] = value  # edited after signing, kept in canonical form
        record["payload"] = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        return json.dumps(record)

    _rewrite_notes(team, clone, edit)
    code, report = verify(team, clone)
    assert code == 1
    assert reason.format(who="alice@example.com") in reasons(report)
    assert reason.format(who="bob@example.com") in reasons(report)


def test_a_truncated_record_fails(team: Team, approved: dict[str, str]) -> None:
    clone = third_clone(team, "truncated")
    _rewrite_notes(team, clone, lambda record: json.dumps(record)[:-40])
    code, report = verify(team, clone)
    assert code == 1
    assert "malformed record line(s) ignored" in reasons(report) and "not JSON (truncated" in reasons(report)


def test_plan_text_changed_in_the_record_fails(team: Team, approved: dict[str, str]) -> None:
    clone = third_clone(team, "plan-text")

    def edit(record: dict) -> str:
        record["plan_text"] = record["plan_text"].replace("Parse the config.", "Parse the config and more.")
        return json.dumps(record)

    _rewrite_notes(team, clone, edit)
    code, report = verify(team, clone)
    assert code == 1
    assert "the plan text in the record is not the text that was signed" in reasons(report)


def test_a_plan_changed_after_approval_fails(team: Team, approved: dict[str, str]) -> None:
    clone = third_clone(team, "changed-plan")
    team.as_member(clone, "alice")
    from planview.plan.canonical import canonical_sha256

    changed = canonical_sha256(PLAN.replace("Parse the config.", "Parse every config, and delete the tests."))
    bad = team.commit(clone, {"src/parser.py": "x = 1\n"}, f"more\n\nPlan: sha256:{changed}")
    code, report = verify(team, clone)
    assert code == 1
    [finding] = report["findings"]
    assert (
        finding["commit"] == bad and "has no valid signed approval: no record names it" in finding["reason"]
    )


def test_a_record_replayed_onto_another_base_fails(team: Team, approved: dict[str, str]) -> None:
    """The records signed for main's tip, copied onto the note of another commit (and only there)."""
    clone = third_clone(team, "replayed")
    base = team.git(clone, "rev-parse", "origin/main")
    text = team.git(clone, "notes", "--ref=planview/approvals", "show", base)
    team.git(clone, "notes", "--ref=planview/approvals", "remove", base)
    team.git(clone, "notes", "--ref=planview/approvals", "add", "-m", text, approved["c1"])
    code, report = verify(team, clone)
    assert code == 1
    assert f"signed for base {base[:12]} but attached to {approved['c1'][:12]} (replayed)" in reasons(report)


def test_an_approval_on_another_history_fails(team: Team, approved: dict[str, str]) -> None:
    """Signed on a commit that is not an ancestor of the head (a branch that was rebased away)."""
    alice = team.base / "alice"
    team.git(alice, "checkout", "-q", "-b", "side", "origin/main")
    team.commit(alice, {"side.txt": "side\n"}, "side")
    plan = alice / ".planview" / "plans" / "2026-01-01-0000-side.md"
    plan.write_text(PLAN.replace("# Add the parser", "# Side plan"))
    team.approve(alice, plan)
    from planview.plan.canonical import canonical_sha256

    side_plan = canonical_sha256(plan.read_text())
    team.git(alice, "checkout", "-q", "feature")
    clone = third_clone(team, "other-history")
    team.git(
        clone,
        "fetch",
        "-q",
        str(alice),
        "+refs/notes/planview/approvals:refs/notes/planview/approvals",
        "side",
    )
    team.as_member(clone, "alice")
    team.commit(clone, {"src/parser.py": "y = 2\n"}, f"side work\n\nPlan: sha256:{side_plan}")
    code, report = verify(team, clone)
    assert code == 1
    assert "is not an ancestor of head (approved on another history)" in reasons(report)


def test_the_ci_workflow_runs_as_written(team: Team, approved: dict[str, str]) -> None:
    """docs/ci/planview-verify.yml's own commands, in a checkout of the head as actions/checkout makes it."""
    import shlex
    import subprocess
    import sys

    workflow = (Path(__file__).resolve().parents[2] / "docs" / "ci" / "planview-verify.yml").read_text()
    assert "fetch-depth: 0" in workflow
    runs = [ln.split("run:", 1)[1].strip() for ln in workflow.splitlines() if ln.strip().startswith("run:")]
    runs = [r.replace("${{ github.base_ref }}", "main") for r in runs if "pip install" not in r]
    assert len(runs) == 2 and runs[1].startswith("planview verify --base")
    clone = team.base / "gha"
    team.git(team.base, "init", "-q", str(clone))
    team.git(clone, "remote", "add", "origin", str(team.remote))
    team.git(clone, "fetch", "-q", "origin", approved["c2"])
    team.git(clone, "checkout", "-q", "--detach", approved["c2"])
    planview = f"{shlex.quote(sys.executable)} -m planview"
    for line in runs:
        command = line.replace("planview verify", f"{planview} verify", 1)
        done = subprocess.run(command, shell=True, cwd=clone, env=team.env, capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert done.stdout.strip().endswith("verified")


def test_a_clean_merge_needs_no_trailer_but_an_evil_merge_does(team: Team, approved: dict[str, str]) -> None:
    clone = third_clone(team, "merges")
    team.as_member(clone, "alice")
    team.git(clone, "checkout", "-q", "-b", "feat2")
    team.commit(clone, {"src/more.py": "more = 1\n"}, "more" + trailer(approved))
    team.git(clone, "checkout", "-q", "feature")
    team.commit(clone, {"src/other.py": "other = 1\n"}, "other" + trailer(approved))
    team.git(clone, "merge", "-q", "--no-ff", "-m", "merge feat2", "feat2")
    code, report = verify(team, clone)
    assert code == 0, reasons(report)
    team.git(clone, "reset", "-q", "--hard", "HEAD^")
    team.git(clone, "merge", "-q", "--no-ff", "--no-commit", "feat2")
    (clone / "src" / "evil.py").write_text("evil = 1\n")
    team.git(clone, "add", "src/evil.py")
    team.git(clone, "commit", "-q", "-m", "merge feat2")
    evil = team.git(clone, "rev-parse", "HEAD")
    code, report = verify(team, clone)
    assert code == 1
    [finding] = report["findings"]
    assert finding["commit"] == evil and "names no plan" in finding["reason"]
