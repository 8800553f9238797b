"""TurnCancel: how an agent's turn is stopped, without an agent (the session tests drive a real one)."""

from __future__ import annotations

import asyncio

import pytest

from planview.agents import cancel
from planview.agents.cancel import CANCELLED, TurnCancel


@pytest.mark.parametrize(
    ("why", "withdrawn"),
    [("user", True), ("breach", True), ("review", False), ("handoff", False), ("replan", False)],
)
async def test_only_the_user_and_a_breach_withdraw_questions_waiting_for_the_person(
    why: str, withdrawn: bool
) -> None:
    sent: list[str] = []
    stop = TurnCancel(lambda: sent.append(why), lambda: True)
    answer = asyncio.Event()

    async def person() -> str:
        await answer.wait()
        return "their answer"

    pending = asyncio.ensure_future(stop.waited(person()))
    await asyncio.sleep(0)
    stop.request(why)
    stop.request("user")  # a second stop changes nothing: one session/cancel, the first reason
    await asyncio.sleep(0)
    assert sent == [why] and stop.why == why
    if withdrawn:
        assert await pending is CANCELLED
    else:  # planview's own stops go out after the answer the agent is waiting for
        assert not pending.done()
        answer.set()
        assert await pending == "their answer"
    stop.reset()


async def test_an_agent_that_ignores_the_cancel_is_stopped_after_the_grace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cancel, "CANCEL_GRACE", 0.01)
    forced: list[bool] = []
    stop = TurnCancel(lambda: None, lambda: forced.append(True) or True)
    stop.request("user")
    await asyncio.sleep(0.05)
    assert forced == [True] and stop.hard_stopped

    forced.clear()
    calm = TurnCancel(lambda: None, lambda: forced.append(True) or True)
    calm.request("user")
    calm.reset()  # the agent ended the turn itself within the grace
    await asyncio.sleep(0.05)
    assert forced == [] and not calm.hard_stopped and not calm.requested


async def test_a_question_the_person_is_answering_is_not_swallowed_without_a_stop() -> None:
    stop = TurnCancel(lambda: None, lambda: True)

    async def person() -> str:
        await asyncio.sleep(10)
        return "never"

    pending = asyncio.ensure_future(stop.waited(person()))
    await asyncio.sleep(0)
    pending.cancel()  # the turn task itself is cancelled (not a stop request): that propagates
    with pytest.raises(asyncio.CancelledError):
        await pending
