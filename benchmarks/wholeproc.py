"""Whole-process timing for the benchmarks: wall time and peak RSS of one child process.

`timed(argv, ...)` runs the command with `stdin` and returns its wall time in milliseconds;
`peak_rss(argv, ...)` runs it once more under GNU time for its peak RSS. `compiled_env(tmp)` is the environment an installed user has:
bytecode written and read (PYTHONDONTWRITEBYTECODE removed), into a cache outside the repository
(PYTHONPYCACHEPREFIX), after `python -m compileall` of planview into that cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def compiled_env(tmp: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (os.environ) with bytecode on, cached under `tmp`, planview compiled into it."""
    env = dict(os.environ if base is None else base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "planview")],
        env=env,
        check=True,
        capture_output=True,
    )
    return env


def timed(
    argv: list[str], stdin: bytes = b"", cwd: Path | None = None, env: dict[str, str] | None = None
) -> float:
    """Wall ms of `argv` run to its exit (output discarded)."""
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
    return (time.perf_counter() - start) * 1000


def timed_cpu(
    argv: list[str], stdin: bytes = b"", cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """(wall ms, CPU ms) of `argv` run to its exit: CPU is the child's user + system time from wait4,
    which a loaded box inflates far less than wall time (it does not count waiting for a core)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=env
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(stdin)
        proc.stdin.close()
    except BrokenPipeError:
        pass
    _, _, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    proc.returncode = 0  # reaped by wait4: keep Popen from waiting for it again
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def peak_rss(
    argv: list[str], stdin: bytes = b"", cwd: Path | None = None, env: dict[str, str] | None = None
) -> float:
    """Peak RSS (MiB) of `argv`, measured by GNU time in a run of its own (nan without /usr/bin/time).

    Not from our own wait4: a child forked from this (large) benchmark process starts with the
    parent's high-water mark, which exec does not reset; GNU time's child is forked from a small process."""
    if not os.path.exists("/usr/bin/time"):
        return float("nan")
    with tempfile.NamedTemporaryFile("r") as out:
        subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", out.name, *argv],
            input=stdin,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
        )
        text = out.read().strip().splitlines()
    return int(text[-1]) / 1024 if text and text[-1].isdigit() else float("nan")


def measured(
    argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[str, float]:
    """(stdout, peak RSS MiB) of one run of `argv` under GNU time (RSS nan without it)."""
    if not os.path.exists("/usr/bin/time"):
        done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env, check=True)
        return done.stdout, float("nan")
    with tempfile.NamedTemporaryFile("r") as out:
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", out.name, *argv],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=env,
            check=True,
        )
        text = out.read().strip().splitlines()
    return done.stdout, (int(text[-1]) / 1024 if text and text[-1].isdigit() else float("nan"))


def load_average() -> str:
    """The 1/5/15-minute load averages, for the printed report."""
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"
