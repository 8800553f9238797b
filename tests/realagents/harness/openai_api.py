"""OpenAI-compatible chat completions as opencode's `@ai-sdk/openai-compatible` provider calls them:
`POST /chat/completions` streamed as SSE chunks, tool calls as `tool_calls` deltas (the id and name
first, then the arguments in two pieces), `data: [DONE]` last; `GET /models` lists the one model.

A conversation request offers tools; side requests (opencode's session title) get a short text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any

from harness.model_server import ModelServer, write_json, write_sse
from harness.scenario import ToolResult, Turn

MODEL = "scripted"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


class OpenAIServer(ModelServer):
    api = "openai"

    def is_main(self, path: str, body: Any) -> bool:
        return path.split("?")[0].endswith("/chat/completions") and bool(body.get("tools"))

    def results_of(self, body: Mapping[str, Any]) -> tuple[ToolResult, ...]:
        names: dict[str, str] = {}
        found: list[ToolResult] = []
        for message in body.get("messages", []):
            for tc in message.get("tool_calls") or []:
                names[tc.get("id", "")] = (tc.get("function") or {}).get("name", "")
            if message.get("role") == "tool":
                call_id = message.get("tool_call_id", "")
                text = _text_of(message.get("content"))
                found.append(ToolResult(call_id, names.get(call_id, ""), text, "error" in text.lower()[:200]))
        return tuple(found)

    def texts_of(self, body: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(
            _text_of(m.get("content"))
            for m in body.get("messages", [])
            if m.get("role") == "user" and _text_of(m.get("content"))
        )

    def reply(self, handler: BaseHTTPRequestHandler, body: Any, turn: Turn) -> None:
        self._stream(handler, body, turn.text, turn)

    def side_reply(self, handler: BaseHTTPRequestHandler, path: str, body: Any) -> None:
        if path.split("?")[0].endswith("/models"):
            write_json(
                handler, {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "tests"}]}
            )
        elif isinstance(body, dict) and path.split("?")[0].endswith("/chat/completions"):
            self._stream(handler, body, "Scripted session", Turn(text="Scripted session"))
        else:
            write_json(handler, {"error": {"message": f"no such route {path}"}}, 404)

    def _stream(self, handler: BaseHTTPRequestHandler, body: Any, text: str, turn: Turn) -> None:
        base = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": body.get("model", MODEL),
        }

        def chunk(delta: dict[str, Any], finish: str | None = None) -> tuple[None, Any]:
            return (None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if turn.calls:
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": json.dumps(dict(c.input))},
                    }
                    for c in turn.calls
                ]
            finish = "tool_calls" if turn.calls else "stop"
            write_json(
                handler,
                {
                    **base,
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                },
            )
            return
        events = [chunk({"role": "assistant", "content": ""})]
        if text:
            events.append(chunk({"content": text}))
        for index, c in enumerate(turn.calls):
            arguments = json.dumps(dict(c.input))
            half = len(arguments) // 2
            events.append(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            events.append(
                chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[:half]}}]})
            )
            events.append(
                chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]})
            )
        events.append(chunk({}, "tool_calls" if turn.calls else "stop"))
        events.append(
            (
                None,
                {
                    **base,
                    "choices": [],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                },
            )
        )
        events.append((None, "[DONE]"))
        write_sse(handler, events)
