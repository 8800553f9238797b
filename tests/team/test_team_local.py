"""Signing from every channel, the tool-process refusal, the commit hook, sync under a race, the PR
description, and one key counted once."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.team.teamkit import PLAN, Team, reasons, third_clone, verify


def note_lines(team: Team, clone: Path) -> list[str]:
    listing = team.git(clone, "notes", "--ref=planview/approvals", "list", check=False).splitlines()
    lines: list[str] = []
    for row in listing:
        lines += [ln for ln in team.git(clone, "cat-file", "blob", row.split()[0]).splitlines() if ln.strip()]
    return lines


def test_a_push_rejected_because_a_teammate_pushed_first_is_merged_and_retried(
    team: Team, approved: dict[str, str]
) -> None:
    alice, bob = team.clone("race-alice", "alice"), team.clone("race-bob", "bob")
    for clone in (alice, bob):
        assert team.pv(clone, "sync").returncode == 0
    text = PLAN.replace("# Add the parser", "# Raced plan")
    team.approve(alice, team.write_plan(alice, text, "2026-01-01-0002-race.md"))
    team.approve(bob, team.write_plan(bob, text, "2026-01-01-0002-race.md"))
    # bob's push is about to go out when alice's lands first: his pre-push hook makes alice push (once).
    hook = bob / ".git" / "hooks" / "pre-push"
    hook.write_text(
        "#!/bin/sh\n"
        'if [ ! -e "$0.done" ]; then touch "$0.done"\n'
        "  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_PREFIX\n"
        f"  git -C {alice} push -q origin refs/notes/planview/approvals:refs/notes/planview/approvals || exit 1\n"
        "fi\n"
    )
    hook.chmod(0o755)
    done = team.pv(bob, "sync")
    assert done.returncode == 0, done.stderr
    assert "after 2 tries (a teammate pushed first)" in done.stdout
    fresh = third_clone(team, "race-check")
    raced = [ln for ln in note_lines(team, fresh) if "Raced plan" in ln]
    principals = sorted(json.loads(json.loads(ln)["payload"])["principal"] for ln in raced)
    assert principals == ["alice@example.com", "bob@example.com"]


def test_sign_ssh_in_config_signs_approvals_from_any_channel(
    team: Team, approved: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = team.clone("config-sign", "alice")
    team.git(clone, "config", "--unset", "user.signingkey")  # only [approval] signing_key names the key
    (clone / ".planview").mkdir(exist_ok=True)
    (clone / ".planview" / "config.toml").write_text(
        f'[approval]\nsign = "ssh"\nsigning_key = "{team.keys["alice"]}"\n'
    )
    plan = team.write_plan(clone, PLAN.replace("# Add the parser", "# Config plan"), "2026-01-01-0003-cfg.md")
    done = team.pv(clone, "approve", str(plan))  # no --sign: the setting asks for it
    assert done.returncode == 0, done.stderr
    assert "signed:alice@example.com" in done.stdout
    # The review screen's channel goes through the same flow and is signed the same way.
    for key, value in team.env.items():
        monkeypatch.setenv(key, value)
    from planview.approval.approvals import Approvals
    from planview.approval.channels import REVIEW_SCREEN
    from planview.approval.flow import record_decision
    from planview.plan.canonical import canonical_sha256
    from planview.plan.decision import Approved

    other = team.write_plan(
        clone, PLAN.replace("# Add the parser", "# Reviewed plan"), "2026-01-01-0004-rev.md"
    )
    approvals = Approvals(clone / ".planview", clone)
    shown = canonical_sha256(other.read_text())
    outcome = record_decision(approvals, other, Approved(str(other), shown, None), channel=REVIEW_SCREEN)
    assert outcome.signed is not None and outcome.signed.new
    assert outcome.signed.record.payload.channel == REVIEW_SCREEN
    channels = {json.loads(json.loads(ln)["payload"])["channel"] for ln in note_lines(team, clone)}
    assert REVIEW_SCREEN in channels and "planview approve (no terminal)" in channels


def test_signing_refuses_inside_an_agents_tool_process(team: Team, approved: dict[str, str]) -> None:
    clone = team.clone("tool-process", "alice")
    plan = team.write_plan(clone, PLAN.replace("# Add the parser", "# Tool plan"), "2026-01-01-0005-tool.md")
    before = note_lines(team, clone)
    done = team.pv(clone, "approve", str(plan), "--sign", env={"PLANVIEW_TOOL_PROCESS": "s-1"})
    assert done.returncode == 2
    assert "inside a tool of planview session s-1" in done.stderr
    assert "a passphrase on the key, or a hardware key or ssh-agent confirmation" in done.stderr
    assert note_lines(team, clone) == before
    status = team.pv(clone, "status", str(plan))
    assert status.stdout.startswith("not approved")


def test_the_hook_chains_an_existing_one_and_uninstall_puts_it_back(
    team: Team, approved: dict[str, str]
) -> None:
    clone = team.clone("hooks", "alice")
    hooks = clone / ".git" / "hooks"
    mine = '#!/bin/sh\necho "Reviewed-by: my own hook" >> "$1"\n'
    (hooks / "prepare-commit-msg").write_text(mine)
    (hooks / "prepare-commit-msg").chmod(0o755)
    done = team.pv(clone, "team", "init")
    assert done.returncode == 0, done.stderr
    assert "your previous hook moved to" in done.stdout
    canonical = "ab" * 32
    team.commit(clone, {"src/a.py": "a = 1\n"}, "agent commit", env={"PLANVIEW_PLAN_SHA256": canonical})
    body = team.git(clone, "show", "-s", "--format=%B")
    assert "Reviewed-by: my own hook" in body and f"Plan: sha256:{canonical}" in body
    team.commit(clone, {"src/b.py": "b = 1\n"}, "by hand, no plan approved here")
    assert "Plan:" not in team.git(clone, "show", "-s", "--format=%B")  # nothing current: no trailer
    done = team.pv(clone, "team", "uninstall")
    assert "put your previous one back" in done.stdout
    assert (hooks / "prepare-commit-msg").read_text() == mine
    assert not (hooks / "prepare-commit-msg.pre-planview").exists()


def test_init_refuses_when_both_hooks_exist(team: Team, approved: dict[str, str]) -> None:
    clone = team.clone("hooks-both", "alice")
    hooks = clone / ".git" / "hooks"
    for name in ("prepare-commit-msg", "prepare-commit-msg.pre-planview"):
        (hooks / name).write_text("#!/bin/sh\n")
    done = team.pv(clone, "team", "init")
    assert done.returncode == 2
    assert "merge them by hand" in done.stderr and "team trailer" in done.stderr
    assert (hooks / "prepare-commit-msg").read_text() == "#!/bin/sh\n"


def test_one_principal_signing_twice_counts_once(
    team: Team, approved: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clone = third_clone(team, "twice")
    base = team.git(clone, "rev-parse", "origin/main")
    lines = [
        ln for ln in note_lines(team, clone) if approved["canonical"] in ln and "alice@example.com" in ln
    ]
    team.git(clone, "notes", "--ref=planview/approvals", "add", "-f", "-m", lines[0], base)  # bob's is gone
    for key, value in team.env.items():
        monkeypatch.setenv(key, value)
    from planview.team.signing import sign_approval

    data = PLAN.encode()
    team.as_member(clone, "alice")
    team.git(clone, "checkout", "-q", "origin/main")  # sign on the same base, through another channel
    again = sign_approval(
        clone, "p.md", data, PLAN, channel="second channel", signing_key=str(team.keys["alice"])
    )
    assert again.new
    team.git(clone, "checkout", "-q", "feature")
    assert (
        len(
            [
                ln
                for ln in note_lines(team, clone)
                if "alice@example.com" in ln and approved["canonical"] in ln
            ]
        )
        == 2
    )
    code, report = verify(team, clone)
    assert code == 1
    assert "1 of 2 (alice@example.com)" in reasons(report)


def test_export_pr_prints_the_plan_its_signers_steps_and_diff_stat(
    team: Team, approved: dict[str, str]
) -> None:
    alice = team.base / "alice"
    done = team.pv(alice, "export", "--pr", "2026-01-01-0000-parser.md")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("## Plan: Add the parser")
    assert "| alice@example.com | verified |" in out and "| bob@example.com | verified |" in out
    assert "### Steps (0 of 2 done)" in out and "- [ ] write src/parser.py" in out
    assert "src/parser.py" in out.split("### Changes since")[1] and "2 files changed" in out
    assert "Parse the config." in out


def test_verify_with_a_base_that_names_no_commit_is_bad_input(team: Team, approved: dict[str, str]) -> None:
    done = team.pv(team.base / "alice", "verify", "--base", "origin/nope")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "planview: --base 'origin/nope' names no commit here; fetch it (git fetch origin main) or name another"
    ]


def test_the_home_lets_git_see_only_the_team_files(team: Team, approved: dict[str, str]) -> None:
    alice = team.base / "alice"
    ignored = team.git(alice, "status", "--porcelain", "--ignored", "--untracked-files=all", ".planview")
    assert ".planview/allowed_signers" not in ignored  # tracked
    assert (
        "!! .planview/ledger.jsonl" in ignored and "!! .planview/plans/2026-01-01-0000-parser.md" in ignored
    )
    assert os.path.exists(alice / ".planview" / ".gitignore")


def test_a_record_signed_under_another_policy_than_its_bases_fails(
    team: Team, approved: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """alice really signs, but the payload claims a policy the base does not hold (a tool that lied, or
    a record made against an edited working tree): it does not count."""
    for key, value in team.env.items():
        monkeypatch.setenv(key, value)
    from dataclasses import replace

    from planview.team import notes, sshsig
    from planview.team.record import SignedRecord, parse_line

    clone = third_clone(team, "policy-digest")
    base = team.git(clone, "rev-parse", "origin/main")
    mine = next(
        ln for ln in note_lines(team, clone) if "alice@example.com" in ln and approved["canonical"] in ln
    )
    record = parse_line(mine)
    forged = replace(
        record.payload, policy={k: "0" * 64 for k in record.payload.policy}, at="2026-01-02T00:00:00Z"
    )
    message = forged.to_json()
    signature = sshsig.sign(message.encode(), team.keys["alice"])
    team.git(clone, "notes", "--ref=planview/approvals", "remove", base)
    notes.append_record(clone, base, SignedRecord(message, signature, record.plan_text, forged).to_line())
    code, report = verify(team, clone)
    assert code == 1
    assert "the team policy it names is not the policy at its base" in reasons(report)


def test_signing_without_a_key_refuses_before_anything_is_recorded(
    team: Team, approved: dict[str, str]
) -> None:
    clone = team.clone("no-key", "alice")
    team.git(clone, "config", "--unset", "user.signingkey")
    plan = team.write_plan(clone, PLAN.replace("# Add the parser", "# Keyless"), "2026-01-01-0006-nokey.md")
    done = team.pv(clone, "approve", str(plan), "--sign")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("planview: not approved: no SSH signing key: set `signing_key")
    assert line.endswith("(nothing was recorded)")
    assert team.pv(clone, "status", str(plan)).stdout.startswith("not approved")


def test_sign_from_the_config_without_a_key_says_how_to_approve_unsigned(
    team: Team, approved: dict[str, str]
) -> None:
    clone = team.clone("cfg-no-key", "alice")
    team.git(clone, "config", "--unset", "user.signingkey")
    user_config = Path(team.env["XDG_CONFIG_HOME"]) / "planview" / "config.toml"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text('[approval]\nsign = "ssh"\n')  # every project of this user signs
    try:
        plan = team.write_plan(clone, PLAN.replace("# Add the parser", "# Cfg"), "2026-01-01-0007-cfg.md")
        done = team.pv(clone, "approve", str(plan))
        assert done.returncode == 2
        assert 'or set [approval] sign = "off" in this project\'s .planview/config.toml' in done.stderr
        (clone / ".planview" / "config.toml").write_text('[approval]\nsign = "off"\n')
        done = team.pv(clone, "approve", str(plan))
        assert done.returncode == 0, done.stderr
        assert "signed:" not in done.stdout
    finally:
        user_config.unlink()
