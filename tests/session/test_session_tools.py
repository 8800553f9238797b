"""The file and shell tools, called directly (the session adds the gate around them)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from planview.session.tools import files, shell
from planview.session.tools.base import ToolContext, ToolError, validate
from planview.session.tools.registry import REGISTRY, schemas_for


@dataclass
class BareHost:
    """The ToolHost of a tool run outside any session: execute mode, its own home."""

    project_root: Path
    mode: str = "execute"

    @property
    def home(self) -> Path:
        return self.project_root / ".planview"

    def tool_env(self) -> dict[str, str]:
        return dict(os.environ)


def ctx(root: Path) -> ToolContext:
    return ToolContext(root, BareHost(root))  # type: ignore[arg-type]


async def run(root: Path, name: str, **args):
    return await REGISTRY[name].run(ctx(root), args)


async def test_read_numbers_lines_and_pages(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = await run(tmp_path, "read", path="a.txt", offset=3, limit=2)
    assert result.text.splitlines()[:2] == ["3\tline 3", "4\tline 4"]
    assert "pass offset=5 to read on" in result.text
    with pytest.raises(ToolError, match="does not exist; use ls or find"):
        await run(tmp_path, "read", path="missing.txt")
    (tmp_path / "bin").write_bytes(b"\0\1\2")
    with pytest.raises(ToolError, match="binary"):
        await run(tmp_path, "read", path="bin")


async def test_grep_python_fallback_and_ripgrep_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("def greeting():\n    return 'hi'\n")
    (tmp_path / "notes.md").write_text("greeting in prose\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x").write_text("greeting hidden\n")
    monkeypatch.setattr(files.shutil, "which", lambda _: None)
    python = await run(tmp_path, "grep", pattern="greet", glob="*.py")
    assert python.text == "src/m.py:1:def greeting():"
    everything = await run(tmp_path, "grep", pattern="greeting")
    assert sorted(everything.text.splitlines()) == [
        "notes.md:1:greeting in prose",
        "src/m.py:1:def greeting():",
    ]
    with pytest.raises(ToolError, match="invalid regular expression"):
        await run(tmp_path, "grep", pattern="(")
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ci.yml").write_text("run: greeting\n")
    python_hidden = await run(tmp_path, "grep", pattern="greeting")
    monkeypatch.undo()
    if files.shutil.which("rg"):
        rg = await run(tmp_path, "grep", pattern="greet", glob="*.py")
        assert rg.text == python.text
        rg_hidden = await run(tmp_path, "grep", pattern="greeting")
        assert sorted(rg_hidden.text.splitlines()) == sorted(python_hidden.text.splitlines())
        assert ".github/ci.yml:1:run: greeting" in rg_hidden.text and ".git/" not in rg_hidden.text


async def test_find_and_ls(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("")
    (tmp_path / "b.py").write_text("")
    assert (await run(tmp_path, "find", glob="**/*.py")).text.splitlines() == ["b.py", "pkg/a.py"]
    assert (await run(tmp_path, "ls")).text.splitlines() == ["pkg/", "b.py"]
    assert "no files match" in (await run(tmp_path, "find", glob="*.rs")).text


async def test_write_and_edit(tmp_path: Path) -> None:
    assert (await run(tmp_path, "write", path="d/new.txt", content="one\ntwo\n")).text.startswith(
        "Created d/new.txt"
    )
    result = await run(tmp_path, "edit", path="d/new.txt", old_string="two", new_string="2")
    assert "line 2" in result.text and (tmp_path / "d/new.txt").read_text() == "one\n2\n"
    with pytest.raises(ToolError, match="was not found in d/new.txt; read the file"):
        await run(tmp_path, "edit", path="d/new.txt", old_string="three", new_string="3")
    (tmp_path / "dup.txt").write_text("x\nx\n")
    with pytest.raises(ToolError, match=r"appears 2 times in dup.txt \(lines 1, 2\)"):
        await run(tmp_path, "edit", path="dup.txt", old_string="x", new_string="y")
    with pytest.raises(ToolError, match="outside the project folder"):
        await run(tmp_path, "write", path="../escape.txt", content="x")
    with pytest.raises(ToolError, match="inside .git"):
        await run(tmp_path, "write", path=".git/config", content="x")


async def test_edit_keeps_crlf(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"a\r\nb\r\n")
    await run(tmp_path, "edit", path="w.txt", old_string="b", new_string="c")
    assert (tmp_path / "w.txt").read_bytes() == b"a\r\nc\r\n"


async def test_bash_runs_in_root_with_exit_code_and_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok = await run(tmp_path, "bash", command="pwd")
    assert ok.text == str(tmp_path) and not ok.error
    failed = await run(tmp_path, "bash", command="echo oops; exit 3")
    assert failed.error and failed.text == "oops\n(exit code 3)"
    monkeypatch.setattr(shell, "HEAD_CAP", 100)
    monkeypatch.setattr(shell, "TAIL_CAP", 50)
    big = await run(tmp_path, "bash", command="seq 1 10000")
    assert "bytes of output skipped" in big.text and big.text.endswith("10000")
    assert len(big.text) < 300


async def test_bash_timeout_kills_the_process_group(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    result = await run(tmp_path, "bash", command=f"sleep 30 & echo $! > {marker}; wait", timeout=0.5)
    assert result.error and "timed out after 0.5s" in result.text
    pid = int(marker.read_text())
    _assert_gone(pid)


async def test_bash_cancel_kills_the_command(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    task = asyncio.create_task(run(tmp_path, "bash", command=f"echo $$ > {marker}; sleep 30"))
    for _ in range(200):
        if marker.exists() and marker.read_text().strip():
            break
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    _assert_gone(int(marker.read_text()))


def _assert_gone(pid: int) -> None:
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        # A killed child may linger as a zombie until reaped; check its state.
        try:
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return
        except (FileNotFoundError, ProcessLookupError, IndexError):  # ESRCH: it vanished mid-read
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} is still running")


def test_registry_schemas_and_validation() -> None:
    plan = {s.name for s in schemas_for("plan")}
    execute = {s.name for s in schemas_for("execute")}
    assert {"write_plan", "exit_plan_mode"} <= plan and not {"write", "edit"} & plan
    assert {"write", "edit", "set_plan_steps", "enter_plan_mode"} <= execute
    for spec in schemas_for("execute"):
        assert spec.parameters["type"] == "object" and spec.description
    params = REGISTRY["edit"].parameters
    assert validate(params, {"path": "a"}) == "missing required argument `old_string`"
    assert "unknown argument(s) bogus" in validate(
        params, {"path": "a", "old_string": "x", "new_string": "y", "bogus": 1}
    )
    assert (
        validate(params, {"path": 3, "old_string": "x", "new_string": "y"})
        == "argument `path` must be a string"
    )
    read = REGISTRY["read"].parameters  # QA3: it said "must be a integer"
    assert validate(read, {"path": "a", "offset": "x"}) == "argument `offset` must be an integer"
    description = REGISTRY["write_plan"].description
    for heading in (
        "# <Title>",
        "## Goal",
        "## Context",
        "## Approach",
        "## Steps",
        "- [ ]",
        "## Risks",
        "## Verification",
    ):
        assert heading in description


async def test_read_refuses_a_fifo_instead_of_blocking(tmp_path: Path) -> None:
    # A FIFO used to be read to EOF in the event loop: the whole app hung until a writer closed it.
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def writer() -> None:
        with open(fifo, "w") as fh:  # blocks until someone opens the reading end
            fh.write("hello\n")

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        with pytest.raises(ToolError, match="not a regular file"):
            await run(tmp_path, "read", path="pipe")
    finally:
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # let the writer finish
        thread.join(5)
        os.close(reader)


async def test_write_and_grep_pass_over_a_fifo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    (tmp_path / "a.txt").write_text("needle\n")
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so a regression fails instead of hanging
    try:
        with pytest.raises(ToolError, match="not a regular file"):
            await run(tmp_path, "write", path="pipe", content="x")
    finally:
        os.close(reader)
    monkeypatch.setattr(files.shutil, "which", lambda name: None)  # the Python fallback
    try:
        result = await asyncio.wait_for(run(tmp_path, "grep", pattern="needle"), 5)
    finally:
        with contextlib.suppress(OSError):  # release a search stuck opening the FIFO
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert result.text == "a.txt:1:needle"


@pytest.mark.parametrize("engine", ["rg", "python"])
async def test_grep_stops_at_the_match_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    # rg used to be read to the end into memory ("." over a big tree: millions of lines), and the
    # two engines reported different "N more" counts for the same tree.
    if engine == "rg" and not files.shutil.which("rg"):
        pytest.skip("ripgrep is not installed")
    if engine == "python":
        monkeypatch.setattr(files.shutil, "which", lambda _: None)
    (tmp_path / "big.txt").write_text("x\n" * 50_000)
    result = await run(tmp_path, "grep", pattern="x")
    lines = result.text.splitlines()
    assert len(lines) == files.MATCH_CAP + 1 and lines[0] == "big.txt:1:x"
    assert (
        lines[-1]
        == f"… more than {files.MATCH_CAP} matches, the rest not shown; narrow the pattern, path or glob"
    )
    with pytest.raises(ToolError, match="grep failed|invalid regular expression"):
        await run(tmp_path, "grep", pattern="(")


async def test_find_walks_a_repeated_globstar_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """QA3: `**/` repeated made pathlib walk the tree again per repeat (`**/` x 7 took 0.4 s on 210
    folders, growing 1.6x a repeat; x 200 was a RecursionError). `**/**` matches what `**` matches."""
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "x.py").write_text("")
    (tmp_path / "x.py").write_text("")
    expected = (await run(tmp_path, "find", glob="**/x.py")).text
    assert expected.splitlines() == ["a/b/x.py", "x.py"]
    walked: list[str] = []
    real_glob = Path.glob
    monkeypatch.setattr(
        Path, "glob", lambda self, pattern: walked.append(pattern) or real_glob(self, pattern)
    )
    assert (await run(tmp_path, "find", glob="**/" * 200 + "x.py")).text == expected
    assert (await run(tmp_path, "find", glob="a/**/**/b/**/**/*.py")).text == "a/b/x.py"
    assert walked == ["**/x.py", "a/**/b/**/*.py"]


async def test_read_of_a_huge_single_line_holds_only_what_it_shows(tmp_path: Path) -> None:
    """A 64 MiB minified line: read shows its first LINE_CAP characters and the next line, holding a
    bounded chunk of it, never the line (before: twice the line in memory, 219 MB of RSS for 100 MB)."""
    import tracemalloc

    with open(tmp_path / "bundle.js", "wb") as fh:
        for _ in range(64):
            fh.write(b"x" * (1 << 20))
        fh.write(b"\nafter\n")
    tracemalloc.start()
    try:
        result = await run(tmp_path, "read", path="bundle.js")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    first, second = result.text.splitlines()[:2]
    assert first == "1\t" + "x" * files.LINE_CAP + "…" and second == "2\tafter"
    assert peak < 8 * (1 << 20), f"{peak:,} bytes traced while reading one line"


@pytest.mark.parametrize("engine", ["rg", "python"])
async def test_grep_given_a_fifo_is_refused_instead_of_hanging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    """Issue 25.9: read refused FIFOs, grep did not: `grep path=pipe` waited for a writer forever."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    if engine == "python":
        monkeypatch.setattr(files.shutil, "which", lambda name: None)
    elif shutil.which("rg") is None:
        pytest.fail("ripgrep is not installed: apt-get install -y ripgrep (.ci/run installs it)")
    try:
        with pytest.raises(ToolError, match="FIFO"):
            await asyncio.wait_for(run(tmp_path, "grep", pattern="x", path="pipe"), 10)
    finally:
        with contextlib.suppress(OSError):  # release a search stuck opening the FIFO
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
