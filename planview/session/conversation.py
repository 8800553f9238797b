"""The conversation as typed records: what was said, what each tool call was and how it ended.

A tool result keeps what the model saw *and* what happened: `refused` (the gate or the hash pin
refused it), `error` (it ran and failed) and the headline shown when it started, so a resumed
session replays a refused call as refused. Records are frozen; `to_json` / `from_json` are the
session file's shape (the wire keys plus the flags), `wire()` is what a provider is sent.

Hidden runtime messages (the plan-mode note, the evidence packet) are `UserMessage`s with a `kind`;
only the lifecycle decides which of them a request carries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any


@dataclass(frozen=True)
class UserMessage:
    """A user turn: the person's words, or a runtime note sent to the model as one."""

    content: str
    kind: str | None = None  # None: the person's words; else a hidden runtime note

    @cached_property
    def _wire(self) -> Mapping[str, Any]:
        return {"role": "user", "content": self.content}

    def wire(self) -> Mapping[str, Any]:
        return self._wire

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"role": "user", "content": self.content}
        if self.kind is not None:
            record["kind"] = self.kind
        return record


@dataclass(frozen=True)
class ToolCallRecord:
    """One tool call the model made, as it asked for it."""

    id: str
    name: str
    arguments: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": dict(self.arguments)}


@dataclass(frozen=True)
class AssistantMessage:
    """The model's reply: its text and the tool calls it made."""

    content: str
    tool_calls: tuple[ToolCallRecord, ...] = ()

    @cached_property
    def _wire(self) -> Mapping[str, Any]:
        return self.to_json()

    def wire(self) -> Mapping[str, Any]:
        return self._wire

    def to_json(self) -> dict[str, Any]:
        record: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            record["tool_calls"] = [c.to_json() for c in self.tool_calls]
        return record


@dataclass(frozen=True)
class ToolMessage:
    """One tool call's result: what the model saw, and whether the call was refused or failed."""

    tool_call_id: str
    name: str
    content: str  # exactly what the model saw
    headline: str = ""  # e.g. "write x.txt", as shown when the call started
    refused: bool = False  # the gate or the hash pin refused it; nothing ran
    error: bool = False  # it ran and failed (or could not run)

    @cached_property
    def _wire(self) -> Mapping[str, Any]:
        return {"role": "tool", "tool_call_id": self.tool_call_id, "name": self.name, "content": self.content}

    def wire(self) -> Mapping[str, Any]:
        return self._wire

    def to_json(self) -> dict[str, Any]:
        return {**self._wire, "headline": self.headline, "refused": self.refused, "error": self.error}


Message = UserMessage | AssistantMessage | ToolMessage


def from_json(message: Any) -> Message:
    """A record from the session file; ValueError names what is wrong with it.

    Files written before the flags existed carry none: a result that starts with "Refused" was a
    refusal (the only way the runtime wrote them), anything else is taken as it reads."""
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant", "tool"):
        raise ValueError("a message needs a role of user, assistant or tool")
    content = message.get("content")
    if not isinstance(content, str):
        raise ValueError("a message's content must be a string")
    role = message["role"]
    if role == "user":
        kind = message.get("kind")
        if kind is not None and not isinstance(kind, str):
            raise ValueError("a message's kind must be a string")
        return UserMessage(content, kind)
    if role == "assistant":
        calls = message.get("tool_calls")
        if calls is None:
            return AssistantMessage(content)
        if not isinstance(calls, list) or not all(
            isinstance(c, dict)
            and isinstance(c.get("id"), str)
            and isinstance(c.get("name"), str)
            and isinstance(c.get("arguments"), dict)
            for c in calls
        ):
            raise ValueError("tool_calls must be a list of {id, name, arguments} objects")
        return AssistantMessage(
            content, tuple(ToolCallRecord(c["id"], c["name"], c["arguments"]) for c in calls)
        )
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str):
        raise ValueError("a tool result needs a tool_call_id string")
    refused = message.get("refused")
    if refused is None:
        refused = content.lstrip().lower().startswith("refused")
    flags = (refused, message.get("error", bool(refused)))
    if not all(isinstance(flag, bool) for flag in flags):
        raise ValueError("a tool result's refused and error flags must be true or false")
    headline = message.get("headline", "")
    return ToolMessage(
        call_id,
        str(message.get("name", "")),
        content,
        headline if isinstance(headline, str) else "",
        *flags,
    )


def dangling_results(conversation: Sequence[Message], reason: str) -> list[tuple[int, ToolMessage]]:
    """(position, result) for every tool call without a result, so the next request is well-formed.

    A cancelled turn or a crash can leave an assistant message whose calls never ran; providers
    reject such a history. Each result goes right after the calls' other results; positions are
    in the list as it grows, so inserting them in order rebuilds it."""
    added: list[tuple[int, ToolMessage]] = []
    grown = 0
    i = 0
    while i < len(conversation):
        message = conversation[i]
        if isinstance(message, AssistantMessage) and message.tool_calls:
            j = i + 1
            answered = set()
            while j < len(conversation) and isinstance(conversation[j], ToolMessage):
                answered.add(conversation[j].tool_call_id)  # type: ignore[union-attr]
                j += 1
            at = j + grown
            for call in message.tool_calls:
                if call.id not in answered:
                    added.append((at, ToolMessage(call.id, call.name, reason, call.name, error=True)))
                    at += 1
                    grown += 1
            i = j
        else:
            i += 1
    return added


def tool_results_complete(conversation: Sequence[Message]) -> bool:
    """True when every assistant tool call has a matching tool result."""
    wanted = {c.id for m in conversation if isinstance(m, AssistantMessage) for c in m.tool_calls}
    got = {m.tool_call_id for m in conversation if isinstance(m, ToolMessage)}
    return wanted <= got
