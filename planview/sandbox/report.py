"""The sandbox's part of `planview doctor`: what the kernel said, and a live check of the entry point."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

from planview.sandbox import status as sandbox_status
from planview.sandbox.launch import wrap


def live_check(timeout: float = 20.0) -> dict[str, object]:
    """Run the exec entry point's `--check` in a scratch project: what it really applied here."""
    with tempfile.TemporaryDirectory(prefix="planview-doctor-") as project:
        argv = wrap(["true"], project)
        argv.insert(argv.index("--"), "--check")
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=project)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return {"ok": False, "error": str(exc)}
    if done.returncode != 0:
        return {"ok": False, "error": (done.stderr or done.stdout).strip()[-500:]}
    try:
        return {"ok": True, **json.loads(done.stdout)}
    except ValueError:
        return {"ok": False, "error": f"unreadable answer: {done.stdout[:200]!r}"}


def report() -> tuple[str, tuple[str, ...], dict[str, object]]:
    """(title, lines, data) for the doctor."""
    found = sandbox_status.current()
    data: dict[str, object] = found.as_json()
    lines: list[str] = []
    if not found.enforcing:
        lines.append(f"plan mode is enforced by: {sandbox_status.LISTS_ONLY} ({found.reason})")
        lines.append(
            "planview's plan-mode bash runs read-only git only; set [sandbox] require = true in the "
            "config to refuse plan mode here instead"
        )
        return "plan mode", tuple(lines), data
    live = live_check()
    data["live_check"] = live
    if live.get("ok"):
        lines.append(f"plan mode is enforced by: {sandbox_status.LANDLOCK} ABI {live.get('landlock')}")
        lines.append(f"network: {live.get('network')}")
        lines.append(f"seccomp filter: {'installed' if live.get('seccomp') else 'not installed'}")
        notes = live.get("notes")
        lines += [f"note: {note}" for note in notes] if isinstance(notes, list) else []
    else:
        lines.append(
            f"the kernel offers Landlock ABI {found.abi}, but the sandbox's live check failed: "
            f"{live.get('error')}; plan-mode commands will fail until this is fixed"
        )
    lines.append("what stays open:")
    lines += [f"  - {item}" for item in found.still_open]
    lines.append(f"exec entry point: {os.path.realpath(wrap(['true'], '/')[3])}")
    return "plan mode", tuple(lines), data
