"""The Gemini API as Gemini CLI calls it (through `GOOGLE_GEMINI_BASE_URL`):
`POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` streamed as SSE, `:generateContent` as JSON
(Gemini CLI's own checks, such as "who speaks next"), `:countTokens`.

A conversation request is a stream that offers tools; the rest get a short answer (JSON-shaped where
Gemini CLI asked for JSON).
"""

from __future__ import annotations

from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from typing import Any

from harness.model_server import ModelServer, write_json, write_sse
from harness.scenario import ToolResult, Turn

USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


def _parts(body: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for content in body.get("contents", []) or []:
        for part in content.get("parts", []) or []:
            if isinstance(part, dict):
                out.append((content.get("role", ""), part))
    return out


class GeminiServer(ModelServer):
    api = "gemini"

    def is_main(self, path: str, body: Any) -> bool:
        return ":streamGenerateContent" in path and bool(body.get("tools"))

    def results_of(self, body: Mapping[str, Any]) -> tuple[ToolResult, ...]:
        found = []
        for _, part in _parts(body):
            response = part.get("functionResponse")
            if isinstance(response, dict):
                payload = response.get("response") or {}
                text = payload.get("output") if isinstance(payload.get("output"), str) else None
                error = payload.get("error")
                if text is None:
                    text = str(error if error is not None else payload)
                found.append(
                    ToolResult(response.get("id", ""), response.get("name", ""), text, error is not None)
                )
        return tuple(found)

    def texts_of(self, body: Mapping[str, Any]) -> tuple[str, ...]:
        return tuple(
            p["text"] for role, p in _parts(body) if role == "user" and isinstance(p.get("text"), str)
        )

    def _candidate(self, turn: Turn) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        if turn.text:
            parts.append({"text": turn.text})
        for c in turn.calls:
            parts.append({"functionCall": {"name": c.name, "args": dict(c.input), "id": c.id}})
        return {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}

    def reply(self, handler: BaseHTTPRequestHandler, body: Any, turn: Turn) -> None:
        write_sse(
            handler,
            [
                (
                    None,
                    {
                        "candidates": [self._candidate(turn)],
                        "usageMetadata": USAGE,
                        "modelVersion": "scripted",
                    },
                )
            ],
        )

    def side_reply(self, handler: BaseHTTPRequestHandler, path: str, body: Any) -> None:
        if ":countTokens" in path:
            write_json(handler, {"totalTokens": 10})
            return
        wants_json = isinstance(body, dict) and "json" in str(
            (body.get("generationConfig") or {}).get("responseMimeType", "")
        )
        # Gemini CLI's next-speaker check asks for JSON; "user" means the model's turn is over.
        text = '{"reasoning": "scripted", "next_speaker": "user"}' if wants_json else "Scripted session"
        turn = Turn(text=text)
        if ":streamGenerateContent" in path:
            write_sse(handler, [(None, {"candidates": [self._candidate(turn)], "usageMetadata": USAGE})])
        elif ":generateContent" in path:
            write_json(handler, {"candidates": [self._candidate(turn)], "usageMetadata": USAGE})
        else:
            write_json(handler, {"error": {"code": 404, "message": f"no such route {path}"}}, 404)
