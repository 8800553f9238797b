"""The processes a process started, from /proc (Linux; elsewhere nothing is found).

An agent's launcher (a node wrapper around a native binary) and a terminal's command can leave children
running after they exit; planview stops them by pid, checking the start time first so a pid the
system has since given to another process is left alone.
"""

from __future__ import annotations

import os
from pathlib import Path


def start_time(pid: int) -> str | None:
    """Field 22 of /proc/<pid>/stat (start time in clock ticks), None when gone or not on Linux."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def descendants(root: int) -> list[tuple[int, str]]:
    """(pid, start time) of every process below `root`, from /proc (empty where there is no /proc)."""
    parents: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1].isdigit():
            parents.setdefault(int(fields[1]), []).append(int(entry))
    found: list[tuple[int, str]] = []
    stack = [root]
    while stack:
        for child in parents.get(stack.pop(), []):
            started = start_time(child)
            if started is not None:
                found.append((child, started))
                stack.append(child)
    return found
