"""The Anthropic Messages API as Claude Code calls it: `POST /v1/messages` streamed as SSE (or JSON
when `stream` is false), `POST /v1/messages/count_tokens`, and a `HEAD /` probe.

A conversation request is one that offers tools (Claude Code's main loop and its subagents); side
requests (a session title, a quota probe) get a short text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any

from harness.model_server import ModelServer, write_json, write_sse
from harness.scenario import ToolResult, Turn

MODEL = "claude-sonnet-4-5"
USAGE = {
    "input_tokens": 10,
    "output_tokens": 5,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 0,
}


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


class AnthropicServer(ModelServer):
    api = "anthropic"

    def is_main(self, path: str, body: Any) -> bool:
        return path.split("?")[0] == "/v1/messages" and bool(body.get("tools"))

    def _names(self, body: Mapping[str, Any]) -> dict[str, str]:
        names: dict[str, str] = {}
        for message in body.get("messages", []):
            for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    names[block.get("id", "")] = block.get("name", "")
        return names

    def results_of(self, body: Mapping[str, Any]) -> tuple[ToolResult, ...]:
        names = self._names(body)
        found: list[ToolResult] = []
        for message in body.get("messages", []):
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    call_id = block.get("tool_use_id", "")
                    found.append(
                        ToolResult(
                            call_id,
                            names.get(call_id, ""),
                            _text_of(block.get("content")),
                            bool(block.get("is_error")),
                        )
                    )
        return tuple(found)

    def texts_of(self, body: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(
            _text_of(m.get("content"))
            for m in body.get("messages", [])
            if m.get("role") == "user" and _text_of(m.get("content"))
        )

    def _blocks(self, turn: Turn) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if turn.text:
            blocks.append({"type": "text", "text": turn.text})
        for c in turn.calls:
            blocks.append({"type": "tool_use", "id": "toolu_" + c.id, "name": c.name, "input": dict(c.input)})
        return blocks

    def reply(self, handler: BaseHTTPRequestHandler, body: Any, turn: Turn) -> None:
        self._answer(handler, body, self._blocks(turn), "tool_use" if turn.calls else "end_turn")

    def side_reply(self, handler: BaseHTTPRequestHandler, path: str, body: Any) -> None:
        if path.split("?")[0] == "/v1/messages/count_tokens":
            write_json(handler, {"input_tokens": 10})
        elif path.split("?")[0] == "/v1/messages" and isinstance(body, dict):
            self._answer(handler, body, [{"type": "text", "text": "Scripted session"}], "end_turn")
        else:
            write_json(handler, {"type": "error", "error": {"type": "not_found_error", "message": path}}, 404)

    def _answer(
        self, handler: BaseHTTPRequestHandler, body: Any, blocks: list[dict[str, Any]], stop: str
    ) -> None:
        message = {
            "id": "msg_scripted",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", MODEL),
            "content": blocks,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": USAGE,
        }
        if not body.get("stream"):
            write_json(handler, message)
            return
        events: list[tuple[str | None, Any]] = [
            (
                "message_start",
                {"type": "message_start", "message": {**message, "content": [], "stop_reason": None}},
            )
        ]
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": start},
                )
            )
            events.append(
                ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            )
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5},
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        write_sse(handler, events)
