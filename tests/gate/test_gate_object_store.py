"""A repository that borrows objects from a store outside the project gets no plan-mode git.

`objects/info/alternates` (what `git clone --reference` / `--shared` write, and what a hostile
repository can name by hand) makes git read another object store as its own. Evidence, git 2.39, in
a real plan-mode session: `git cat-file --batch-all-objects --batch` printed every commit and file
of a private repository next to the project, and `git show <its commit>` printed its diff, though no
ref of the project reaches them. Git has no switch that ignores alternates, so the gate refuses git
in such a repository (planview.gate.git_store), and `planview gate check` says the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from planview.gate.git_shell import check_git_command
from planview.gate.git_store import borrowed_store
from planview.session.providers.base import ModelToolCall
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

TOKEN = "PRIVATE-5e1b-TOKEN"
ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@e",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@e",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **ENV, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def repo(folder: Path, text: str) -> str:
    """A repository at `folder` with one commit holding `text`; returns the commit id."""
    folder.mkdir(parents=True)
    git(folder, "init", "-q")
    (folder / "f.txt").write_text(text)
    git(folder, "add", "f.txt")
    git(folder, "commit", "-qm", f"commit of {folder.name}")
    return git(folder, "rev-parse", "HEAD").strip()


@pytest.fixture
def borrowing(tmp_path: Path) -> tuple[Path, str, Path]:
    """(project, the private commit's id, the alternates file): the project borrows the private store."""
    private = repo(tmp_path / "private", f"{TOKEN}\n")
    root = tmp_path / "project"
    repo(root, "mine\n")
    alternates = root / ".git" / "objects" / "info" / "alternates"
    alternates.write_text(f"{tmp_path / 'private' / '.git' / 'objects'}\n")
    return root, private, alternates


def _session(root: Path) -> Session:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "x"})))
    return Session(project_root=root, provider=provider, plan_mode=True, persist=False)


async def test_plan_mode_git_shows_nothing_from_a_borrowed_store(borrowing: tuple[Path, str, Path]) -> None:
    root, private, alternates = borrowing
    s = _session(root)
    for command in (f"git show {private}", "git cat-file --batch-all-objects --batch", "git status"):
        result = (await s.run_tool_call(ModelToolCall("c1", "bash", {"command": command}))).result
        assert TOKEN not in result.text, command
        assert result.text.startswith("Refused"), (command, result.text)
        assert "borrows objects" in result.text and str(alternates) in result.text
        assert "read / grep / find / ls" in result.text


def test_gate_check_refuses_git_there_and_names_the_fix(borrowing: tuple[Path, str, Path]) -> None:
    root, _, alternates = borrowing
    done = subprocess.run(
        [sys.executable, "-m", "planview", "gate", "check", "--mode", "plan"],
        input=json.dumps({"tool": "bash", "input": {"command": "git log --oneline"}}) + "\n",
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
    )
    answer = json.loads(done.stdout)
    assert answer["decision"] == "deny", answer
    assert "git repack -a -d" in answer["reason"] and str(alternates) in answer["reason"]


def test_the_printed_fix_makes_the_repository_self_contained(borrowing: tuple[Path, str, Path]) -> None:
    """The reason tells the user to run `git repack -a -d`, then delete the file: done, git runs again."""
    root, _, alternates = borrowing
    reason = check_git_command("git log", root).reason
    assert "`git repack -a -d`" in reason
    subprocess.run(["git", "repack", "-a", "-d", "-q"], cwd=root, check=True)
    alternates.unlink()
    assert check_git_command("git log", root).allowed
    assert "commit of project" in git(root, "log")


@pytest.mark.parametrize(
    "entry",
    [
        "{private}",  # absolute
        "../../../private/.git/objects",  # relative to .git/objects, as git reads it
        "# a comment first\n\n{private}",
        '"{private}"',  # C-quoted, as git writes a path with odd characters
        "{private}/",
    ],
)
def test_every_spelling_of_an_outside_store_is_refused(tmp_path: Path, entry: str) -> None:
    repo(tmp_path / "private", "x\n")
    root = tmp_path / "project"
    repo(root, "y\n")
    text = entry.format(private=tmp_path / "private" / ".git" / "objects")
    (root / ".git" / "objects" / "info" / "alternates").write_text(text + "\n")
    assert "borrows objects" in (borrowed_store(root) or "")
    assert not check_git_command("git status", root).allowed


def test_a_store_inside_the_project_is_not_borrowing_from_outside(tmp_path: Path) -> None:
    root = tmp_path / "project"
    repo(root, "y\n")
    repo(root / "vendor" / "lib", "z\n")  # a nested repository: the readers may read it anyway
    alternates = root / ".git" / "objects" / "info" / "alternates"
    alternates.write_text("# nothing borrowed\n\n")
    assert borrowed_store(root) is None
    alternates.write_text(f"{root / 'vendor' / 'lib' / '.git' / 'objects'}\n")
    assert borrowed_store(root) is None
    assert check_git_command("git status", root).allowed


def test_a_store_inside_that_borrows_from_outside_is_followed(tmp_path: Path) -> None:
    """git follows an alternate's own alternates (to depth 5), so the check does too."""
    repo(tmp_path / "private", "x\n")
    root = tmp_path / "project"
    repo(root, "y\n")
    inner = root / "vendor" / "lib" / ".git" / "objects"
    repo(root / "vendor" / "lib", "z\n")
    (inner / "info" / "alternates").write_text(f"{tmp_path / 'private' / '.git' / 'objects'}\n")
    (root / ".git" / "objects" / "info" / "alternates").write_text(f"{inner}\n")
    assert "borrows objects" in (borrowed_store(root) or "")


def test_an_objects_folder_linked_outside_is_borrowing(tmp_path: Path) -> None:
    repo(tmp_path / "private", "x\n")
    root = tmp_path / "project"
    repo(root, "y\n")
    shutil.rmtree(root / ".git" / "objects")
    (root / ".git" / "objects").symlink_to(tmp_path / "private" / ".git" / "objects")
    assert "outside the project" in (borrowed_store(root) or "")
    assert not check_git_command("git log", root).allowed


def test_an_alternates_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    root = tmp_path / "project"
    repo(root, "y\n")
    os.mkfifo(root / ".git" / "objects" / "info" / "alternates")
    reason = borrowed_store(root) or ""
    assert "cannot be checked" in reason and "FIFO" in reason


def test_a_linked_worktree_uses_its_own_repository_store(tmp_path: Path) -> None:
    """A linked worktree's objects live in the main repository, outside the worktree: that store is
    the repository's own, not borrowed."""
    main = tmp_path / "main"
    repo(main, "y\n")
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert borrowed_store(tmp_path / "wt") is None
    assert check_git_command("git status", tmp_path / "wt").allowed
    (main / ".git" / "objects" / "info" / "alternates").write_text(f"{tmp_path / 'elsewhere'}\n")
    assert "borrows objects" in (borrowed_store(tmp_path / "wt") or "")


def test_a_folder_that_is_no_repository_borrows_nothing(tmp_path: Path) -> None:
    assert borrowed_store(tmp_path) is None
    (tmp_path / ".git").write_text("not a gitdir line\n")
    assert borrowed_store(tmp_path) is None
