"""The one task a session runs its turns in: one turn at a time, cancelled cleanly, never swallowed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from planview.errors import PlanviewError


class SessionBusyError(PlanviewError):
    """A turn is already running."""


class TurnTask:
    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    async def run(self, turn: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run `turn()` to completion as the one cancellable task (the turn itself never raises)."""
        if self.busy:
            raise SessionBusyError("a turn is already running; wait for it to end or cancel it")
        self._task = asyncio.create_task(turn())
        await self._task
        caller = asyncio.current_task()
        if caller is not None and caller.cancelling():
            # The caller itself was cancelled (Ctrl+C, a closing UI): the turn ended cleanly above,
            # and the cancellation goes on to the caller instead of being swallowed.
            raise asyncio.CancelledError

    def cancel(self) -> None:
        """Stop the running turn; it ends as the runtime ends a cancelled turn (TurnEnded("cancelled"))."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
