"""The one small interface every model provider implements.

A provider turns a request (system prompt, provider-neutral messages, tool schemas)
into an async stream of events: text deltas, complete tool calls, then one `Done`.

Messages are plain dicts (they are persisted as JSON):
  {"role": "user", "content": str}
  {"role": "assistant", "content": str, "tool_calls": [{"id", "name", "arguments": {...}}]}
  {"role": "tool", "tool_call_id": str, "name": str, "content": str}
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from planview.errors import PlanviewError

Message = Mapping[str, Any]


class ProviderError(PlanviewError):
    """The model could not be reached or used; the message names the fix."""


@dataclass(frozen=True)
class ToolSchema:
    """A tool as the model is offered it: name, description and the JSON schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]  # JSON schema of the arguments object


@dataclass(frozen=True)
class ModelRequest:
    """What one model call sends: the system prompt, the conversation and the tools."""

    system: str
    messages: Sequence[Message]  # lifecycle.MessagesView: shares the session's wire list
    tools: tuple[ToolSchema, ...] = ()


@dataclass(frozen=True)
class ModelToolCall:
    """One complete tool call from the model's reply (refused unrun when `invalid` is set)."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    # Set when the model's arguments were not a JSON object; the call is refused with this text.
    invalid: str | None = None


@dataclass(frozen=True)
class TextChunk:
    """A piece of the model's reply text, in stream order."""

    text: str


@dataclass(frozen=True)
class ToolCallChunk:
    """A tool call the model finished streaming."""

    call: ModelToolCall


@dataclass(frozen=True)
class Done:
    """The model's reply is complete; the stream's last event."""

    stop_reason: str = "end_turn"


StreamEvent = TextChunk | ToolCallChunk | Done


class Provider(Protocol):
    label: str  # e.g. "scripted", "openai · gpt-4o"

    def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]: ...


def parse_arguments(call_id: str, name: str, raw: str | None) -> ModelToolCall:
    """Decode a tool call's JSON arguments; a bad payload becomes an `invalid` call, never an exception."""
    text = (raw or "").strip()
    if not text:
        return ModelToolCall(call_id, name, {})
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return ModelToolCall(call_id, name, {}, invalid=f"arguments are not valid JSON ({exc.msg})")
    if not isinstance(value, dict):
        return ModelToolCall(call_id, name, {}, invalid="arguments must be a JSON object")
    return ModelToolCall(call_id, name, value)
