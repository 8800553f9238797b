"""Readers and a link swapped between the check and the open (issue 23: an outside file came back in
about 3-4% of 3,000 reads). A thread flips a link in the project between a file inside and a secret
outside as fast as it can; every plan-mode read either returns the inside file or is refused, never
the secret. The readers open first, then check what the descriptor refers to."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from acp import RequestError

from planview.agents import files as acp_files
from planview.session.tools import files
from planview.session.tools.base import ToolContext, ToolError

READS = 3000
SECRET = "SECRET-TOKEN"


@dataclass
class PlanHost:
    """A ToolHost in plan mode."""

    project_root: Path
    mode: str = "plan"

    @property
    def home(self) -> Path:
        return self.project_root / ".planview"

    def tool_env(self) -> dict[str, str]:
        return dict(os.environ)


class Flipper:
    """Keeps replacing `link` (atomically) with a link to `inside`, then one to `outside`."""

    def __init__(self, link: Path, inside: Path, outside: Path) -> None:
        self.link, self.targets = link, (inside, outside)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        spare = self.link.with_name(self.link.name + ".new")
        n = 0
        while not self.stop.is_set():
            n += 1
            with_target = self.targets[n % 2]
            try:
                os.symlink(with_target, spare, target_is_directory=with_target.is_dir())
                os.replace(spare, self.link)
            except OSError:
                pass

    def __enter__(self) -> Flipper:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()


def layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    root = tmp_path / "project"
    (root / "real").mkdir(parents=True)
    (root / "real" / "notes.txt").write_text("inside\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text(SECRET + "\n")
    return root, root / "real", outside


async def test_planviews_read_tool_never_returns_a_file_a_swapped_link_points_out_to(tmp_path: Path) -> None:
    root, inside, outside = layout(tmp_path)
    ctx = ToolContext(root, PlanHost(root))  # type: ignore[arg-type]
    leaked = served = refused = 0
    with Flipper(root / "dir", inside, outside):  # the folder is the link: project/dir/notes.txt
        for _ in range(READS):
            try:
                text = (await files.read(ctx, {"path": "dir/notes.txt"})).text
            except ToolError:
                refused += 1
                continue
            leaked += SECRET in text
            served += "inside" in text
    assert leaked == 0, f"{leaked} of {READS} reads returned the outside file"
    assert served > 0 and refused > 0  # the race really ran both ways


class Swapper(Flipper):
    """Keeps swapping a real folder of the project and a link out under one name (renames): a path
    resolved while it is the folder names a link out by the time it is opened."""

    def __init__(self, name: Path, folder: Path, outside: Path) -> None:
        super().__init__(name, folder, outside)
        self.link_out = name.with_name(name.name + ".out")
        self.held = name.with_name(name.name + ".held")
        os.symlink(outside, self.link_out, target_is_directory=True)
        os.rename(folder, name)

    def run(self) -> None:
        name = self.link
        while not self.stop.is_set():
            for src, dst in (
                (name, self.held),
                (self.link_out, name),
                (name, self.link_out),
                (self.held, name),
            ):
                try:
                    os.rename(src, dst)
                except OSError:
                    pass


async def test_the_acp_read_never_returns_a_file_a_swapped_link_points_out_to(tmp_path: Path) -> None:
    root, inside, outside = layout(tmp_path)
    leaked = served = refused = 0
    with Swapper(root / "dir", inside, outside):
        for n in range(READS):
            try:
                target = acp_files.inside(root, "dir/notes.txt")
                text = await acp_files.read_lines(target, "dir/notes.txt", 1 if n % 2 else None, None, root)
            except RequestError:
                refused += 1
                continue
            leaked += SECRET in text
            served += "inside" in text
    assert leaked == 0, f"{leaked} of {READS} reads returned the outside file"
    assert served > 0 and refused > 0


def test_a_read_of_a_deleted_or_outside_descriptor_is_refused(tmp_path: Path) -> None:
    from planview.fileguard import OutsideError, open_regular_within

    root, inside, outside = layout(tmp_path)
    fd = open_regular_within(inside / "notes.txt", (Path(os.path.realpath(root)),))
    os.close(fd)
    (root / "out").symlink_to(outside / "notes.txt")
    try:
        open_regular_within(root / "out", (Path(os.path.realpath(root)),))
    except OutsideError as exc:
        assert "outside" in str(exc)
    else:
        raise AssertionError("a link out was opened")


def test_planviews_own_grep_never_searches_a_file_a_swapped_link_points_out_to(tmp_path: Path) -> None:
    """The grep tool's fallback (no rg) reads each file it walks: the same race, the same check."""
    from planview.gate.read_scope import read_roots

    root, inside, outside = layout(tmp_path)
    (root / ".planview").mkdir()
    roots = read_roots(root, root / ".planview")
    leaked = found = 0
    with Flipper(root / "dir", inside, outside):
        for _ in range(READS // 3):
            try:
                lines = files._grep_python(root, "SECRET|inside", root / "dir" / "notes.txt", None, roots)
            except ToolError:
                continue
            leaked += any(SECRET in line for line in lines)
            found += any("inside" in line for line in lines)
    assert leaked == 0, f"{leaked} searches read the outside file"
    assert found > 0
