"""Targets a hostile program aims at: files outside, a HOME secret, listeners, a process outside."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from planview.sandbox import status as sandbox_status

SECRET = "top-secret-home-token"


def needs_landlock() -> None:
    found = sandbox_status.detect()
    if not found.enforcing:
        pytest.skip(f"this kernel offers no Landlock ({found.reason}); the sandbox cannot be tried here")


@dataclass
class Targets:
    """What the probe aims at, and what the tests saw arrive."""

    project: Path
    outside: Path
    home: Path
    config: dict
    received: list[str] = field(default_factory=list)
    victim: subprocess.Popen | None = None

    def happened(self) -> set[str]:
        """Every effect that reached the world outside the sandbox, judged from the outside."""
        seen = set(self.received)
        if Path(self.config["inside"]).exists() or Path(self.config["inside"] + ".d").exists():
            seen.add("write_inside")
        if Path(self.config["outside"]).exists():
            seen.add("write_outside")
        if os.stat(self.config["existing"]).st_mode & 0o777 == 0o777:
            seen.add("chmod_inside")
        if self.victim is not None and self.victim.poll() is not None:
            seen.add("signal_outside")
        return seen


def _serve_stream(server: socket.socket, label: str, received: list[str], stop: threading.Event) -> None:
    server.settimeout(0.2)
    while not stop.is_set():
        try:
            conn, _ = server.accept()
        except (TimeoutError, OSError):
            continue
        received.append(label)
        conn.close()


def _serve_udp(server: socket.socket, received: list[str], stop: threading.Event) -> None:
    server.settimeout(0.2)
    while not stop.is_set():
        try:
            server.recvfrom(100)
        except (TimeoutError, OSError):
            continue
        received.append("udp_send")


@pytest.fixture
def targets(tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Targets]:
    outside = tmp_path / "outside"
    outside.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / ".secret").write_text(SECRET)
    monkeypatch.setenv("HOME", str(home))
    existing = project / "README.md"
    if not existing.exists():
        existing.write_text("# readme\n")
    os.chmod(existing, 0o644)
    received: list[str] = []
    stop = threading.Event()
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    unix_path = str(outside / "daemon.sock")
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(unix_path)
    unix.listen()
    threads = [
        threading.Thread(target=_serve_stream, args=(tcp, "tcp_connect", received, stop), daemon=True),
        threading.Thread(target=_serve_stream, args=(unix, "unix_connect", received, stop), daemon=True),
        threading.Thread(target=_serve_udp, args=(udp, received, stop), daemon=True),
    ]
    for thread in threads:
        thread.start()
    victim = subprocess.Popen(["sleep", "60"])
    config = {
        "inside": str(project / "pwned.txt"),
        "outside": str(outside / "pwned.txt"),
        "home_secret": str(home / ".secret"),
        "existing": str(existing),
        "tcp_port": tcp.getsockname()[1],
        "udp_port": udp.getsockname()[1],
        "unix_path": unix_path,
        "victim_pid": victim.pid,
    }
    yield Targets(project, outside, home, config, received, victim)
    stop.set()
    for thread in threads:
        thread.join(2)
    for server in (tcp, udp, unix):
        server.close()
    victim.kill()
    victim.wait()
