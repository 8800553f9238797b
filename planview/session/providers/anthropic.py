"""Anthropic Messages API with tools and streaming (the `anthropic` extra)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Mapping
from typing import Any

from planview.session.providers.base import (
    Done,
    ModelRequest,
    ProviderError,
    StreamEvent,
    TextChunk,
    ToolCallChunk,
    parse_arguments,
)

DEFAULT_MODEL = "claude-sonnet-4-5"
MAX_TOKENS = 8192


def _sdk() -> Any:
    try:
        import anthropic
    except ImportError:
        raise ProviderError(
            "the anthropic provider needs the `anthropic` package: pip install 'planview[anthropic]'"
        ) from None
    return anthropic


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


class AnthropicProvider:
    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        env: Mapping[str, str] | None = None,
        max_retries: int = 2,
        timeout: float = 120.0,
    ) -> None:
        sdk = _sdk()
        env = os.environ if env is None else env
        self.model = model or DEFAULT_MODEL
        self.key_env = api_key_env or "ANTHROPIC_API_KEY"
        key = env.get(self.key_env)
        if not key:
            raise ProviderError(
                f"no API key: set {self.key_env} (or name another variable in [provider] api_key_env)"
            )
        self.base_url = base_url or "https://api.anthropic.com"
        self.label = f"anthropic · {self.model}"
        self._sdk = sdk
        kwargs: dict[str, Any] = {"api_key": key, "max_retries": max_retries, "timeout": timeout}
        if base_url:
            kwargs["base_url"] = base_url
        self._client = sdk.AsyncAnthropic(**kwargs)

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        sdk = self._sdk
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
        blocks: dict[int, dict[str, str]] = {}
        stop = "end_turn"
        try:
            stream = await self._client.messages.create(**kwargs)
            async for event in stream:
                kind = getattr(event, "type", "")
                if kind == "content_block_start":
                    block = event.content_block
                    if getattr(block, "type", "") == "tool_use":
                        blocks[event.index] = {"id": block.id, "name": block.name, "json": ""}
                    elif getattr(block, "type", "") == "text" and getattr(block, "text", ""):
                        yield TextChunk(block.text)
                elif kind == "content_block_delta":
                    delta = event.delta
                    dtype = getattr(delta, "type", "")
                    if dtype == "text_delta" and delta.text:
                        yield TextChunk(delta.text)
                    elif dtype == "input_json_delta" and event.index in blocks:
                        blocks[event.index]["json"] += delta.partial_json or ""
                elif kind == "content_block_stop" and event.index in blocks:
                    slot = blocks.pop(event.index)
                    yield ToolCallChunk(parse_arguments(slot["id"], slot["name"], slot["json"]))
                elif kind == "message_delta":
                    stop = getattr(event.delta, "stop_reason", None) or stop
        except sdk.AuthenticationError as exc:
            raise ProviderError(f"Anthropic rejected the API key (401); check {self.key_env}") from exc
        except sdk.NotFoundError as exc:
            raise ProviderError(
                f"unknown model {self.model!r} (404); set [provider] model or --model"
            ) from exc
        except sdk.APITimeoutError as exc:
            raise ProviderError(f"{self.base_url} did not answer in time; retry") from exc
        except sdk.APIConnectionError as exc:
            raise ProviderError(
                f"cannot reach {self.base_url}; check the network or [provider] base_url"
            ) from exc
        except sdk.APIStatusError as exc:
            raise ProviderError(
                f"Anthropic answered {exc.status_code}: {getattr(exc, 'message', exc)}"
            ) from exc
        except sdk.AnthropicError as exc:
            raise ProviderError(f"anthropic provider failed: {exc}") from exc
        for index in sorted(blocks):  # a stream cut before content_block_stop
            slot = blocks[index]
            yield ToolCallChunk(parse_arguments(slot["id"], slot["name"], slot["json"]))
        yield Done(stop)
