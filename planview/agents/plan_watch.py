"""Watch the approved plan while an agent executes: a change to its text must stop the agent at once.

Agents that never ask permission (a build agent that writes and runs with its own tools) give
planview no request at which to check the pin, so while an approved plan is carried out its folder
is watched and every change to the plan file calls `on_change` (the session checks the pin, and on
a revocation stops the agent and restarts it sandboxed). The folder, not the file: watching a file
dies after its first atomic save (temp + rename), which arrives as `added` in the folder
(DESIGN.md's watchfiles note). Debounce is short: the whole stop must land within a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

DEBOUNCE_MS = 30
STEP_MS = 10


class PlanWatch:
    """Calls `on_change()` each time `plan` is written, replaced or removed, while it runs."""

    def __init__(self, plan: Path, on_change: Callable[[], None]) -> None:
        self.plan = Path(os.path.realpath(plan))
        self.on_change = on_change
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()

    async def start(self) -> None:
        if self._task is not None:
            return
        self._stop.clear()
        self._ready.clear()
        self._task = asyncio.get_running_loop().create_task(self._run())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._ready.wait(), 2.0)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        self._stop.set()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

    async def _run(self) -> None:
        from watchfiles import awatch

        folder = str(self.plan.parent)
        watcher = awatch(
            folder,
            recursive=False,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            stop_event=self._stop,
            watch_filter=None,
            yield_on_timeout=True,
            rust_timeout=100,
        )
        async for changes in watcher:
            self._ready.set()  # the first timeout tick: the watch is in place
            if any(os.path.realpath(path) == str(self.plan) for _, path in changes):
                self.on_change()
