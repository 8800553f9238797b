"""find_project_root reads git's discovery from the file system; it must agree with git everywhere.

Each case builds a repository layout and compares the answer with `git rev-parse --show-toplevel`
run in the same folder. The plain cases must be answered without starting a process (that is the
point: `planview status` starts in tens of milliseconds); the unusual ones are git's to decide.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from planview.home import find_project_root

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git binary")


@pytest.fixture
def git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., subprocess.CompletedProcess[str]]:
    """git with no user or system config, and discovery stopped at tmp_path's parent."""
    for name in list(os.environ):
        if name.startswith("GIT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", os.devnull)

    def run(*args: str, cwd: Path = tmp_path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)

    return run


def git_says(folder: Path) -> Path | None:
    done = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True, text=True, check=False
    )
    return Path(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


@pytest.fixture
def no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a process was started: {args!r}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)


def agree(folder: Path) -> Path | None:
    expected = git_says(folder)
    assert find_project_root(folder) == expected
    return expected


def test_a_plain_repository_from_a_deep_folder_without_a_process(
    tmp_path: Path, git: Callable[..., object], monkeypatch: pytest.MonkeyPatch
) -> None:
    git("init", "-q", "repo")
    deep = tmp_path / "repo" / "a" / "b"
    deep.mkdir(parents=True)
    expected = git_says(deep)
    assert expected == (tmp_path / "repo").resolve()
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("started a process"))
    assert find_project_root(deep) == expected
    assert find_project_root(deep / "not-yet.md") == expected


def test_a_nested_repository_wins_over_the_outer_one(tmp_path: Path, git: Callable[..., object]) -> None:
    git("init", "-q", "outer")
    git("init", "-q", "outer/inner")
    (tmp_path / "outer" / "inner" / "src").mkdir()
    assert agree(tmp_path / "outer" / "inner" / "src") == (tmp_path / "outer" / "inner").resolve()


def test_a_linked_worktree_and_a_separate_git_dir(tmp_path: Path, git: Callable[..., object]) -> None:
    git("init", "-q", "main")
    git("-C", "main", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x")
    git("-C", "main", "worktree", "add", "-q", str(tmp_path / "linked"))
    git("init", "-q", "--separate-git-dir", str(tmp_path / "store.git"), "separate")
    assert (tmp_path / "linked" / ".git").is_file()
    assert agree(tmp_path / "linked") == (tmp_path / "linked").resolve()
    assert agree(tmp_path / "separate") == (tmp_path / "separate").resolve()


def test_inside_the_git_folder_and_in_a_bare_repository(tmp_path: Path, git: Callable[..., object]) -> None:
    git("init", "-q", "repo")
    git("init", "-q", "--bare", "bare.git")
    assert agree(tmp_path / "repo" / ".git" / "refs") is None
    assert agree(tmp_path / "bare.git") is None
    assert agree(tmp_path / "bare.git" / "refs") is None


def test_git_discovery_variables_are_honoured(
    tmp_path: Path, git: Callable[..., object], monkeypatch: pytest.MonkeyPatch
) -> None:
    git("init", "-q", "repo")
    git("init", "-q", "other")
    (tmp_path / "repo" / "sub").mkdir()
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "other" / ".git"))
    agree(tmp_path / "repo" / "sub")
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path / "repo"))
    assert agree(tmp_path / "repo" / "sub") is None


def test_core_worktree_bare_and_includes_are_left_to_git(tmp_path: Path, git: Callable[..., object]) -> None:
    git("init", "-q", "moved")
    (tmp_path / "elsewhere").mkdir()
    git("-C", "moved", "config", "core.worktree", str(tmp_path / "elsewhere"))
    agree(tmp_path / "moved")
    git("init", "-q", "bare-flag")
    git("-C", "bare-flag", "config", "core.bare", "true")
    agree(tmp_path / "bare-flag")
    git("init", "-q", "included")
    extra = tmp_path / "extra.config"
    extra.write_text(f"[core]\n\tworktree = {tmp_path / 'elsewhere'}\n")
    git("-C", "included", "config", "include.path", str(extra))
    agree(tmp_path / "included")
    git("init", "-q", "per-worktree")
    git("-C", "per-worktree", "config", "extensions.worktreeConfig", "true")
    git("-C", "per-worktree", "config", "--worktree", "core.worktree", str(tmp_path / "elsewhere"))
    agree(tmp_path / "per-worktree")


def test_broken_dot_git_entries_agree_with_git(tmp_path: Path, git: Callable[..., object]) -> None:
    (tmp_path / "dangling").mkdir()
    (tmp_path / "dangling" / ".git").write_text("gitdir: /nonexistent/place\n")
    agree(tmp_path / "dangling")
    (tmp_path / "garbage").mkdir()
    (tmp_path / "garbage" / ".git").write_text("not a gitfile at all\n")
    agree(tmp_path / "garbage")
    (tmp_path / "empty-dot-git" / ".git").mkdir(parents=True)  # no HEAD: not a repository to git
    agree(tmp_path / "empty-dot-git")
    # A gitdir: file pointing at a folder with a HEAD but no objects or refs (a decoy): git refuses it.
    (tmp_path / "decoy" / "fake").mkdir(parents=True)
    (tmp_path / "decoy" / "fake" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / "decoy" / ".git").write_text("gitdir: fake\n")
    agree(tmp_path / "decoy")
    git("init", "-q", "bad-head")
    (tmp_path / "bad-head" / ".git" / "HEAD").write_text("garbage\n")
    agree(tmp_path / "bad-head")
    git("init", "-q", "detached")
    (tmp_path / "detached" / ".git" / "HEAD").write_text("0" * 40 + "\n")
    agree(tmp_path / "detached")
    (tmp_path / "fifo").mkdir()
    os.mkfifo(tmp_path / "fifo" / ".git")
    agree(tmp_path / "fifo")


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a folder's owner needs root")
def test_a_repository_owned_by_another_user_is_left_to_git(
    tmp_path: Path, git: Callable[..., object]
) -> None:
    git("init", "-q", "theirs")
    for folder, _, files in os.walk(tmp_path / "theirs"):
        os.chown(folder, 65534, 65534)
        for name in files:
            os.chown(os.path.join(folder, name), 65534, 65534)
    agree(tmp_path / "theirs")


def test_a_symlinked_folder_gives_the_real_path(tmp_path: Path, git: Callable[..., object]) -> None:
    git("init", "-q", "real")
    (tmp_path / "real" / "sub").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real" / "sub")
    assert agree(tmp_path / "link") == (tmp_path / "real").resolve()


def test_outside_any_repository_is_none_without_a_process(
    tmp_path: Path, git: Callable[..., object], monkeypatch: pytest.MonkeyPatch
) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    if git_says(loose) is not None:
        pytest.skip(f"{tmp_path} is itself inside a git repository on this machine")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("started a process"))
    assert find_project_root(loose) is None


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", ["config", "HEAD", "commondir"])
def test_a_fifo_where_git_reads_a_file_is_no_repository_and_never_blocks(
    tmp_path: Path, git: Callable[..., object], name: str
) -> None:
    """A hostile checkout (an unpacked archive) can hold a FIFO where git reads a file: opening it
    for reading would wait for a writer forever. The walk opens nothing it has not checked."""
    git("init", "-q", "repo")
    target = tmp_path / "repo" / ".git" / name
    target.unlink(missing_ok=True)
    os.mkfifo(target)
    assert find_project_root(tmp_path / "repo") is None


def test_gitfile_whitespace_is_read_as_git_reads_it(tmp_path: Path, git: Callable[..., object]) -> None:
    """git strips only line ends from a gitfile: a trailing or leading space is part of the line, and
    such a `.git` names no repository (QA3: trailing spaces were stripped and the folder accepted)."""
    git("init", "-q", "real")
    for name, text in {
        "trailing-space": "gitdir: ../real/.git   \n",
        "leading-space": "  gitdir: ../real/.git\n",
        "tab-after": "gitdir: ../real/.git\t\n",
        "crlf": "gitdir: ../real/.git\r\n",  # git accepts this one
        "blank-lines": "gitdir: ../real/.git\n\n\n",  # and this one
    }.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / ".git").write_bytes(text.encode())
        agree(tmp_path / name)
    assert find_project_root(tmp_path / "crlf") == tmp_path / "crlf"


def test_a_repository_format_git_refuses_is_no_repository(tmp_path: Path, git: Callable[..., object]) -> None:
    """A repository format version or extension this git does not know makes git refuse the folder;
    the walk leaves a non-zero format to git instead of accepting it."""
    git("init", "-q", "future")
    git("-C", "future", "config", "core.repositoryformatversion", "99")
    agree(tmp_path / "future")
    git("init", "-q", "unknown-ext")
    git("-C", "unknown-ext", "config", "core.repositoryformatversion", "1")
    git("-C", "unknown-ext", "config", "extensions.somethingNew", "true")
    agree(tmp_path / "unknown-ext")
    git("init", "-q", "sha256", "--object-format=sha256")
    assert agree(tmp_path / "sha256") == tmp_path / "sha256"
