"""Paths in git commands are checked after resolution: symlinks followed, relative to the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.gate.git_paths import escapes
from planview.gate.git_shell import check_git_command


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root, outside = tmp_path / "project", tmp_path / "outside"
    (root / "docs").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.cfg").write_text("[s]\n\tt = x\n")
    (root / "ext").symlink_to(outside)
    (root / "docs" / "up").symlink_to("../..")
    (root / "inner").symlink_to("docs")
    (root / "a.cfg").write_text("")
    return root


@pytest.mark.parametrize(
    ("word", "out"),
    [
        ("a.cfg", False),
        ("docs", False),
        ("inner/x", False),  # a symlink that stays inside
        ("missing/file", False),
        ("HEAD~1:a.cfg", False),
        ("ext", True),
        ("ext/secret.cfg", True),
        ("./ext/secret.cfg", True),
        ("docs/up/outside/secret.cfg", True),
        ("docs/../ext/x", True),
        ("missing/../ext/secret.cfg", True),
        ("../outside/secret.cfg", True),
        ("/etc/passwd", True),
        ("~/x", True),
    ],
)
def test_escapes_follows_symlinks(project: Path, word: str, out: bool) -> None:
    assert escapes(word, project) is out


@pytest.mark.parametrize(
    "command",
    [
        "git config --file ext/secret.cfg --list",
        "git config -f ext/secret.cfg --list",
        "git config -fext/secret.cfg -l",
        "git config --file=./ext/secret.cfg --get s.t",
        "git blame -S ext/secret.cfg a.cfg",
        "git blame --ignore-revs-file=ext/secret.cfg a.cfg",
        "git blame --ignore-revs-file ext/secret.cfg a.cfg",
        "git blame --contents docs/up/outside/secret.cfg a.cfg",
        "git grep -f ext/secret.cfg",
        "git ls-files -o -X ext/secret.cfg",
        "git log -p --orderfile=ext/secret.cfg",
        "git diff -Oext/secret.cfg",
        "git rev-parse --resolve-git-dir ext/secret.cfg",
        "git log -- ext/secret.cfg",
        "git grep x -- ext/secret.cfg",
    ],
)
def test_path_words_that_resolve_outside_are_refused(project: Path, command: str) -> None:
    verdict = check_git_command(command, project)
    assert not verdict.allowed and "outside the project" in verdict.reason, (command, verdict.reason)
    # every spelling is lexically inside: a check of the spelling alone (no root) lets it through
    assert check_git_command(command).allowed, command


def test_pathspecs_naming_a_symlink_itself_are_allowed(project: Path) -> None:
    # git shows a link it is pointed at (it does not follow it); only folders on the way count
    for command in ("git log -- ext", "git ls-files -s ext", "git blame docs/up"):
        assert check_git_command(command, project).allowed, command
    assert not check_git_command("git config --file ext --list", project).allowed  # an option value is opened


def test_inside_paths_stay_allowed(project: Path) -> None:
    for command in ("git config --file a.cfg --list", "git log -- inner/x", "git grep -f a.cfg"):
        assert check_git_command(command, project).allowed, command


ISSUE_POINT_3 = [
    "git grep -C 2 TODO",
    "git grep -c TODO",
    "git log -c",
    "git log -C",
    "git diff -C",
    "git blame -C -C a.cfg",
    "git ls-files -c",
    "git shortlog -c -s",
    "git check-ignore -v a.cfg",
    "git check-attr -a a.cfg",
    "git show-branch",
    "git cherry",
    "git cherry -v",
    "git notes list",
    "git notes show",
    "git notes show HEAD",
    "git symbolic-ref HEAD",
    "git reflog HEAD",
    "git reflog main",
    "git range-diff main...side",
    "git reflog exists HEAD",
]


@pytest.mark.parametrize("command", ISSUE_POINT_3)
def test_plainly_read_only_forms_are_allowed(project: Path, command: str) -> None:
    verdict = check_git_command(command, project)
    assert verdict.allowed, (command, verdict.reason)


def test_global_c_and_capital_c_refusals_say_before_the_subcommand() -> None:
    assert "before the subcommand runs git in another folder" in check_git_command("git -C /tmp log").reason
    assert "before the subcommand sets git configuration" in check_git_command("git -cx=y log").reason
