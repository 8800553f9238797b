"""The review draws at the real terminal's size whatever its stdout is, and `r` + a typed note sends
exactly that note — checked in a real pty and in real tmux windows (`planview review PLAN --json > out`,
the way the Claude hook's tmux window runs it)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

PROBE = "from planview.tui.tty_size import terminal_size; print(*terminal_size())"


def _controlling_tty() -> None:  # (runs in the child) the pty becomes its controlling terminal
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def test_the_size_comes_from_the_terminal_when_stdout_is_a_file(tmp_path: Path) -> None:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 37, 133, 0, 0))
    out = tmp_path / "out.txt"
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    with out.open("w") as stdout:
        subprocess.run(
            [sys.executable, "-c", PROBE],
            stdin=slave,
            stdout=stdout,
            stderr=slave,
            preexec_fn=_controlling_tty,
            env=env,
            cwd=REPO,
            check=True,
            timeout=60,
        )
    os.close(slave)
    os.close(master)
    assert out.read_text().split() == ["133", "37"]
    # What Textual's driver asked before (shutil reads stdout): the 80x24 fallback.
    with out.open("w") as stdout:
        subprocess.run(
            [sys.executable, "-c", "import shutil; print(*shutil.get_terminal_size())"],
            stdout=stdout,
            env=env,
            check=True,
            timeout=60,
        )
    assert out.read_text().split() == ["80", "24"]


needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    """A private tmux server (its own socket) running one window."""

    def __init__(self, tmp_path: Path) -> None:
        self.socket = str(tmp_path / "tmux.sock")

    def run(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-S", self.socket, *args], capture_output=True, text=True, check=True, timeout=30
        ).stdout

    def capture(self) -> list[str]:
        return self.run("capture-pane", "-p", "-t", "w").split("\n")

    def wait_for(self, text: str, timeout: float = 30.0) -> list[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = self.capture()
            if any(text in line for line in lines):
                return lines
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared:\n" + "\n".join(self.capture()))

    def close(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=30)


def _start(tmux: Tmux, project: Path, plan: Path, out: Path, width: int, height: int) -> None:
    command = f"cd {project} && {sys.executable} -m planview review {plan} --json > {out}; sleep 30"
    env_args = ["-e", f"PLANVIEW_HOME={project / '.planview'}", "-e", "TEXTUAL_ANIMATIONS=none"]
    tmux.run("new-session", "-d", "-s", "w", "-x", str(width), "-y", str(height), *env_args, command)


@needs_tmux
@pytest.mark.parametrize(("width", "height"), [(100, 30), (160, 40)])
def test_review_with_stdout_redirected_draws_at_the_window_size(
    project: Path, tmp_path: Path, width: int, height: int
) -> None:
    plan = REPO / "plans" / "2026-01-15-0900-billing-platform-migration.md"
    out = tmp_path / "out.json"
    tmux = Tmux(tmp_path)
    try:
        _start(tmux, project, plan, out, width, height)
        tmux.wait_for("Esc keep")
        time.sleep(1.0)  # the redraw that used to come at 80x24 would have come by now
        lines = tmux.capture()
        assert len(lines) >= height and "Esc keep" in lines[height - 1], lines  # hints on the last row
        assert lines[0].strip().startswith("Billing platform migration"), lines[0]
        # The scroll row spans the window: its line range is drawn right-aligned at the right edge.
        scroll_row = lines[height - 2].rstrip()
        assert scroll_row.lstrip().startswith("§ ") and len(scroll_row) >= width - 2, scroll_row
    finally:
        tmux.close()


@needs_tmux
def test_r_then_a_note_typed_at_once_sends_exactly_that_note(project: Path, tmp_path: Path) -> None:
    text = (REPO / "plans" / "2026-01-15-0900-billing-platform-migration.md").read_text(encoding="utf-8")
    plan = tmp_path / "long.md"
    plan.write_text(text + "\n" + "\n".join(f"- [ ] extra step {i}" for i in range(120)) + "\n")
    out = tmp_path / "out.json"
    tmux = Tmux(tmp_path)
    note = "keep the old API for one release, then drop it"
    try:
        _start(tmux, project, plan, out, 100, 30)
        tmux.wait_for("Esc keep")
        tmux.run("send-keys", "-t", "w", "-l", "r" + note)  # one write: r and the note together
        # Every letter typed with `r` must reach the editor (none moves the view). Enter is pressed once
        # the note shows, as a person would: an Enter written in the same instant as the note's end was
        # seen (2 of ~8 full-suite runs) to arrive before its last letters — an open race, noted in issue 26.
        tmux.wait_for(note[-12:])
        tmux.run("send-keys", "-t", "w", "Enter")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not (out.exists() and out.read_text().strip()):
            time.sleep(0.1)
    finally:
        tmux.close()
    data = json.loads(out.read_text())
    assert data["decision"] == "refine" and data["feedback"] == note, data
