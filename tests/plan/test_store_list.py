"""Listing, latest(), reading plans exactly, and set_steps through the store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from planview.plan.errors import PlanNotFoundError, PlanPathError, PlanReadError
from planview.plan.steps import StepUpdateError
from planview.plan.store import PlanStore, list_plans, read_plan_text

PLAN = """# Ship the thing

## Steps

- [x] First step
- [ ] Second step
  - a note
- [ ] Third step
"""


@pytest.fixture
def store(tmp_path: Path) -> PlanStore:
    return PlanStore(tmp_path / ".planview")


def _touch(path: Path, seconds: int) -> None:
    os.utime(path, ns=(seconds * 10**9, seconds * 10**9), follow_symlinks=False)


def test_empty_store(store: PlanStore) -> None:
    assert store.list() == []
    assert store.latest() is None
    assert not store.plans_dir.exists()  # listing creates nothing


def test_list_newest_first_with_title_and_steps(store: PlanStore) -> None:
    older = store.write("Older", PLAN).path
    newer = store.write("Newer", "# Newer plan\n\n## Steps\n- [ ] only\n").path
    _touch(older, 1_700_000_000)
    _touch(newer, 1_700_000_100)
    infos = store.list()
    assert [info.path for info in infos] == [newer, older]
    assert (infos[1].title, infos[1].steps_done, infos[1].steps_total) == ("Ship the thing", 1, 3)
    assert (infos[0].title, infos[0].steps_done, infos[0].steps_total) == ("Newer plan", 0, 1)
    assert infos[1].mtime == pytest.approx(1_700_000_000)
    assert store.latest() == newer
    # Touching the older plan (e.g. ticking a step) makes it the newest.
    _touch(older, 1_700_000_200)
    assert store.latest() == older


def test_mtime_ties_broken_by_name(store: PlanStore) -> None:
    store.plans_dir.mkdir(parents=True)
    names = ["2026-01-14-1030-a.md", "2026-01-15-0900-b.md", "2026-01-14-1031-c.md"]
    for name in names:
        (store.plans_dir / name).write_text(f"# {name}\n")
        _touch(store.plans_dir / name, 1_700_000_000)
    assert [info.path.name for info in store.list()] == sorted(names, reverse=True)
    assert store.latest().name == "2026-01-15-0900-b.md"


def test_list_skips_dotfiles_and_non_md_and_names_what_is_no_plan_file(
    store: PlanStore, tmp_path: Path
) -> None:
    real = store.write("Real", "# Real\n").path
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\n## Steps\n- [x] leaked\n")
    (store.plans_dir / "link.md").symlink_to(outside)
    (store.plans_dir / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    os.mkfifo(store.plans_dir / "pipe.md")  # opened blocking, this would hang the listing
    (store.plans_dir / ".hidden.md").write_text("# hidden\n")
    (store.plans_dir / ".x.md.abc123.tmp").write_text("# torn temp\n")
    (store.plans_dir / "notes.txt").write_text("not a plan\n")
    (store.plans_dir / "README.md").write_text("# About these plans\n")
    (store.plans_dir / "folder.md").mkdir()
    _touch(real, 1_600_000_000)  # oldest of all, still the only plan latest() opens
    infos = {info.path.name: info for info in store.list()}
    assert set(infos) == {real.name, "link.md", "dangling.md", "pipe.md", "folder.md"}
    assert infos[real.name].unreadable is None
    link = infos["link.md"]
    assert link.unreadable == (
        f"a symbolic link to {outside}; planview reads no links in the plans folder: "
        "replace the link with the plan file itself"
    )
    assert (link.title, link.steps_total) == ("link", 0)  # nothing read through the link
    assert infos["dangling.md"].unreadable == (
        f"a symbolic link to {tmp_path / 'nowhere.md'}, which does not exist; remove the link"
    )
    assert infos["pipe.md"].unreadable == "a FIFO (named pipe), not a plan file; move it aside"
    assert infos["folder.md"].unreadable == "a folder, not a plan file; move it aside"
    assert store.latest() == real


def test_unreadable_or_odd_plans_are_still_listed(store: PlanStore) -> None:
    store.plans_dir.mkdir(parents=True)
    (store.plans_dir / "2026-01-01-0000-binary.md").write_bytes(b"\xff\xfe# Broken \x00\n- [x] done\n")
    (store.plans_dir / "2026-01-01-0001-untitled.md").write_text("just prose, no heading\n")
    infos = {info.path.name: info for info in store.list()}
    assert infos["2026-01-01-0001-untitled.md"].title == "2026-01-01-0001-untitled"
    assert len(infos) == 2


def test_list_plans_of_any_folder(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(PLAN)
    assert [(i.title, i.steps_done, i.steps_total) for i in list_plans(tmp_path)] == [
        ("Ship the thing", 1, 3)
    ]
    assert list_plans(tmp_path / "missing") == []


def test_sample_plans_list() -> None:
    samples = Path(__file__).resolve().parents[2] / "plans"
    infos = {info.path.name: info for info in list_plans(samples)}
    assert set(infos) >= {
        "2026-01-14-1030-add-rate-limiting.md",
        "2026-01-15-0900-billing-platform-migration.md",
    }
    short = infos["2026-01-14-1030-add-rate-limiting.md"]
    assert (short.steps_done, short.steps_total) == (2, 7)
    long = infos["2026-01-15-0900-billing-platform-migration.md"]
    assert (long.steps_done, long.steps_total) == (3, 30)


# -------------------------------------------------------------------------------------------- reading


def test_read_is_exact(store: PlanStore) -> None:
    text = "# T\r\n\r\nmixed\nendings\r\n\tno final newline"
    path = store.write("T", text).path
    assert store.read(path) == text
    assert read_plan_text(path) == text


def test_read_relative_to_the_plans_folder(
    store: PlanStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = store.write("T", "# T\n").path
    assert store.read(path.name) == "# T\n"


def test_read_errors_are_typed_and_say_what_to_do(store: PlanStore, tmp_path: Path) -> None:
    with pytest.raises(PlanNotFoundError, match="plan not found: .*planview plans"):
        store.read(tmp_path / "missing.md")
    folder = tmp_path / "dir.md"
    folder.mkdir()
    with pytest.raises(PlanReadError, match="is a folder"):
        read_plan_text(folder)
    latin1 = tmp_path / "latin1.md"
    latin1.write_bytes("# Café\n".encode("latin-1"))
    with pytest.raises(
        PlanReadError, match=r"not UTF-8 text \(byte 0xe9 at offset 5\); save the plan as UTF-8"
    ):
        read_plan_text(latin1)


def test_read_permission_denied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Simulated: chmod 0 does not stop root, and CI often runs as root.
    from planview import fileguard

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(fileguard, "open_regular", denied)
    with pytest.raises(
        PlanReadError, match="cannot read .*locked.md: permission denied; check the file's permissions"
    ):
        read_plan_text(tmp_path / "locked.md")


# ------------------------------------------------------------------------------------------ set_steps


def test_set_steps_changes_only_checkboxes_atomically(store: PlanStore) -> None:
    path = store.write("Ship", PLAN.replace("\n", "\r\n")).path
    before = path.read_bytes()
    new = store.set_steps(path, [{"step": 2, "status": "completed"}, {"step": 1, "status": "pending"}])
    after = path.read_bytes()
    assert after.decode() == new
    assert after == before.replace(b"- [x] First", b"- [ ] First").replace(b"- [ ] Second", b"- [x] Second")
    assert sorted(p.name for p in store.plans_dir.iterdir()) == [path.name]  # no temp left behind


def test_set_steps_all_or_nothing(store: PlanStore) -> None:
    path = store.write("Ship", PLAN).path
    with pytest.raises(StepUpdateError):
        store.set_steps(path, [{"step": 1, "status": "pending"}, {"step": 9, "status": "completed"}])
    with pytest.raises(StepUpdateError):
        store.set_steps(path, [{"step": 2, "status": "completed", "expected": "Something else"}])
    assert path.read_text() == PLAN


def test_set_steps_no_change_does_not_touch_the_file(store: PlanStore) -> None:
    path = store.write("Ship", PLAN).path
    _touch(path, 1_700_000_000)
    assert store.set_steps(path, [{"step": 1, "status": "completed"}]) == PLAN
    assert path.stat().st_mtime == 1_700_000_000


def test_set_steps_refuses_outside_and_missing(store: PlanStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(PLAN)
    with pytest.raises(PlanPathError):
        store.set_steps(outside, [{"step": 2, "status": "completed"}])
    assert outside.read_text() == PLAN
    store.plans_dir.mkdir(parents=True)
    with pytest.raises(PlanNotFoundError, match="plan not found"):
        store.set_steps(store.plans_dir / "missing.md", [{"step": 1, "status": "completed"}])
