"""Anthropic Messages API with tools and streaming (the `anthropic` extra)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from typing import Any

from planview.session.providers.base import Done, ModelRequest, StreamEvent, TextChunk
from planview.session.providers.common import (
    CallSlot,
    SdkProvider,
    finished_call,
    leftover_calls,
    new_slot,
)

DEFAULT_MODEL = "claude-sonnet-4-5"
DEFAULT_BASE_URL = "https://api.anthropic.com"
MAX_TOKENS = 8192


def to_anthropic_messages(messages: Any) -> list[dict[str, Any]]:
    """Provider-neutral messages -> Messages API turns (tool results are user-role blocks;
    consecutive same-role turns are merged because the API wants them alternating)."""
    out: list[dict[str, Any]] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for m in messages:
        role = m.get("role")
        if role == "assistant":
            blocks: list[dict[str, Any]] = []
            if m.get("content"):
                blocks.append({"type": "text", "text": m["content"]})
            for c in m.get("tool_calls") or ():
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": c["id"],
                        "name": c["name"],
                        "input": dict(c.get("arguments") or {}),
                    }
                )
            push("assistant", blocks or [{"type": "text", "text": "(no reply)"}])
        elif role == "tool":
            push(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": m["tool_call_id"],
                        "content": m.get("content") or "(empty)",
                    }
                ],
            )
        else:
            push("user", [{"type": "text", "text": m.get("content") or "(empty)"}])
    return out


class AnthropicProvider(SdkProvider):
    name = "anthropic"
    sdk_error = "AnthropicError"
    default_model = DEFAULT_MODEL
    default_key_env = "ANTHROPIC_API_KEY"

    def _base_url(self, base_url: str | None, env: Mapping[str, str]) -> str:
        return base_url or env.get("ANTHROPIC_BASE_URL") or DEFAULT_BASE_URL

    def _connect(self, sdk: Any, key: str, base_url: str | None, options: dict[str, Any]) -> Any:
        if base_url:
            options["base_url"] = base_url
        return sdk.AsyncAnthropic(api_key=key, **options)

    def _texts(self) -> Mapping[str, str]:
        return {
            "rejected_key": f"Anthropic rejected the API key (401); check {self.key_env}",
            "unknown_model": f"unknown model {self.model!r} (404); set [provider] model or --model",
            "timeout": f"{self.base_url} did not answer in time; retry",
            "unreachable": f"cannot reach {self.base_url}; check the network or [provider] base_url",
            "answered": "Anthropic",
        }

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": MAX_TOKENS,
            "messages": to_anthropic_messages(request.messages),
            "stream": True,
        }
        if request.system:
            kwargs["system"] = request.system
        if request.tools:
            kwargs["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
                for t in request.tools
            ]
        blocks: dict[int, CallSlot] = {}
        stop = "end_turn"
        with self.api_failures() as progress:
            stream = await self._client.messages.create(**kwargs)
            async for event in stream:
                progress.started = True
                kind = getattr(event, "type", "")
                if kind == "content_block_start":
                    block = event.content_block
                    if getattr(block, "type", "") == "tool_use":
                        blocks[event.index] = new_slot(block.id, block.name)
                    elif getattr(block, "type", "") == "text" and getattr(block, "text", ""):
                        yield TextChunk(block.text)
                elif kind == "content_block_delta":
                    delta = event.delta
                    dtype = getattr(delta, "type", "")
                    if dtype == "text_delta" and delta.text:
                        yield TextChunk(delta.text)
                    elif dtype == "input_json_delta" and event.index in blocks:
                        blocks[event.index]["arguments"] += delta.partial_json or ""
                elif kind == "content_block_stop" and event.index in blocks:
                    yield finished_call(event.index, blocks.pop(event.index))
                elif kind == "message_delta":
                    stop = getattr(event.delta, "stop_reason", None) or stop
        for call in leftover_calls(blocks):  # a stream cut before content_block_stop
            yield call
        yield Done(stop)
