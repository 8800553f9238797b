"""The harness itself: the network namespace really isolates, and each scripted server speaks its API
well enough for a stock client (checked with plain HTTP here; the agents check the rest)."""

from __future__ import annotations

import http.client
import json
import socket
import threading

import pytest
from harness.anthropic_api import AnthropicServer
from harness.gemini_api import GeminiServer
from harness.netns import ChildFailed, isolated, run_isolated
from harness.openai_api import OpenAIServer
from harness.scenario import call, say


def test_isolated_body_sees_only_loopback_and_cannot_reach_the_host() -> None:
    # A listener on the host's loopback: reachable from the host, never from inside the namespace.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    accepted: list[object] = []
    threading.Thread(target=lambda: accepted.append(listener.accept()), daemon=True).start()

    def inside() -> tuple[bool, str]:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
            reached = "reached the host's listener"
        except OSError as exc:
            reached = type(exc).__name__
        try:
            socket.create_connection(("192.0.2.1", 80), timeout=2).close()  # TEST-NET-1: never routable
            outside = "connected outside"
        except OSError as exc:
            outside = f"{type(exc).__name__} {exc.errno}"
        return isolated(), f"{reached}; {outside}"

    inside_loopback_only, what = run_isolated(inside)
    listener.close()
    assert inside_loopback_only
    assert "reached" not in what and "connected" not in what, what
    assert not accepted
    assert not isolated()  # the test process itself stays on the host's network


def test_isolated_errors_come_back_with_the_childs_traceback() -> None:
    def inside() -> None:
        assert 1 + 1 == 3, "the child's own message"

    with pytest.raises(ChildFailed, match="the child's own message"):
        run_isolated(inside)


def _post(url: str, path: str, body: object) -> tuple[int, str]:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read().decode()


def test_anthropic_server_streams_a_tool_call_and_logs_the_result() -> None:
    with AnthropicServer([call("Bash", command="ls")]) as server:
        status, text = _post(
            server.url,
            "/v1/messages?beta=true",
            {"stream": True, "tools": [{"name": "Bash"}], "messages": []},
        )
        assert status == 200
        assert '"type": "tool_use"' in text and '"partial_json": "{\\"command\\": \\"ls\\"}"' in text
        assert "event: message_stop" in text
        reply = [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}],
            }
        ]
        reply.append(
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt", "is_error": True}
                ],
            }
        )
        status, text = _post(
            server.url, "/v1/messages", {"stream": False, "tools": [{"name": "Bash"}], "messages": reply}
        )
        assert json.loads(text)["content"] == [{"type": "text", "text": "Done."}]
        result = server.result_for("Bash")
        assert (result.text, result.is_error) == ("a.txt", True)
        # A request without tools (a title) is a side request: answered, logged, no turn used.
        _post(server.url, "/v1/messages", {"messages": []})
        assert [r.main for r in server.requests] == [True, True, False]


def test_openai_server_streams_tool_call_deltas() -> None:
    with OpenAIServer([call("bash", command="git status")]) as server:
        status, text = _post(
            server.url, "/v1/chat/completions", {"stream": True, "tools": [{}], "messages": []}
        )
        chunks = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
        pieces = [c["choices"][0]["delta"].get("tool_calls", [{}])[0] for c in chunks if c["choices"]]
        arguments = "".join(p.get("function", {}).get("arguments", "") for p in pieces)
        assert json.loads(arguments) == {"command": "git status"}
        assert chunks[-1]["choices"] == [] and text.rstrip().endswith("data: [DONE]")


def test_gemini_server_streams_function_calls_and_reads_function_responses() -> None:
    with GeminiServer([call("read_file", file_path="a"), say("ok")]) as server:
        path = "/v1beta/models/m:streamGenerateContent?alt=sse"
        _, text = _post(server.url, path, {"tools": [{}], "contents": []})
        assert '"functionCall": {"name": "read_file"' in text
        contents = [
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "read_file", "response": {"error": "denied"}}}],
            }
        ]
        _post(server.url, path, {"tools": [{}], "contents": contents})
        assert server.result_for("read_file").is_error
