"""The part every scripted model server shares: a loopback HTTP server in a thread that logs every
request and plays the scenario's turns to the requests that belong to the conversation.

An agent also sends side requests (a title for the session, a token count, a "next speaker" check);
each API's server says which requests are the conversation (`is_main`) and answers the rest with
short plain text, so a scenario lists only the turns that matter. Everything is logged.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from harness.scenario import Seen, Step, ToolResult, Turn, with_ids

FALLBACK = Turn(text="Done.")


@dataclass(frozen=True)
class Logged:
    """One request the agent sent: method, path (with query), decoded JSON body, and whether it was
    part of the conversation (played a scenario turn)."""

    method: str
    path: str
    body: Any
    main: bool
    at: float


class ModelServer:
    """Base: subclasses implement is_main, results_of, texts_of, reply and side_reply."""

    api = "base"

    def __init__(self, steps: Sequence[Step], log_path: Path | None = None) -> None:
        self._steps = list(steps)
        self._lock = threading.Lock()
        self.requests: list[Logged] = []
        self.played: list[Turn] = []
        self.replied: list[float] = []  # when each conversation reply was fully sent (time.time())
        self.log_path = log_path
        self._httpd: ThreadingHTTPServer | None = None

    # --- what subclasses provide -------------------------------------------------------------
    def is_main(self, path: str, body: Any) -> bool:
        raise NotImplementedError

    def results_of(self, body: Mapping[str, Any]) -> tuple[ToolResult, ...]:
        raise NotImplementedError

    def texts_of(self, body: Mapping[str, Any]) -> tuple[str, ...]:
        raise NotImplementedError

    def reply(self, handler: BaseHTTPRequestHandler, body: Any, turn: Turn) -> None:
        raise NotImplementedError

    def side_reply(self, handler: BaseHTTPRequestHandler, path: str, body: Any) -> None:
        raise NotImplementedError

    # --- the shared part -------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "start() the server first"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> ModelServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet: the log is ours
                pass

            def do_HEAD(self) -> None:
                server._log("HEAD", self.path, None, False)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                server._log("GET", self.path, None, False)
                server.side_reply(self, self.path, None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                server._dispatch(self, self.path, body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _log(self, method: str, path: str, body: Any, main: bool) -> None:
        entry = Logged(method, path, body, main, time.time())
        with self._lock:
            self.requests.append(entry)
        if self.log_path is not None:
            with self.log_path.open("a") as out:
                out.write(json.dumps({"method": method, "path": path, "main": main, "body": body}) + "\n")

    def _dispatch(self, handler: BaseHTTPRequestHandler, path: str, body: Any) -> None:
        main = isinstance(body, dict) and self.is_main(path, body)
        self._log("POST", path, body, main)
        if not main:
            self.side_reply(handler, path, body)
            return
        with self._lock:
            step = self._steps.pop(0) if self._steps else FALLBACK
        turn = step if isinstance(step, Turn) else step(self.seen(body))
        turn = with_ids(turn)
        with self._lock:
            self.played.append(turn)
        self.reply(handler, body, turn)
        with self._lock:
            self.replied.append(time.time())

    def seen(self, body: Mapping[str, Any]) -> Seen:
        return Seen(body=body, results=self.results_of(body), user_texts=self.texts_of(body))

    # --- what tests read ---------------------------------------------------------------------
    def round_trips(self) -> list[float]:
        """Seconds from each conversation reply sent to the agent's next conversation request: the
        agent's whole handling of that turn (hooks, tools, building the request)."""
        mains = [r.at for r in self.main_requests()]
        with self._lock:
            sent = list(self.replied)
        return [after - before for before, after in zip(sent, mains[1:], strict=False)]

    def main_requests(self) -> list[Logged]:
        with self._lock:
            return [r for r in self.requests if r.main]

    def results(self) -> tuple[ToolResult, ...]:
        """Every tool result the agent has sent back so far (from its latest conversation request)."""
        mains = self.main_requests()
        return self.results_of(mains[-1].body) if mains else ()

    def result_for(self, tool_name: str, index: int = -1) -> ToolResult:
        found = [r for r in self.results() if r.name == tool_name]
        assert found, f"the agent sent back no {tool_name} result; it sent {self.summary()}"
        return found[index]

    def user_texts(self) -> tuple[str, ...]:
        mains = self.main_requests()
        return self.texts_of(mains[-1].body) if mains else ()

    def remaining(self) -> int:
        with self._lock:
            return len(self._steps)

    def wait_for(self, predicate: Any, timeout: float = 60.0, what: str = "the agent") -> None:
        """Poll (with a cap) until predicate() is true; the failure says what the server saw."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}; {self.summary()}")

    def summary(self) -> str:
        results = [(r.name, r.is_error, r.text[:160]) for r in self.results()]
        return f"{len(self.main_requests())} conversation requests, {self.remaining()} turns left, results {results}"


def write_sse(handler: BaseHTTPRequestHandler, events: Sequence[tuple[str | None, Any]]) -> None:
    """An event stream, closed at the end (no length: the closed connection ends it)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.end_headers()
    for name, data in events:
        chunk = (
            (f"event: {name}\n" if name else "")
            + "data: "
            + (data if isinstance(data, str) else json.dumps(data))
            + "\n\n"
        )
        handler.wfile.write(chunk.encode())
        handler.wfile.flush()
    handler.close_connection = True


def write_json(handler: BaseHTTPRequestHandler, data: Any, status: int = 200) -> None:
    payload = json.dumps(data).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)
