"""OpenAI-compatible chat completions with tool calling and streaming (the `openai` extra).

Works with OpenAI and with servers that speak the same protocol: Ollama, vLLM,
llama.cpp's server, LM Studio, OpenRouter (set `base_url`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping
from typing import Any

from planview.session.providers.base import Done, ModelRequest, ProviderError, StreamEvent, TextChunk
from planview.session.providers.common import CallSlot, SdkProvider, leftover_calls, new_slot

DEFAULT_MODEL = "gpt-4o"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
# Local servers (Ollama, llama.cpp, ...) need no key, but the SDK insists on a non-empty one.
NO_KEY = "planview-no-key"


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


class OpenAIProvider(SdkProvider):
    name = "openai"
    sdk_error = "OpenAIError"
    default_model = DEFAULT_MODEL
    default_key_env = "OPENAI_API_KEY"
    shorten_status = True  # local servers may answer with a whole HTML page

    def _base_url(self, base_url: str | None, env: Mapping[str, str]) -> str:
        return base_url or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL

    def _missing_key(self) -> str:
        if "api.openai.com" in self.base_url:
            raise ProviderError(
                f"no API key: set {self.key_env} (or point [provider] base_url at a local "
                "OpenAI-compatible server, or name another variable in [provider] api_key_env)"
            )
        return NO_KEY

    def _connect(self, sdk: Any, key: str, base_url: str | None, options: dict[str, Any]) -> Any:
        return sdk.AsyncOpenAI(api_key=key, base_url=self.base_url, **options)

    def _texts(self) -> Mapping[str, str]:
        url = self.base_url
        return {
            "rejected_key": f"{url} rejected the API key (401); check {self.key_env}",
            "unknown_model": f"{url} does not know model {self.model!r} (404); set [provider] model or --model",
            "timeout": f"{url} did not answer in time; check the server and retry",
            "unreachable": f"cannot reach {url}; start the server or fix [provider] base_url / PLANVIEW_BASE_URL",
            "answered": url,
        }

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(request.system, request.messages),
            "stream": True,
        }
        if request.tools:
            kwargs["tools"] = to_openai_tools(request.tools)
        calls: dict[int, CallSlot] = {}
        finish = "end_turn"
        with self.api_failures() as progress:
            stream = await self._client.chat.completions.create(**kwargs)
            async for chunk in stream:
                progress.started = True
                for choice in chunk.choices or ():
                    delta = choice.delta
                    if delta is not None:
                        if delta.content:
                            yield TextChunk(delta.content)
                        for part in delta.tool_calls or ():
                            slot = calls.setdefault(_slot_index(calls, part.index, part.id), new_slot())
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
        for call in leftover_calls(calls):
            yield call
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
