"""Whole processes under faults: a closed stdout, no terminal, a read-only home, hostile files."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

PLAN = "# Tidy\n\n## Steps\n- [ ] one\n- [ ] two\n"
STDOUT_CLOSED = 141


def planview(
    root: Path,
    *args: str,
    stdout: int | None = subprocess.PIPE,
    stdin: int | None = subprocess.DEVNULL,
    env_extra: dict[str, str] | None = None,
    **kw,
) -> subprocess.CompletedProcess[bytes]:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
        **(env_extra or {}),
    }
    env.pop("PLANVIEW_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "planview", *args],
        cwd=root,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        stdin=stdin,
        timeout=60,
        **kw,
    )


@pytest.fixture
def approved(project: Path) -> Path:
    from planview.plan.store import PlanStore

    plan = PlanStore.for_cwd().write("Tidy", PLAN).path
    done = planview(project, "approve", plan.name, "--as", "Ada")
    assert done.returncode == 0, done.stderr
    return plan


def closed_pipe_run(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """Run with stdout a pipe whose reader is already gone: every write is EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return planview(root, *args, stdout=write_end)
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [
        ("status",),
        ("status", "--json"),
        ("audit",),
        ("audit", "--json"),
        ("plans",),
        ("steps", "{plan}"),
        ("--help",),
        ("--version",),
        ("approve", "--help"),
        ("approve", "{plan}", "--as", "Bo"),
    ],
)
def test_a_closed_stdout_ends_quietly(approved: Path, args: tuple[str, ...]) -> None:
    argv = [a.replace("{plan}", str(approved)) for a in args]
    done = closed_pipe_run(approved.parents[2], *argv)
    assert b"Traceback" not in done.stderr and b"BrokenPipe" not in done.stderr, done.stderr.decode()
    # argparse writes --help/--version itself and drops a failed write (status 0).
    expected = {0, STDOUT_CLOSED} if "--help" in args or "--version" in args else {STDOUT_CLOSED}
    assert done.returncode in expected, done.stderr.decode()


@pytest.mark.parametrize(
    "args",
    [
        ("status",),
        ("audit",),
        ("plans",),
        ("steps", "{plan}"),
        ("--version",),
        ("approve", "{plan}", "--as", "Bo"),
        ("gate", "check"),
    ],
)
def test_a_closed_fd_1_ends_quietly_like_a_closed_pipe(approved: Path, args: tuple[str, ...]) -> None:
    """`planview plans >&-`: Python sets sys.stdout to None; that is a reader gone, not a traceback."""
    argv = [a.replace("{plan}", str(approved)) for a in args]
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    env.pop("PLANVIEW_HOME", None)
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", sys.executable, "-m", "planview", *argv],
        cwd=approved.parents[2],
        env=env,
        input=b'{"name": "read", "arguments": {"path": "README.md"}}\n',
        stderr=subprocess.PIPE,
        timeout=60,
    )
    assert b"Traceback" not in done.stderr and b"Error" not in done.stderr, done.stderr.decode()
    expected = {0, STDOUT_CLOSED} if "--version" in args else {STDOUT_CLOSED}
    assert done.returncode in expected


def test_gate_check_with_a_closed_stdout(project: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = planview(
            project,
            "gate",
            "check",
            stdout=write_end,
            stdin=None,
            input=b'{"name": "read", "arguments": {"path": "README.md"}}\n',
        )
    finally:
        os.close(write_end)
    assert b"Traceback" not in done.stderr and done.returncode == STDOUT_CLOSED, done.stderr.decode()


def test_review_without_a_terminal_says_so_and_exits_2(approved: Path) -> None:
    start = time.monotonic()
    done = planview(approved.parents[2], "review", str(approved), "--json")
    assert time.monotonic() - start < 30
    assert done.returncode == 2
    assert b"needs a terminal" in done.stderr and b"Traceback" not in done.stderr
    assert done.stdout == b""


@pytest.mark.parametrize("args", [(), ("--plan",), ("demo",)])
def test_the_app_and_the_demo_without_a_terminal_say_so_and_exit_2(
    project: Path, tmp_path: Path, args: tuple[str, ...]
) -> None:
    """QA: `planview < /dev/null` and `planview demo < /dev/null` hung, writing escape codes."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    start = time.monotonic()
    done = planview(project, *args, env_extra={"TMPDIR": str(temp)})
    assert time.monotonic() - start < 30
    assert done.returncode == 2, done.stderr.decode()
    assert b"needs a terminal" in done.stderr and b'planview run "task"`' in done.stderr
    assert b"\x1b" not in done.stdout + done.stderr and b"Traceback" not in done.stderr
    assert list(temp.iterdir()) == []  # the demo copied no sample project for a run that cannot start


def test_a_fifo_in_place_of_the_ledger_is_an_error_within_a_second(approved: Path) -> None:
    root = approved.parents[2]
    ledger = root / ".planview" / "ledger.jsonl"
    ledger.unlink()
    os.mkfifo(ledger)
    for args in (("status", str(approved)), ("audit",), ("approve", str(approved))):
        start = time.monotonic()
        done = planview(root, *args)
        assert time.monotonic() - start < 10  # well under: the open never blocks
        assert done.returncode in (1, 2) and b"FIFO" in done.stderr + done.stdout
        assert b"Traceback" not in done.stderr


def _mount(target: Path, *options: str) -> None:
    done = subprocess.run(["mount", *options, str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({done.stderr.strip() or 'mount failed'}): needs root")


def test_read_only_home(approved: Path, tmp_path: Path) -> None:
    """Read-only commands work on a read-only home; writing ones say why they cannot."""
    root = approved.parents[2]
    home = root / ".planview"
    _mount(home, "--bind", str(home))
    try:
        _mount(home, "-o", "remount,bind,ro")
        for args in (
            ("status", str(approved)),
            ("status", "--json"),
            ("audit",),
            ("plans",),
            ("steps", str(approved)),
        ):
            done = planview(root, *args)
            assert done.returncode == 0, (args, done.stderr.decode())
            assert b"Traceback" not in done.stderr
        approved.with_name("other.md")  # a second plan cannot be written here; approve the same again
        done = planview(root, "approve", str(approved), "--as", "Bo")
        assert b"Traceback" not in done.stderr
        # Approved already, which reads without the lock a read-only home refuses (QA §8).
        assert done.returncode == 0 and b"already approved" in done.stderr, done.stderr.decode()
    finally:
        subprocess.run(["umount", str(home)], check=False)


def test_a_session_file_with_a_torn_last_line_resumes(project: Path, tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "Looking."}\n{"text": "Still here."}\n')
    first = planview(project, "run", "--script", str(script), "look around")
    assert first.returncode == 0, first.stderr
    (session,) = (project / ".planview" / "sessions").glob("*.jsonl")
    with session.open("ab") as fh:
        fh.write(b'{"type":"message","message":{"role":"assistant","content":"cut sh')  # SIGKILL/ENOSPC
    again = planview(project, "run", "--resume", "--script", str(script), "go on")
    assert again.returncode == 0, again.stderr.decode()
    notices = [line for line in again.stderr.decode().splitlines() if "left out" in line]
    assert len(notices) == 1 and "line" in notices[0]
    assert b"Traceback" not in again.stderr
    third = planview(project, "run", "--resume", "--script", str(script), "and again")
    assert third.returncode == 0 and b"left out" not in third.stderr  # the torn line was cut off


def test_size_caps_on_plans_read_by_the_cli(project: Path) -> None:
    big = project / "big.md"
    big.write_bytes(b"## Steps\n" + b"- [ ] step\n" * (3 * 1024 * 1024 // 11))  # over the 2 MiB read cap
    start = time.monotonic()
    done = planview(project, "steps", str(big))
    assert done.returncode == 2 and b"over the 2 MiB limit" in done.stderr
    assert time.monotonic() - start < 30
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True)
    (plans / "2026-01-01-0000-huge.md").write_bytes(big.read_bytes())
    listed = planview(project, "plans")
    assert listed.returncode == 0 and b"huge" in listed.stdout  # listed by name, not read whole
    approve = planview(project, "approve", "2026-01-01-0000-huge.md")
    assert approve.returncode == 2 and b"limit" in approve.stderr and b"Traceback" not in approve.stderr


def test_hostile_script_and_config_files(project: Path, tmp_path: Path) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"text": ' + "[" * 50_000 + "]" * 50_000 + "}\n")
    done = planview(project, "run", "--script", str(deep), "x")
    assert done.returncode == 2 and b"nested more than" in done.stderr and b"Traceback" not in done.stderr
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    done = planview(project, "run", "--script", str(fifo), "x")
    assert done.returncode == 2 and b"FIFO" in done.stderr
    config = project / ".planview" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n")
    done = planview(project, "run", "--script", str(tmp_path / "none.jsonl"), "x")
    assert done.returncode == 2 and b"nested more than" in done.stderr and b"Traceback" not in done.stderr
    config.unlink()
    os.mkfifo(config)
    done = planview(project, "run", "--script", str(tmp_path / "none.jsonl"), "x")
    assert done.returncode == 2 and b"FIFO" in done.stderr


def test_a_fifo_in_place_of_the_sealed_artifact_or_packet_never_blocks(approved: Path) -> None:
    root = approved.parents[2]
    artifacts = root / ".planview" / "artifacts"
    (sealed,) = artifacts.glob("*.md")
    (packet,) = artifacts.glob("*.packet.json")
    for victim in (packet, sealed):
        victim.chmod(0o644)
        victim.unlink()
        os.mkfifo(victim)
        approved.write_text(PLAN + "\nchanged\n")  # stale: status compares with the sealed text
        for args in (("status", str(approved)), ("audit",)):
            done = planview(root, *args)
            assert b"Traceback" not in done.stderr, done.stderr.decode()
            assert done.returncode in (1, 2)


def test_read_only_commands_create_nothing_in_a_fresh_repository(tmp_path: Path) -> None:
    """QA: `audit`, `status` and `plans` created .planview/.gitignore; docs/LEDGER.md: readers never write."""
    root = tmp_path / "fresh"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for args in (
        ("audit",),
        ("audit", "--json"),
        ("status",),
        ("status", "--json"),
        ("plans",),
        ("plans", "--json"),
    ):
        done = planview(root, *args)
        assert b"Traceback" not in done.stderr, (args, done.stderr.decode())
        assert done.returncode in (0, 1, 2), (args, done.stderr.decode())  # status: "no plans yet"
        assert sorted(p.name for p in root.iterdir()) == [".git"], args
