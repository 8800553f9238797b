"""Running Claude Code for a test: headless (`claude -p`) or interactive in a tmux server of the test's
own (a private socket, so a review window planview opens is a window of that server and inside the
test's network namespace), with planview's hooks installed in the project.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.install import bin_dir

PLANVIEW = Path(sys.executable).with_name("planview")


def install_hooks(project: Path, env: Mapping[str, str]) -> None:
    """`planview claude install --local` in the project, exactly as a user runs it."""
    done = subprocess.run(
        [str(PLANVIEW), "claude", "install", "--local"],
        cwd=project,
        env=dict(env),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def planview(
    project: Path, env: Mapping[str, str], *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(PLANVIEW), *args], cwd=project, env=dict(env), capture_output=True, text=True, timeout=120
    )
    if check:
        assert done.returncode == 0, f"planview {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def headless(project: Path, env: Mapping[str, str], prompt: str, *args: str, timeout: float = 180) -> dict:
    """`claude -p PROMPT --output-format json ARGS`; its JSON result."""
    command = [str(bin_dir() / "claude"), "-p", prompt, "--output-format", "json", *args]
    done = subprocess.run(
        command, cwd=project, env=dict(env), capture_output=True, text=True, timeout=timeout
    )
    assert done.stdout.strip(), f"claude -p printed nothing (exit {done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


@dataclass(frozen=True)
class Tmux:
    """A tmux server of the test's own (its socket under the test's HOME)."""

    socket: Path
    env: Mapping[str, str]

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args], env=dict(self.env), capture_output=True, text=True
        )
        if check:
            assert done.returncode == 0, f"tmux {' '.join(args)}: {done.stderr}"
        return done

    def start(self, project: Path, argv: Sequence[str], name: str = "claude") -> None:
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        self.run(
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            "160",
            "-y",
            "50",
            "-c",
            str(project),
            f"env {exports} {shlex.join(argv)}; sleep 600",
        )

    def windows(self) -> list[str]:
        return self.run("list-windows", "-a", "-F", "#{window_name}", check=False).stdout.splitlines()

    def capture(self, target: str) -> str:
        return self.run("capture-pane", "-p", "-t", target, check=False).stdout

    def send(self, target: str, *keys: str) -> None:
        self.run("send-keys", "-t", target, *keys)

    def wait_window(self, name: str, timeout: float = 60) -> str:
        """The target of the first window whose name contains `name`, once it exists."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rows = self.run(
                "list-windows", "-a", "-F", "#{session_name}:#{window_index} #{window_name}", check=False
            )
            for row in rows.stdout.splitlines():
                target, _, title = row.partition(" ")
                if name in title:
                    return target
            time.sleep(0.1)
        raise AssertionError(f"no tmux window named {name!r} appeared; windows: {self.windows()}")

    def wait_text(self, target: str, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture(target)
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared in {target}; it shows:\n{screen}")

    def kill(self) -> None:
        self.run("kill-server", check=False)


def interactive(project: Path, env: Mapping[str, str], prompt: str, *args: str) -> Tmux:
    """Claude Code's interactive UI in the test's own tmux server, started with PROMPT."""
    home = Path(env["HOME"])
    tmux = Tmux(home / "tmux.sock", {**env, "TMUX_TMPDIR": str(home)})
    tmux.start(project, [str(bin_dir() / "claude"), *args, prompt])
    return tmux
