"""Stopping an agent's turn: ask it, withdraw what waits for the user, and force it if it hangs.

An ACP agent runs its own loop, so planview cannot simply cancel a task: it sends session/cancel
(after the permission answer that asked for the stop, so the agent reads the answer first), answers
`cancelled` to every permission question still waiting for the user when the user or a breach
stopped the turn, and gives the agent `CANCEL_GRACE` seconds to end the turn itself before the turn
task is cancelled and the agent process stopped. Why the turn stops (`why`) decides what the
session does next: "user", "breach", "review" (headless hand-off), "handoff" (a fresh agent session
carries out an approved plan), "replan" (the approved plan changed under the agent).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from acp.schema import DeniedOutcome, RequestPermissionResponse

CANCEL_GRACE = 5.0  # after session/cancel, how long the agent has to end the turn itself

CANCELLED = RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


class TurnCancel:
    def __init__(self, send_cancel: Callable[[], None], force_stop: Callable[[], bool]) -> None:
        """`send_cancel`: session/cancel to the agent; `force_stop`: cancel the running turn task,
        True when one was running."""
        self._send_cancel = send_cancel
        self._force_stop = force_stop
        self.requested = False
        self.why: str | None = None
        self.hard_stopped = False  # the agent ignored session/cancel and its turn was cancelled
        self._timer: asyncio.TimerHandle | None = None
        self._waiting: set[asyncio.Task[Any]] = set()  # permission answers awaiting the user

    def reset(self) -> None:
        self.requested, self.why = False, None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def request(self, why: str) -> None:
        """End the agent's turn. The user and a breach also withdraw every question still waiting for
        an answer; planview's own stops (review hand-off, fresh session) are sent after the answer."""
        if self.requested:
            return
        self.requested, self.why = True, why
        loop = asyncio.get_running_loop()
        if why in ("user", "breach"):
            for task in list(self._waiting):
                task.cancel()
        self._send_cancel()
        if self._timer is None:
            self._timer = loop.call_later(CANCEL_GRACE, self._expired)

    def _expired(self) -> None:
        self._timer = None
        if self._force_stop():
            self.hard_stopped = True

    async def waited(self, work: Any) -> RequestPermissionResponse:
        """Await an answer that depends on the user; a stop withdraws it and the agent gets `cancelled`."""
        task = asyncio.ensure_future(work)
        self._waiting.add(task)
        try:
            return await task
        except asyncio.CancelledError:
            if self.requested:
                return CANCELLED
            raise
        finally:
            self._waiting.discard(task)
