"""Where the plans folder is: PLANVIEW_HOME, the git toplevel, or the user data dir."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from planview.home import HOME_GITIGNORE, HomeError, find_project_root, planview_home
from planview.plan.store import PlanStore

GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}


@pytest.fixture
def no_git_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder outside any git repository, with the user data dir redirected into tmp."""
    folder = tmp_path / "loose"
    folder.mkdir()
    monkeypatch.delenv("PLANVIEW_HOME", raising=False)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    data = tmp_path / "user-data" / "planview"
    import platformdirs

    monkeypatch.setattr(platformdirs, "user_data_path", lambda *a, **k: data)
    return folder


def test_git_toplevel_detected_from_a_subfolder(project: Path) -> None:
    project = project.resolve()  # git reports the real path (macOS: /private/var/...)
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    assert find_project_root(sub) == project
    assert find_project_root(sub / "not-created-yet.py") == project
    assert find_project_root() == project  # the fixture chdir'd into the project


def test_home_in_a_repo_is_self_ignoring(project: Path) -> None:
    project = project.resolve()
    home = planview_home(project / "README.md")
    assert home == project / ".planview"
    assert (home / ".gitignore").read_text() == HOME_GITIGNORE
    store = PlanStore.for_cwd()
    assert store.plans_dir == project / ".planview" / "plans"
    store.write("Add rate limiting", "# Add rate limiting\n\n## Steps\n- [ ] one\n")
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
        env=GIT_ENV,
    )
    assert status.stdout == ""  # neither the plan nor .planview itself shows up


def test_existing_gitignore_is_left_alone(project: Path) -> None:
    (project / ".planview").mkdir()
    (project / ".planview" / ".gitignore").write_text("*\n!keep.txt\n")
    planview_home(project)
    assert (project / ".planview" / ".gitignore").read_text() == "*\n!keep.txt\n"


def test_planview_home_env_overrides_git(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    custom = tmp_path / "custom-home"
    monkeypatch.setenv("PLANVIEW_HOME", str(custom))
    assert planview_home(project) == custom
    assert (custom / ".gitignore").read_text() == HOME_GITIGNORE
    store = PlanStore.for_cwd()
    assert store.home == custom and store.plans_dir == custom / "plans"
    assert not (project / ".planview").exists()


def test_blank_planview_home_is_ignored(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANVIEW_HOME", "  ")
    assert planview_home(project) == project.resolve() / ".planview"


def test_planview_home_tilde_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PLANVIEW_HOME", "~/pv")
    assert planview_home() == tmp_path / "pv"


def test_outside_git_uses_the_user_data_dir(no_git_here: Path, tmp_path: Path) -> None:
    assert find_project_root(no_git_here) is None
    home = planview_home(no_git_here)
    assert home == tmp_path / "user-data" / "planview"
    assert (home / ".gitignore").read_text() == HOME_GITIGNORE
    store = PlanStore.for_cwd(no_git_here)
    assert store.project_root is None
    assert store.plans_dir == home / "plans"


def test_without_a_git_binary_a_dot_git_folder_marks_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "a" / "b").mkdir(parents=True)
    monkeypatch.setattr("shutil.which", lambda name: None)
    assert find_project_root(tmp_path / "repo" / "a" / "b") == tmp_path / "repo"


def test_unwritable_home_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PLANVIEW_HOME", str(blocker / "home"))
    with pytest.raises(
        HomeError, match="cannot create the planview folder .*set PLANVIEW_HOME to a writable"
    ):
        planview_home()


def test_relative_display(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = PlanStore.for_cwd()
    assert store.relative(store.plans_dir / "a.md") == ".planview/plans/a.md"
    monkeypatch.setenv("HOME", str(tmp_path))
    elsewhere = PlanStore(tmp_path / "data" / "planview")
    assert elsewhere.relative(elsewhere.plans_dir / "a.md") == "~/data/planview/plans/a.md"
    assert elsewhere.relative(Path("/opt/x.md")) == "/opt/x.md"
