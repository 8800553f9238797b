"""The SDK providers' shared edges: API failures as one clear ProviderError (exact texts, both
SDKs), defaults, and tool calls left open when a stream is cut."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from planview.session.providers.base import Done, ModelRequest, ModelToolCall, ProviderError, ToolCallChunk


class Failing:
    """127.0.0.1 server answering every POST with the queued (status, JSON body or SSE lines)."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                status, body = outer.answers.pop(0)
                sse = isinstance(body, list)
                data = "".join(line + "\n\n" for line in body).encode() if sse else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "text/event-stream" if sse else "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)


@pytest.fixture
def failing() -> Iterator[Failing]:
    server = Failing()
    server.thread.start()
    try:
        yield server
    finally:
        server.server.shutdown()
        server.server.server_close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def first_error(provider: Any) -> str:
    with pytest.raises(ProviderError) as info:
        async for _ in provider.stream(ModelRequest("sys", ({"role": "user", "content": "hi"},))):
            pass
    return str(info.value)


LONG = "x" * 400


def openai_error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}


def anthropic_error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "api_error", "message": message}}


async def test_openai_failures(failing: Failing) -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    from planview.session.providers.openai import OpenAIProvider

    base = failing.url + "/v1"
    provider = OpenAIProvider("m", base_url=base, env={"K": "k"}, api_key_env="K", max_retries=0, timeout=5)
    failing.answers += [
        (401, openai_error("bad key")),
        (404, openai_error("no model")),
        (500, openai_error(LONG)),
    ]
    assert await first_error(provider) == f"{base} rejected the API key (401); check K"
    assert (
        await first_error(provider)
        == f"{base} does not know model 'm' (404); set [provider] model or --model"
    )
    status = await first_error(provider)
    assert status.startswith(f"{base} answered 500: Error code: 500 - ") and status.endswith("…")
    assert len(status) == len(f"{base} answered 500: ") + 301
    port = free_port()
    gone = OpenAIProvider("m", base_url=f"http://127.0.0.1:{port}/v1", env={}, max_retries=0, timeout=5)
    assert await first_error(gone) == (
        f"cannot reach http://127.0.0.1:{port}/v1 (connection refused); start the server or fix [provider] "
        "base_url / PLANVIEW_BASE_URL"
    )


async def test_anthropic_failures(failing: Failing) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    from planview.session.providers.anthropic import AnthropicProvider

    provider = AnthropicProvider(
        "c", base_url=failing.url, env={"ANTHROPIC_API_KEY": "k"}, max_retries=0, timeout=5
    )
    failing.answers += [
        (401, anthropic_error("bad key")),
        (404, anthropic_error("no model")),
        (500, anthropic_error(LONG)),
    ]
    assert await first_error(provider) == "Anthropic rejected the API key (401); check ANTHROPIC_API_KEY"
    assert await first_error(provider) == "unknown model 'c' (404); set [provider] model or --model"
    status = await first_error(provider)
    assert status.startswith("Anthropic answered 500: ") and LONG in status  # not shortened
    port = free_port()
    gone = AnthropicProvider(
        "c", base_url=f"http://127.0.0.1:{port}", env={"ANTHROPIC_API_KEY": "k"}, max_retries=0, timeout=5
    )
    assert (
        await first_error(gone)
        == f"cannot reach http://127.0.0.1:{port} (connection refused); check the network or [provider] base_url"
    )


async def test_sdk_base_url_variables_are_the_url_used_and_named(failing: Failing) -> None:
    # ANTHROPIC_BASE_URL / OPENAI_BASE_URL from the given env: the request goes there and the
    # error names it (Anthropic used to name api.anthropic.com while the SDK dialled elsewhere).
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    pytest.importorskip("openai", reason="the openai extra is not installed")
    from planview.session.providers.anthropic import AnthropicProvider
    from planview.session.providers.openai import OpenAIProvider

    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": failing.url}
    failing.answers.append((401, anthropic_error("bad key")))
    provider = AnthropicProvider("c", env=env, max_retries=0, timeout=5)
    assert provider.base_url == failing.url
    assert await first_error(provider) == "Anthropic rejected the API key (401); check ANTHROPIC_API_KEY"
    port = free_port()
    gone = OpenAIProvider(
        "m", env={"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"}, max_retries=0, timeout=5
    )
    assert (await first_error(gone)).startswith(
        f"cannot reach http://127.0.0.1:{port}/v1 (connection refused);"
    )


def test_default_urls_keys_and_labels() -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    from planview.session.providers.anthropic import AnthropicProvider
    from planview.session.providers.openai import OpenAIProvider

    a = AnthropicProvider(env={"ANTHROPIC_API_KEY": "k"})
    assert (a.model, a.base_url, a.key_env, a.label) == (
        "claude-sonnet-4-5",
        "https://api.anthropic.com",
        "ANTHROPIC_API_KEY",
        "anthropic · claude-sonnet-4-5",
    )
    o = OpenAIProvider(env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://h/v1"})
    assert (o.model, o.base_url, o.key_env, o.label) == (
        "gpt-4o",
        "http://h/v1",
        "OPENAI_API_KEY",
        "openai · gpt-4o",
    )
    with pytest.raises(ProviderError, match="no API key: set ANTHROPIC_API_KEY"):
        AnthropicProvider(env={})
    with pytest.raises(ProviderError, match="no API key: set OPENAI_API_KEY"):
        OpenAIProvider(env={})


async def collect(provider: Any) -> list[Any]:
    return [e async for e in provider.stream(ModelRequest("", ({"role": "user", "content": "hi"},)))]


async def test_openai_call_without_id_and_bad_json_still_arrives(failing: Failing) -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    from planview.session.providers.openai import OpenAIProvider

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return "data: " + json.dumps(
            {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [choice]}
        )

    failing.answers.append(
        (
            200,
            [
                chunk({"tool_calls": [{"index": 0, "function": {"name": "read", "arguments": "{oops"}}]}),
                chunk({}, "tool_calls"),
                "data: [DONE]",
            ],
        )
    )
    provider = OpenAIProvider("m", base_url=failing.url + "/v1", env={}, max_retries=0, timeout=5)
    events = await collect(provider)
    call = events[0].call
    assert (call.id, call.name, call.arguments) == ("call_0", "read", {})
    assert call.invalid and "not valid JSON" in call.invalid
    assert events[-1] == Done("tool_calls")


async def test_anthropic_tool_use_cut_before_its_stop_still_arrives(failing: Failing) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    from planview.session.providers.anthropic import AnthropicProvider

    def event(kind: str, data: dict[str, Any]) -> str:
        return f"event: {kind}\ndata: " + json.dumps({"type": kind, **data})

    message = {
        "id": "m1",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "c",
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    block = {"type": "tool_use", "id": "tu_9", "name": "ls", "input": {}}
    failing.answers.append(
        (
            200,
            [
                event("message_start", {"message": message}),
                event("content_block_start", {"index": 0, "content_block": block}),
                event(
                    "content_block_delta",
                    {"index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"path": "src"}'}},
                ),
            ],
        )
    )
    provider = AnthropicProvider(
        "c", base_url=failing.url, env={"ANTHROPIC_API_KEY": "k"}, max_retries=0, timeout=5
    )
    events = await collect(provider)
    assert events == [ToolCallChunk(ModelToolCall("tu_9", "ls", {"path": "src"})), Done("end_turn")]


class CutServer:
    """127.0.0.1 server that starts a streamed reply, sends `lines`, then drops the connection."""

    def __init__(self, lines: list[str]) -> None:
        body = "".join(line + "\n\n" for line in lines).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(body) + 10_000))  # promises more
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                self.close_connection = True  # ...and hangs up mid-reply

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def _stream_until_error(provider: Any) -> tuple[list[Any], str]:
    events: list[Any] = []
    with pytest.raises(ProviderError) as info:
        async for event in provider.stream(ModelRequest("sys", ({"role": "user", "content": "hi"},))):
            events.append(event)
    return events, str(info.value)


async def test_openai_stream_cut_mid_reply_is_not_unreachable() -> None:
    pytest.importorskip("openai", reason="the openai extra is not installed")
    from planview.session.providers.openai import OpenAIProvider

    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "Hello, I am half"}, "finish_reason": None}],
    }
    server = CutServer(["data: " + json.dumps(chunk)])
    try:
        provider = OpenAIProvider("m", base_url=server.url + "/v1", env={}, max_retries=0, timeout=5)
        events, message = await _stream_until_error(provider)
    finally:
        server.close()
    assert [e.text for e in events] == ["Hello, I am half"]
    assert message.startswith(f"the reply from {server.url}/v1 was cut off mid-stream")
    assert "cannot reach" not in message and "retry" in message


async def test_anthropic_stream_cut_mid_reply_is_not_unreachable() -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    from planview.session.providers.anthropic import AnthropicProvider

    message_start = {
        "type": "message_start",
        "message": {
            "id": "m1",
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "c",
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    }
    block = {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}
    delta = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Half a"}}
    server = CutServer([f"event: {e['type']}\ndata: {json.dumps(e)}" for e in (message_start, block, delta)])
    try:
        provider = AnthropicProvider(
            "c", base_url=server.url, env={"ANTHROPIC_API_KEY": "k"}, max_retries=0, timeout=5
        )
        events, message = await _stream_until_error(provider)
    finally:
        server.close()
    assert [getattr(e, "text", None) for e in events] == ["Half a"]
    assert message.startswith(f"the reply from {server.url} was cut off mid-stream")


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_a_missing_sdk_names_an_install_command_that_runs_as_printed(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """QA: the hint was `pip install 'planview[openai]'`; no `planview` distribution is on the index."""
    import os
    import shlex
    import subprocess
    import sys

    from planview.session.providers.common import import_sdk

    monkeypatch.setitem(sys.modules, name, None)  # `import openai` raises ImportError
    with pytest.raises(ProviderError) as caught:
        import_sdk(name)
    message = str(caught.value)
    assert "planview[" not in message
    command = message.split(": ", 1)[1]
    words = shlex.split(command)
    assert words[:4] == [sys.executable, "-m", "pip", "install"] and words[4].startswith(f"{name}>=")
    # The test install has the extra, so pip finds it satisfied without reaching an index.
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INDEX": "1"}
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0 and "already satisfied" in done.stdout, done.stderr
