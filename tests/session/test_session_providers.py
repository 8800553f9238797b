"""Providers: the scripted format, the factory's messages, and the OpenAI / Anthropic providers
against a loopback HTTP server speaking their streaming protocols (no network)."""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from planview.config import Config, ProviderConfig
from planview.session.events import ToolFinished, TurnEnded
from planview.session.providers.base import (
    Done,
    ModelRequest,
    ProviderError,
    TextChunk,
    ToolCallChunk,
    ToolSchema,
)
from planview.session.providers.factory import make_provider
from planview.session.providers.scripted import ScriptedProvider, ScriptError, parse_script
from planview.session.session import Session

# ------------------------------------------------------------------------------------ scripted


async def test_scripted_turns_in_order_then_the_model_ends_its_turn() -> None:
    provider = ScriptedProvider.from_text(
        '{"text": "hi", "tool_calls": [{"name": "read", "arguments": {"path": "a"}}]}\n\n// a comment\n{}\n'
    )
    request = ModelRequest("sys", ())
    first = [e async for e in provider.stream(request)]
    assert first[0] == TextChunk("hi")
    assert (
        isinstance(first[1], ToolCallChunk)
        and first[1].call.name == "read"
        and first[1].call.arguments == {"path": "a"}
    )
    assert first[2] == Done("tool_use")
    assert [e async for e in provider.stream(request)] == [Done("end_turn")]
    assert [e async for e in provider.stream(request)] == [Done("script_exhausted")]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("{nope", "not valid JSON"),
        ("[1]", "expected a JSON object"),
        ('{"txt": "x"}', "unknown key(s) txt"),
        ('{"tool_calls": [{"arguments": {}}]}', 'needs a "name"'),
        ('{"tool_calls": [{"name": "read", "arguments": []}]}', "must be an object"),
        ('{"delay": -1}', "delay"),
    ],
)
def test_script_errors_name_the_line(line: str, problem: str) -> None:
    with pytest.raises(ScriptError) as info:
        parse_script('{"text": "ok"}\n' + line, "demo.jsonl")
    assert "demo.jsonl: line 2" in str(info.value) and problem in str(info.value)


def test_factory_messages(tmp_path: Path) -> None:
    with pytest.raises(ProviderError, match="--script FILE"):
        make_provider(config=Config())
    with pytest.raises(ProviderError, match="script not found"):
        make_provider(script=tmp_path / "missing.jsonl")
    with pytest.raises(ProviderError, match="cannot be combined"):
        make_provider("openai", script=tmp_path / "x.jsonl")
    script = tmp_path / "s.jsonl"
    script.write_text('{"text": "x"}\n')
    assert make_provider(script=script).label == "scripted · s.jsonl"


def test_missing_sdk_extras_name_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    monkeypatch.setitem(sys.modules, "anthropic", None)
    # The command runs as printed: this interpreter's pip and the package itself (planview's extras
    # are not on the index).
    with pytest.raises(ProviderError, match=r" -m pip install 'openai>="):
        make_provider("openai", env={"OPENAI_API_KEY": "k"})
    with pytest.raises(ProviderError, match=r" -m pip install 'anthropic>="):
        make_provider("anthropic", env={"ANTHROPIC_API_KEY": "k"})


def test_missing_keys_name_the_variable() -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    with pytest.raises(ProviderError, match="set OPENAI_API_KEY"):
        make_provider("openai", env={})
    with pytest.raises(ProviderError, match="set MY_KEY"):
        make_provider(config=Config(ProviderConfig("anthropic", api_key_env="MY_KEY")), env={})
    # A local OpenAI-compatible server needs no key.
    local = make_provider(config=Config(ProviderConfig("openai", "llama3", "http://127.0.0.1:1/v1")), env={})
    assert local.label == "openai · llama3"


# ------------------------------------------------------------------------------------ loopback server


class Loopback:
    """A tiny HTTP server on 127.0.0.1 that answers each POST with the next queued SSE stream."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.streams: list[list[str]] = []  # each: the SSE lines of one response
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.requests.append(json.loads(body))
                outer.paths.append(self.path)
                lines = outer.streams.pop(0) if outer.streams else []
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.end_headers()
                for line in lines:
                    self.wfile.write(line.encode() + b"\n\n")
                    self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Loopback:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    with Loopback() as server:
        yield server


def openai_chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    payload = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return "data: " + json.dumps(payload)


def openai_tool_stream() -> list[str]:
    return [
        openai_chunk({"role": "assistant", "content": "Let me "}),
        openai_chunk({"content": "look."}),
        openai_chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_a",
                        "type": "function",
                        "function": {"name": "read", "arguments": ""},
                    }
                ]
            }
        ),
        openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"pa'}}]}),
        openai_chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'th": "README.md"}'}}]}),
        openai_chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_b",
                        "type": "function",
                        "function": {"name": "ls", "arguments": "{}"},
                    }
                ]
            }
        ),
        openai_chunk({}, "tool_calls"),
        "data: [DONE]",
    ]


def openai_text_stream(text: str) -> list[str]:
    return [openai_chunk({"role": "assistant", "content": text}), openai_chunk({}, "stop"), "data: [DONE]"]


async def test_openai_streams_text_and_tool_call_deltas(loopback: Loopback) -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    from planview.session.providers.openai import OpenAIProvider

    loopback.streams.append(openai_tool_stream())
    provider = OpenAIProvider(
        "test-model", base_url=f"http://127.0.0.1:{loopback.port}/v1", env={}, max_retries=0
    )
    schema = ToolSchema("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})
    request = ModelRequest("be brief", ({"role": "user", "content": "hi"},), (schema,))
    events = [e async for e in provider.stream(request)]
    assert events[:2] == [TextChunk("Let me "), TextChunk("look.")]
    calls = [e.call for e in events if isinstance(e, ToolCallChunk)]
    assert [(c.id, c.name, dict(c.arguments)) for c in calls] == [
        ("call_a", "read", {"path": "README.md"}),
        ("call_b", "ls", {}),
    ]
    assert events[-1] == Done("tool_calls")
    sent = loopback.requests[0]
    assert loopback.paths == ["/v1/chat/completions"]
    assert sent["model"] == "test-model" and sent["stream"] is True
    assert sent["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    assert sent["tools"][0] == {
        "type": "function",
        "function": {"name": "read", "description": "Read a file", "parameters": schema.parameters},
    }


async def test_openai_session_round_trip_through_the_gate(loopback: Loopback, project: Path) -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    from planview.session.providers.openai import OpenAIProvider

    loopback.streams += [openai_tool_stream(), openai_text_stream("It is a sample project.")]
    provider = OpenAIProvider("m", base_url=f"http://127.0.0.1:{loopback.port}/v1", env={}, max_retries=0)
    events: list[Any] = []
    session = Session(project_root=project, provider=provider, on_event=events.append, plan_mode=True)
    await session.send("what is this?")
    assert events[-1] == TurnEnded("done")
    assert [e.name for e in events if isinstance(e, ToolFinished) and not e.error] == ["read", "ls"]
    second = loopback.requests[1]["messages"]
    assistant = next(m for m in second if m["role"] == "assistant")
    assert assistant["tool_calls"][0] == {
        "id": "call_a",
        "type": "function",
        "function": {"name": "read", "arguments": '{"path": "README.md"}'},
    }
    tool = [m for m in second if m["role"] == "tool"]
    assert tool[0]["tool_call_id"] == "call_a" and "sample project" in tool[0]["content"]
    # Plan mode: the model is offered the planning tools, and the note rides along as a user message.
    offered = {t["function"]["name"] for t in loopback.requests[0]["tools"]}
    assert "write_plan" in offered and "write" not in offered
    assert any("[PLAN MODE ACTIVE]" in m["content"] for m in second if m["role"] == "user")


async def test_openai_unreachable_endpoint_is_one_clear_error(project: Path) -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    from planview.session.providers.openai import OpenAIProvider

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    provider = OpenAIProvider("m", base_url=f"http://127.0.0.1:{port}/v1", env={}, max_retries=0, timeout=5)
    events: list[Any] = []
    session = Session(project_root=project, provider=provider, on_event=events.append)
    await session.send("hi")
    assert events[-1].reason == "error"
    assert (
        f"cannot reach http://127.0.0.1:{port}/v1" in events[-1].message and "base_url" in events[-1].message
    )


def anthropic_event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: " + json.dumps({"type": kind, **data})


async def test_anthropic_streams_text_and_tool_use(loopback: Loopback) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    from planview.session.providers.anthropic import AnthropicProvider

    loopback.streams.append(
        [
            anthropic_event(
                "message_start",
                {
                    "message": {
                        "id": "m1",
                        "type": "message",
                        "role": "assistant",
                        "content": [],
                        "model": "c",
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 1, "output_tokens": 1},
                    }
                },
            ),
            anthropic_event(
                "content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}
            ),
            anthropic_event(
                "content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": "Reading."}}
            ),
            anthropic_event("content_block_stop", {"index": 0}),
            anthropic_event(
                "content_block_start",
                {
                    "index": 1,
                    "content_block": {"type": "tool_use", "id": "tu_1", "name": "read", "input": {}},
                },
            ),
            anthropic_event(
                "content_block_delta",
                {"index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"path"'}},
            ),
            anthropic_event(
                "content_block_delta",
                {"index": 1, "delta": {"type": "input_json_delta", "partial_json": ': "a.md"}'}},
            ),
            anthropic_event("content_block_stop", {"index": 1}),
            anthropic_event(
                "message_delta",
                {"delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 5}},
            ),
            anthropic_event("message_stop", {}),
        ]
    )
    provider = AnthropicProvider(
        "claude-test",
        base_url=f"http://127.0.0.1:{loopback.port}",
        env={"ANTHROPIC_API_KEY": "k"},
        max_retries=0,
    )
    history = (
        {"role": "user", "content": "data block"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "t0", "name": "ls", "arguments": {}}]},
        {"role": "tool", "tool_call_id": "t0", "name": "ls", "content": "a.md"},
    )
    events = [e async for e in provider.stream(ModelRequest("sys", history, ()))]
    assert events[0] == TextChunk("Reading.")
    assert isinstance(events[1], ToolCallChunk) and events[1].call.arguments == {"path": "a.md"}
    assert events[-1] == Done("tool_use")
    sent = loopback.requests[0]
    assert sent["system"] == "sys" and sent["model"] == "claude-test" and sent["stream"] is True
    # Consecutive user messages merge; tool results are user-role tool_result blocks.
    assert [m["role"] for m in sent["messages"]] == ["user", "assistant", "user"]
    assert len(sent["messages"][0]["content"]) == 2
    assert sent["messages"][2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "t0",
        "content": "a.md",
    }


def test_openai_deltas_without_index_are_matched_by_id() -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    from planview.session.providers.openai import _slot_index

    calls: dict[int, dict[str, str]] = {}
    assert _slot_index(calls, None, "a") == 0
    calls[0] = {"id": "a", "name": "read", "arguments": ""}
    assert _slot_index(calls, None, None) == 0  # an id-less continuation
    assert _slot_index(calls, None, "a") == 0
    assert _slot_index(calls, None, "b") == 1  # a new call
    assert _slot_index(calls, 5, None) == 5
