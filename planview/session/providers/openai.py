"""OpenAI-compatible chat completions with tool calling and streaming (the `openai` extra).

Works with OpenAI and with servers that speak the same protocol: Ollama, vLLM,
llama.cpp's server, LM Studio, OpenRouter (set `base_url`).
"""

from __future__ import annotations

import json
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

DEFAULT_MODEL = "gpt-4o"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Local servers (Ollama, llama.cpp, ...) need no key, but the SDK insists on a non-empty one.
NO_KEY = "planview-no-key"


def _sdk() -> Any:
    try:
        import openai
    except ImportError:
        raise ProviderError(
            "the openai provider needs the `openai` package: pip install 'planview[openai]'"
        ) from None
    return openai


def to_openai_messages(system: str, messages: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for m in messages:
        role = m.get("role")
        if role == "assistant":
            item: dict[str, Any] = {"role": "assistant", "content": m.get("content") or None}
            calls = m.get("tool_calls") or []
            if calls:
                item["tool_calls"] = [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments") or {})},
                    }
                    for c in calls
                ]
            elif item["content"] is None:
                item["content"] = ""
            out.append(item)
        elif role == "tool":
            out.append({"role": "tool", "tool_call_id": m["tool_call_id"], "content": m.get("content", "")})
        else:
            out.append({"role": "user", "content": m.get("content", "")})
    return out


def to_openai_tools(tools: Any) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": dict(t.parameters)},
        }
        for t in tools
    ]


class OpenAIProvider:
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
        self.base_url = base_url or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        self.key_env = api_key_env or "OPENAI_API_KEY"
        key = env.get(self.key_env)
        if not key:
            if "api.openai.com" in self.base_url:
                raise ProviderError(
                    f"no API key: set {self.key_env} (or point [provider] base_url at a local "
                    "OpenAI-compatible server, or name another variable in [provider] api_key_env)"
                )
            key = NO_KEY
        self.label = f"openai · {self.model}"
        self._sdk = sdk
        self._client = sdk.AsyncOpenAI(
            api_key=key, base_url=self.base_url, max_retries=max_retries, timeout=timeout
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        sdk = self._sdk
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(request.system, request.messages),
            "stream": True,
        }
        if request.tools:
            kwargs["tools"] = to_openai_tools(request.tools)
        calls: dict[int, dict[str, str]] = {}
        finish = "end_turn"
        try:
            stream = await self._client.chat.completions.create(**kwargs)
            async for chunk in stream:
                for choice in chunk.choices or ():
                    delta = choice.delta
                    if delta is not None:
                        if delta.content:
                            yield TextChunk(delta.content)
                        for part in delta.tool_calls or ():
                            index = _slot_index(calls, part.index, part.id)
                            slot = calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
                            if part.id:
                                slot["id"] = part.id
                            fn = part.function
                            if fn is not None:
                                if fn.name:
                                    slot["name"] += fn.name
                                if fn.arguments:
                                    slot["arguments"] += fn.arguments
                    if choice.finish_reason:
                        finish = choice.finish_reason
        except sdk.AuthenticationError as exc:
            raise ProviderError(
                f"{self.base_url} rejected the API key ({exc.status_code}); check {self.key_env}"
            ) from exc
        except sdk.NotFoundError as exc:
            raise ProviderError(
                f"{self.base_url} does not know model {self.model!r} (404); set [provider] model or --model"
            ) from exc
        except sdk.APITimeoutError as exc:
            raise ProviderError(
                f"{self.base_url} did not answer in time; check the server and retry"
            ) from exc
        except sdk.APIConnectionError as exc:
            raise ProviderError(
                f"cannot reach {self.base_url}; start the server or fix [provider] base_url / PLANVIEW_BASE_URL"
            ) from exc
        except sdk.APIStatusError as exc:
            raise ProviderError(f"{self.base_url} answered {exc.status_code}: {_brief(exc)}") from exc
        except sdk.OpenAIError as exc:
            raise ProviderError(f"openai provider failed: {exc}") from exc
        for index in sorted(calls):
            slot = calls[index]
            call_id = slot["id"] or f"call_{index}"
            yield ToolCallChunk(parse_arguments(call_id, slot["name"], slot["arguments"]))
        yield Done(finish)


def _slot_index(calls: dict[int, dict[str, str]], index: int | None, call_id: str | None) -> int:
    """Which call a delta continues. Servers that omit `index` (some local ones) are matched by id,
    and an id-less delta continues the newest call."""
    if index is not None:
        return index
    for i, slot in calls.items():
        if call_id and slot["id"] == call_id:
            return i
    if call_id or not calls:
        return max(calls, default=-1) + 1
    return max(calls)


def _brief(exc: Any) -> str:
    text = str(getattr(exc, "message", "") or exc)
    return text if len(text) <= 300 else text[:300] + "…"
