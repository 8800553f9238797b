"""Containment: which paths the store may write, symlinks, and the check right before the write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planview.plan import store as store_module
from planview.plan.errors import PlanPathError
from planview.plan.store import PlanStore


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PlanStore:
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    plan_store = PlanStore(root / ".planview")
    plan_store.plans_dir.mkdir(parents=True)
    return plan_store


def test_plain_plan_paths_are_accepted(store: PlanStore) -> None:
    inside = store.plans_dir / "2026-01-14-1030-x.md"
    assert store.check_path(inside) == inside
    assert store.check_path(str(inside)) == inside
    # Relative to the project root, and a bare file name meaning "in the plans folder".
    assert store.check_path(".planview/plans/a.md") == store.plans_dir / "a.md"
    assert store.check_path("a.md") == store.plans_dir / "a.md"
    # Lexically normalised: a detour that ends inside is inside.
    assert store.check_path(".planview/plans/../plans/b.md") == store.plans_dir / "b.md"


def test_the_real_spelling_of_the_folder_is_accepted(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / ".planview" / "plans").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(real)
    linked_store = PlanStore(link / ".planview")
    # The folder reached through a symlinked project root, and the real spelling of it.
    assert linked_store.check_path(link / ".planview/plans/a.md") == link / ".planview/plans/a.md"
    assert linked_store.check_path(real / ".planview/plans/a.md") == link / ".planview/plans/a.md"


@pytest.mark.parametrize(
    "path",
    [
        "../notes.md",
        "/etc/passwd.md",
        "README.md/../../x.md",
        ".planview/notes.md",
        ".planview/plans/../x.md",
    ],
)
def test_paths_outside_the_folder_are_refused(store: PlanStore, path: str) -> None:
    with pytest.raises(PlanPathError) as caught:
        store.check_path(path)
    assert str(caught.value) == f"plan path must be a .md file inside .planview/plans (got {path})"


def test_the_folder_itself_is_refused(store: PlanStore) -> None:
    for path in (store.plans_dir, ".planview/plans", ".planview/plans/", ".planview/plans/."):
        with pytest.raises(PlanPathError, match="plans folder itself"):
            store.check_path(path)


def test_dotdot_prefixed_name_is_inside_but_a_dotfile(store: PlanStore) -> None:
    # "..notes.md" is a file name, not a parent reference: lexically inside, refused as hidden.
    with pytest.raises(PlanPathError) as caught:
        store.check_path(".planview/plans/..notes.md")
    assert "hidden" in str(caught.value)
    assert "inside .planview/plans" in str(caught.value)


@pytest.mark.parametrize("name", [".gitignore", ".plan.md", ".md", ".hidden/x.md", ".planview-x.md.tmp"])
def test_dotfiles_are_refused(store: PlanStore, name: str) -> None:
    with pytest.raises(PlanPathError, match="hidden"):
        store.check_path(store.plans_dir / name)


@pytest.mark.parametrize("name", ["plan.txt", "plan.MD.bak", "plan", "plan.md.txt", "plan.markdown"])
def test_only_md_files(store: PlanStore, name: str) -> None:
    with pytest.raises(PlanPathError, match=r"must be a \.md file"):
        store.check_path(store.plans_dir / name)


def test_empty_and_nul_paths_are_refused(store: PlanStore) -> None:
    with pytest.raises(PlanPathError, match="an empty path"):
        store.check_path("")
    with pytest.raises(PlanPathError):
        store.check_path("a\x00.md")


def test_control_characters_are_not_echoed_raw(store: PlanStore) -> None:
    with pytest.raises(PlanPathError) as caught:
        store.check_path("../\x1b[2Jevil.md")
    assert "\x1b" not in str(caught.value)
    assert "\\x1b[2Jevil.md" in str(caught.value)


def test_a_folder_named_md_is_refused(store: PlanStore) -> None:
    (store.plans_dir / "folder.md").mkdir()
    with pytest.raises(PlanPathError, match="is a folder"):
        store.check_path(store.plans_dir / "folder.md")


def test_existing_subfolder_is_allowed_missing_one_is_refused(store: PlanStore) -> None:
    (store.plans_dir / "archive").mkdir()
    assert store.check_path(store.plans_dir / "archive" / "a.md") == store.plans_dir / "archive" / "a.md"
    with pytest.raises(PlanPathError, match="does not exist"):
        store.check_path(store.plans_dir / "missing" / "a.md")


# ----------------------------------------------------------------------------------------- symlinks


def test_symlink_out_of_the_folder_is_refused_and_the_target_untouched(
    store: PlanStore, tmp_path: Path
) -> None:
    outside = tmp_path / "secrets.md"
    outside.write_text("do not touch\n")
    link = store.plans_dir / "2026-01-14-1030-link.md"
    link.symlink_to(outside)
    with pytest.raises(PlanPathError, match="symlink"):
        store.check_path(link)
    with pytest.raises(PlanPathError, match="symlink"):
        store.write("Link", "# overwritten\n", plan_path=link)
    with pytest.raises(PlanPathError, match="symlink"):
        store.set_steps(link, [{"step": 1, "status": "completed"}])
    assert outside.read_text() == "do not touch\n"
    assert link.is_symlink()


def test_symlink_to_another_plan_inside_is_refused_too(store: PlanStore) -> None:
    real = store.write("Real", "# Real\n").path
    link = store.plans_dir / "alias.md"
    link.symlink_to(real)
    with pytest.raises(PlanPathError, match="symlink"):
        store.write("Real", "# changed\n", plan_path=link)
    assert real.read_text() == "# Real\n"


def test_dangling_symlink_is_refused(store: PlanStore, tmp_path: Path) -> None:
    target = tmp_path / "would-be-created.md"
    link = store.plans_dir / "dangling.md"
    link.symlink_to(target)
    with pytest.raises(PlanPathError, match="symlink"):
        store.write("Dangling", "# x\n", plan_path=link)
    assert not target.exists()


def test_symlinked_subfolder_escaping_is_refused(store: PlanStore, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (store.plans_dir / "sub").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PlanPathError, match="resolves outside"):
        store.check_path(store.plans_dir / "sub" / "plan.md")
    with pytest.raises(PlanPathError, match="resolves outside"):
        store.write("Escape", "# x\n", plan_path=store.plans_dir / "sub" / "plan.md")
    assert list(outside.iterdir()) == []


def test_symlinked_subfolder_staying_inside_is_allowed(store: PlanStore) -> None:
    (store.plans_dir / "real").mkdir()
    (store.plans_dir / "alias").symlink_to(store.plans_dir / "real", target_is_directory=True)
    written = store.write("Alias", "# Alias\n", plan_path=store.plans_dir / "alias" / "a.md")
    assert (store.plans_dir / "real" / "a.md").read_text() == "# Alias\n"
    assert written.path == store.plans_dir / "alias" / "a.md"


def test_plans_folder_itself_a_symlink_is_followed(tmp_path: Path) -> None:
    # The user may keep plans elsewhere by linking the whole folder: containment is relative to it.
    elsewhere = tmp_path / "dropbox-plans"
    elsewhere.mkdir()
    home = tmp_path / ".planview"
    home.mkdir()
    (home / "plans").symlink_to(elsewhere, target_is_directory=True)
    linked = PlanStore(home)
    written = linked.write("Linked", "# Linked\n")
    assert (elsewhere / written.path.name).read_text() == "# Linked\n"


def test_containment_is_checked_again_right_before_the_write(
    store: PlanStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A subfolder swapped for an escaping symlink after the first check is caught at write time."""
    sub = store.plans_dir / "sub"
    sub.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    real_check = PlanStore.check_path
    calls = {"n": 0}

    def swapping_check(self: PlanStore, path: str | Path) -> Path:
        calls["n"] += 1
        result = real_check(self, path)
        if calls["n"] == 1:  # after the first (early) check, an attacker swaps the folder
            sub.rmdir()
            sub.symlink_to(outside, target_is_directory=True)
        return result

    monkeypatch.setattr(PlanStore, "check_path", swapping_check)
    with pytest.raises(PlanPathError, match="resolves outside"):
        store.write("Swap", "# swapped\n", plan_path=sub / "plan.md")
    assert calls["n"] == 2
    assert list(outside.iterdir()) == []


def test_folder_swapped_between_check_and_open_is_caught(
    store: PlanStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even the last window — between the final check and opening the folder — is closed."""
    sub = store.plans_dir / "sub"
    sub.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    real_open = store_module.atomic.open_dir

    def swapping_open(folder: Path) -> int:
        fd = real_open(folder)  # we hold the real folder ...
        if Path(folder).name != "sub":
            return fd
        sub.rename(store.plans_dir / "moved")  # ... which is then replaced by a link outside
        sub.symlink_to(outside, target_is_directory=True)
        return fd

    monkeypatch.setattr(store_module.atomic, "open_dir", swapping_open)
    with pytest.raises(PlanPathError, match="changed while saving"):
        store.write("Swap", "# swapped\n", plan_path=sub / "plan.md")
    assert list(outside.iterdir()) == []
    assert list((store.plans_dir / "moved").iterdir()) == []


def test_refusals_name_the_fix(store: PlanStore) -> None:
    for bad in ("../notes.md", "x.txt", ".gitignore", store.plans_dir):
        with pytest.raises(PlanPathError) as caught:
            store.check_path(bad)
        message = str(caught.value)
        assert "\n" not in message
        assert ".md file" in message or "plain name" in message


def test_paths_outside_a_project_are_shown_absolute(tmp_path: Path) -> None:
    other = PlanStore(tmp_path / "data" / "planview")  # not a .planview folder: no project root
    assert other.project_root is None
    with pytest.raises(PlanPathError) as caught:
        other.check_path(tmp_path / "x.md")
    assert str(other.plans_dir) in str(caught.value) or "~/" in str(caught.value)


def test_relative_paths_resolve_against_the_project_root_not_the_cwd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "project"
    (root / ".planview" / "plans").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    other = PlanStore(root / ".planview")
    assert other.check_path(".planview/plans/a.md") == root / ".planview" / "plans" / "a.md"
    assert os.getcwd() == str(elsewhere)


@pytest.mark.parametrize("bad", [None, 42, b"plan.md", ["a.md"]])
def test_non_string_paths_are_refused_cleanly(store: PlanStore, bad: object) -> None:
    # Tool input comes from a model: a wrong type is a refusal, never a TypeError.
    with pytest.raises(PlanPathError, match=r"must be a \.md file inside"):
        store.check_path(bad)  # type: ignore[arg-type]
