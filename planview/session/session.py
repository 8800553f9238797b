"""Session: planview's own agent - the model loop over a provider, its tools and its subagents.

A turn streams the model's answer from the provider, runs every tool call it asks for through the
gate, the pin and the tool (session/dispatch.py), records each result, and asks again until the
model stops calling tools, a plan goes to review, or the request cap stops a runaway loop. A
refused call returns the reason to the model as the tool result, never an exception.

Everything else a session is - mode, approval, the pin, todos, the session file, events - is
`SessionBase` (session/base.py), shared with the ACP agent's session, whose agent runs its own loop
instead of this one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from planview.errors import PlanviewError
from planview.session import dispatch, lifecycle
from planview.session.base import SessionBase
from planview.session.conversation import (
    AssistantMessage,
    ToolCallRecord,
    ToolMessage,
    UserMessage,
    dangling_results,
)
from planview.session.events import Event, TextDelta
from planview.session.providers.base import ModelRequest, ModelToolCall, Provider, TextChunk, ToolCallChunk
from planview.session.tools.registry import DEFAULT_TOOLS, ToolSet

DEFAULT_MAX_REQUESTS = 200  # model requests in one user turn before the session stops a runaway loop


class Session(SessionBase):
    provider: Provider

    def __init__(self, *, max_model_requests: int = DEFAULT_MAX_REQUESTS, **kwargs: Any) -> None:
        """`SessionBase`'s arguments (project_root, provider, ui, on_event, plan_mode, session_id,
        store, approvals, allow_read_only_hint, persist, mcp_servers), and the request cap."""
        self.max_model_requests = max_model_requests
        # What this session can run and what it is told: a subagent's child narrows these.
        self.tools: ToolSet = DEFAULT_TOOLS
        self.system_prompt = lifecycle.SYSTEM_PROMPT
        self.plan_notes = True  # the hidden plan-mode note (a read-only child is not planning)
        self._request_messages = lifecycle.RequestMessages()  # built as the conversation grows
        super().__init__(**kwargs)

    # ------------------------------------------------------------------ MCP servers, subagents

    async def start_servers(self) -> None:
        """Start the configured MCP servers (each failure is one McpNotice; the session goes on)."""
        await self.mcp.start()

    def tool_schemas(self) -> tuple[Any, ...]:
        """What the model is offered now: this session's tools, then the MCP servers' tools."""
        from planview.session.mcp.offer import mcp_schemas

        return self.tools.schemas(self.mode) + mcp_schemas(self.mcp.tools(), self.mode, self.policy)

    def spawn_child(
        self,
        call_id: str,
        *,
        read_only: bool,
        plan_tools: tuple[str, ...],
        execute_tools: tuple[str, ...],
        system_prompt: str,
        max_model_requests: int,
        watch: Callable[[Event], None],
    ) -> Session:
        """A subagent: its own conversation and tool set; its events go to `watch` and, tagged with
        `call_id`, to this session's listener. A writing child shares this session's MCP servers and
        exact pin (each write checks the same approval); a read-only child plans, pinned to nothing."""
        from planview.session.events import SubagentEvent

        def forward(event: Event) -> None:
            watch(event)
            self._emit(SubagentEvent(call_id, event))

        make = getattr(self.provider, "child", None)  # a scripted provider scripts its children
        child = Session(
            project_root=self.project_root,
            provider=make(call_id) if callable(make) else self.provider,
            ui=None,  # a child never asks the user anything
            on_event=forward,
            plan_mode=read_only,
            store=self.store,
            approvals=self.approvals,
            allow_read_only_hint=self.policy.allow_read_only_hint,
            persist=False,
            max_model_requests=max_model_requests,
        )
        child.plan_notes = False
        child.system_prompt = system_prompt
        child.tools = ToolSet(plan=plan_tools, execute=execute_tools)
        if not read_only:
            child.mcp = self.mcp
            child._modes.adopt(self._modes)
        return child

    def final_answer(self) -> str:
        """The last thing the assistant said (a subagent's answer)."""
        for message in reversed(self.conversation):
            if isinstance(message, AssistantMessage):
                return message.content
        return ""

    # ------------------------------------------------------------------ the turn

    async def _turn(self, text: str) -> None:
        parts: list[str] = []
        modes = self._modes
        try:
            await self.mcp.start()  # no-op once started (or with no servers); the UI may have begun it
            if self.mode == "plan":
                modes.note_pending = True
            self._append(UserMessage(text))
            for _ in range(self.max_model_requests):
                # Checked before every request, not only before mutating calls: the evidence packet
                # of a plan that changed on disk must not go out as the approved scope.
                why = self.revoke_if_changed() if self.mode == "execute" else None
                if why is None and modes.note_pending:
                    why = modes.plan_changed()
                if modes.note_pending and self.mode == "plan" and self.plan_notes:
                    rel = self.relative(self.plan_path) if self.plan_path else None
                    self._append(lifecycle.note_message(rel, why))
                modes.note_pending = False
                parts = []
                calls = await self._stream(parts)
                records = tuple(ToolCallRecord(c.id, c.name, dict(c.arguments)) for c in calls)
                parts_text, parts = "".join(parts), []
                self._append(AssistantMessage(parts_text, records))
                if not calls:
                    self._end("done")
                    return
                stop = await self._run_calls(calls)
                if stop is not None:
                    self._end("review", stop)
                    return
            self._fail(
                f"stopped after {self.max_model_requests} model requests in one turn; send a message to go on"
            )
        except asyncio.CancelledError:
            if parts:
                self._append(AssistantMessage("".join(parts) + " [cancelled]"))
            self._close_dangling("cancelled by the user")
            self._end("cancelled")
        except PlanviewError as exc:
            self._close_dangling(f"not run: {exc}")
            self._fail(str(exc))
        except Exception as exc:  # a provider bug must end the turn with a message, not kill the UI
            self._close_dangling("not run: the turn failed")
            self._fail(f"the turn failed unexpectedly ({type(exc).__name__}: {exc}); send a message to retry")

    def _close_dangling(self, reason: str) -> None:
        for at, result in dangling_results(self.conversation, reason):
            self.conversation.insert(at, result)
            if self._log is not None:  # a cancelled turn's calls are the newest, so these land at the end
                self._log.message(result)

    async def _stream(self, parts: list[str]) -> list[ModelToolCall]:
        request = ModelRequest(
            self.system_prompt,
            self._request_messages.build(self.conversation, self.mode, self._modes.packet),
            self.tool_schemas(),
        )
        calls: list[ModelToolCall] = []
        async with contextlib.aclosing(self.provider.stream(request)) as stream:
            async for event in stream:
                if isinstance(event, TextChunk):
                    if event.text:
                        parts.append(event.text)
                        self._emit(TextDelta(event.text))
                elif isinstance(event, ToolCallChunk):
                    calls.append(event.call)
        return calls

    async def run_tool_call(self, call: ModelToolCall) -> dispatch.CallOutcome:
        """One call through the gate, the pin and the tool, as a turn runs it (not recorded)."""
        return await dispatch.run_call(
            call,
            host=self,
            tools=self.tools,
            mcp=self.mcp,
            policy=self.policy,
            emit=self._emit,
            check_pin=self.check_pin,
            plan_changed=self._modes.plan_changed,
        )

    async def _run_calls(self, calls: Sequence[ModelToolCall]) -> str | None:
        from planview.session.tools.registry import headline

        stop: str | None = None
        for call in calls:
            if stop is not None:
                line = headline(call.name, dict(call.arguments))
                self._append(
                    ToolMessage(
                        call.id, call.name, "not run: the turn stopped for the plan review", line, error=True
                    )
                )
                continue
            outcome = await self.run_tool_call(call)
            result = outcome.result
            self._append(
                ToolMessage(call.id, call.name, result.text, outcome.headline, outcome.refused, result.error)
            )
            if result.stop_turn:
                stop = result.text
        return stop
