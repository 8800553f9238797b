"""Plan file names: slug rules, local-time stamps, taken names (by lstat) and blank titles."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planview.plan.errors import PlanTitleError
from planview.plan.store import PlanStore, slugify

NOON = datetime(2026, 1, 14, 10, 30)


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Add rate limiting", "add-rate-limiting"),
        ("  Add   rate -- limiting!  ", "add-rate-limiting"),
        ("Migrate café billing to Zürich", "migrate-cafe-billing-to-zurich"),
        ("Ünïcödé ÀÉÎÕÜ", "unicode-aeiou"),
        ("Straße", "strasse"),  # casefold, then ASCII
        ("İstanbul office", "istanbul-office"),
        ("ﬁle handling", "file-handling"),  # NFKD splits the ligature
        ("Fix user_id / snake_case.py", "fix-user-id-snake-case-py"),
        ("v2.0 → v3.0", "v2-0-v3-0"),
        ("日本語のプラン", "plan"),  # CJK only: nothing ASCII survives
        ("计划 v2", "v2"),
        ("!!!", "plan"),
        ("---", "plan"),
        ("\x1b[31mred\x1b[0m", "31mred-0m"),
        ("UPPER lower 123", "upper-lower-123"),
    ],
)
def test_slug_rules(title: str, slug: str) -> None:
    assert slugify(title) == slug


def test_slug_is_capped_at_60_without_a_trailing_dash() -> None:
    assert len(slugify("a" * 100)) == 60
    # Cut falls right after a separator: the dash is trimmed, not kept as the last character.
    title = "x" * 59 + " tail of the title"
    assert slugify(title) == "x" * 59
    long = "word " * 40
    assert len(slugify(long)) <= 60
    assert not slugify(long).endswith("-")


@given(st.text())
def test_slug_shape_for_any_title(title: str) -> None:
    slug = slugify(title)
    assert 1 <= len(slug) <= 60
    assert all(ch in "abcdefghijklmnopqrstuvwxyz0123456789-" for ch in slug)
    assert not slug.startswith("-") and not slug.endswith("-")
    assert "--" not in slug


def test_new_path_uses_stamp_and_slug(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    path = store.new_path("Add rate limiting", NOON)
    assert path == store.plans_dir / "2026-01-14-1030-add-rate-limiting.md"


@pytest.fixture
def india_time(monkeypatch: pytest.MonkeyPatch):
    """Local time UTC+5:30 (a POSIX TZ string, so no tz database is needed)."""
    monkeypatch.setenv("TZ", "IST-5:30")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_new_path_converts_aware_times_to_local(tmp_path: Path, india_time: None) -> None:
    store = PlanStore(tmp_path / ".planview")
    moment = datetime(2026, 1, 14, 5, 0, tzinfo=UTC)
    assert store.new_path("x", moment).name == "2026-01-14-1030-x.md"
    # A naive time is already local and used as is.
    assert store.new_path("x", datetime(2026, 1, 14, 5, 0)).name == "2026-01-14-0500-x.md"


def test_new_path_default_is_now_in_local_time(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    before = datetime.now()
    name = store.new_path("Now").name
    after = datetime.now()
    stamps = {f"{t:%Y-%m-%d-%H%M}" for t in (before, after)}
    assert name[:15] in stamps


def test_taken_names_get_numbered_suffixes(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    store.plans_dir.mkdir(parents=True)
    base = "2026-01-14-1030-add-rate-limiting"
    (store.plans_dir / f"{base}.md").write_text("# one\n")
    assert store.new_path("Add rate limiting", NOON).name == f"{base}-2.md"
    (store.plans_dir / f"{base}-2.md").write_text("# two\n")
    assert store.new_path("Add rate limiting", NOON).name == f"{base}-3.md"


def test_dangling_symlink_takes_the_name(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    store.plans_dir.mkdir(parents=True)
    base = "2026-01-14-1030-add-rate-limiting"
    os.symlink(tmp_path / "does-not-exist.md", store.plans_dir / f"{base}.md")
    assert not (store.plans_dir / f"{base}.md").exists()  # dangling: exists() says no, lstat says yes
    assert store.new_path("Add rate limiting", NOON).name == f"{base}-2.md"


def test_write_never_reuses_a_dangling_symlink_name(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    store.plans_dir.mkdir(parents=True)
    outside = tmp_path / "outside.md"
    stamp = f"{datetime.now():%Y-%m-%d-%H%M}"
    for minute in {stamp, f"{datetime.now() + timedelta(minutes=1):%Y-%m-%d-%H%M}"}:
        os.symlink(outside, store.plans_dir / f"{minute}-dangling.md")
    written = store.write("Dangling", "# Dangling\n")
    assert written.path.name.endswith("-dangling-2.md")
    assert not outside.exists()  # nothing was written through the link


def test_two_plans_with_the_same_title_in_one_minute_both_survive(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    first = store.write("Same title", "# First\n")
    second = store.write("Same title", "# Second\n")
    assert first.path != second.path
    assert first.path.read_text() == "# First\n"
    assert second.path.read_text() == "# Second\n"


@pytest.mark.parametrize("title", ["", "   ", "\n\t  \n"])
def test_blank_titles_are_refused(tmp_path: Path, title: str) -> None:
    store = PlanStore(tmp_path / ".planview")
    with pytest.raises(PlanTitleError, match="title is blank; pass a short title"):
        store.write(title, "# Plan\n")
    with pytest.raises(PlanTitleError):
        store.new_path(title, NOON)
    assert not store.plans_dir.exists() or not any(store.plans_dir.iterdir())


def test_blank_title_refused_even_when_overwriting(tmp_path: Path) -> None:
    store = PlanStore(tmp_path / ".planview")
    written = store.write("Keep", "# Keep\n")
    with pytest.raises(PlanTitleError):
        store.write(" ", "# Changed\n", plan_path=written.path)
    assert written.path.read_text() == "# Keep\n"
