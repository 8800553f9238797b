"""The loopback review server: one plan, one page, one decision.

aiohttp serves it inside the caller's asyncio loop (the TUI's, or `asyncio.run` for the CLI).
Every request is checked before any route runs (`_guard`): only GET and POST; a `Host` header
naming this server's own origin (a missing or foreign one is refused, so a DNS-rebinding page
cannot reach it); the review's session cookie on every route (compared in constant time); a POST must be `application/json` with a declared length under the cap and, when the
browser sends `Origin`, come from this origin.

Nothing a browser is handed carries that session. `link()` issues a one-time ticket URL
(`/?ticket=`), and `launch_file()` writes one into a private file (0600, in a 0700 folder) that
redirects to it, as Jupyter does: the browser's command line names only that file. The first GET
of a ticket spends it and answers with the session cookie (HttpOnly, SameSite=Lax, named for this
port) and a redirect to `/`; the file is deleted. So a process that reads the URL afterwards (from
`/proc/*/cmdline`, the terminal or the file) holds a spent ticket, which is refused.

A local process that does not know the session can still open connections, so the server bounds
what they cost: at most `MAX_CONNECTIONS` at once (more are reset as they are accepted, so ~1,100
half-sent requests never fill a 1,024-file table), a connection must finish each request head
within `head_seconds` (else it is closed) and a POST body within `body_seconds` (else 408), and the
body is read and parsed before the decision lock is taken: a slowly sent body holds up nobody
else's action. The page and its assets take no lock at all.

The plan path is fixed when the server starts; no request names a file. A save re-reads the
plan and writes only when its bytes still hash to what the page rendered (409 otherwise),
through the plan store's contained atomic write. A decision (save, approve, cancel, or the tab
closing) settles the review once, after its HTTP response has been written, and every later
action is refused with 410.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from planview.errors import PlanviewError
from planview.nesting import MAX_DEPTH, too_deep_json
from planview.plan.errors import PlanChangedError
from planview.plan.feedback import parse_feedback
from planview.plan.store import MAX_PLAN_BYTES, PlanStore, decode_plan, read_plan_bytes
from planview.web import page
from planview.web.decision import WebDecision
from planview.web.model import PageModel, build_page
from planview.web.ports import remember_port, remembered_port
from planview.web.save import (
    BadRequest,
    current_sha256,
    parse_comments,
    save_comments,
    store_for,
)

MAX_BODY_BYTES = MAX_PLAN_BYTES + 64 * 1024  # comments for a full-size plan, with room for JSON
CLOSE_GRACE_SECONDS = 3.0  # a reload drops the event stream for a moment; a closed tab does not return
PING_SECONDS = 15.0
MAX_CONNECTIONS = 64  # a browser opens ~6 a page; a few tabs fit, a flood does not reach the file limit
HEAD_SECONDS = 10.0  # from connecting (or the last answer on a kept-alive connection) to a whole request head
BODY_SECONDS = 10.0  # to receive a POST body (at most MAX_BODY_BYTES, on loopback)

# Called with (plan, canonical sha256 of the text the page showed) when the page approves; it records
# the approval (or hands it to the flow that does) and returns what to keep in the decision. A
# PlanviewError it raises is shown on the page and nothing settles.
ApproveHook = Callable[[Path, str], Awaitable[Any] | Any]


class _Refused(asyncio.Protocol):
    """A connection over MAX_CONNECTIONS: reset as soon as it is accepted (its descriptor freed)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.abort()  # type: ignore[attr-defined]


class SlowBody(BadRequest):
    """A POST body that did not arrive within the server's body time."""


def _error(status: int, message: str, **extra: Any) -> web.Response:
    from planview.invocation import spelled_as_run  # a fix the page names runs as shown (a .venv off PATH)

    return web.json_response({"error": spelled_as_run(message), **extra}, status=status)


class ReviewServer:
    """Serve one plan's review page on 127.0.0.1 until it settles.

    `approve=False` makes a comment-only page (no Approve action; `/api/approve` is refused).
    `baseline` is the text the previous review showed (the changed-section dots), None for none.
    `to_model`: saved comments go on to a model (the page's words after a save say where they go).
    """

    def __init__(
        self,
        plan_path: Path,
        *,
        approve: bool,
        on_approve: ApproveHook | None = None,
        home: Path | None = None,
        baseline: str | None = None,
        store: PlanStore | None = None,
        close_grace: float = CLOSE_GRACE_SECONDS,
        head_seconds: float = HEAD_SECONDS,
        body_seconds: float = BODY_SECONDS,
        max_connections: int = MAX_CONNECTIONS,
        to_model: bool = False,
    ) -> None:
        if approve and on_approve is None:
            raise ValueError("an approval page needs on_approve (the approval flow it hands the decision to)")
        self.plan = Path(plan_path).expanduser().resolve()
        self.approve = approve
        self.on_approve = on_approve
        self.home = home
        self.baseline = baseline
        self.to_model = to_model
        self.store = store if store is not None else store_for(self.plan, home)
        self.close_grace = close_grace
        self.head_seconds = head_seconds
        self.body_seconds = body_seconds
        self.max_connections = max_connections
        self._listener: asyncio.Server | None = None
        self._head_timers: dict[Any, asyncio.TimerHandle] = {}  # connection -> its head deadline
        self._session = secrets.token_urlsafe(32)  # the cookie's value: never printed or handed out
        self._tickets: dict[str, Path | None] = {}  # unspent one-time tickets -> their launch file
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._decision: asyncio.Future[WebDecision] | None = None
        self._settled = asyncio.Event()
        self._lock = asyncio.Lock()
        self._clients = 0
        self._close_timer: asyncio.TimerHandle | None = None
        self._model: tuple[bytes, asyncio.Future[PageModel]] | None = None  # the last page built, by bytes

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def cookie_name(self) -> str:
        return f"planview-review-{self.port}"  # cookies ignore ports: two reviews must not share one

    def link(self) -> str:
        """A new one-time URL for the page: its first load becomes the browser's session."""
        ticket = secrets.token_urlsafe(24)
        self._tickets[ticket] = None
        return f"{self.origin}/?ticket={ticket}"

    def launch_file(self) -> Path:
        """A new private file that redirects to a one-time URL (hand the browser this, not a URL)."""
        from planview.web.launch import write_launch_file

        ticket = secrets.token_urlsafe(24)
        path = write_launch_file(f"{self.origin}/?ticket={ticket}")
        self._tickets[ticket] = path
        return path

    @property
    def settled(self) -> bool:
        return self._decision is not None and self._decision.done()

    async def start(self) -> str:
        """Bind 127.0.0.1 (the plan's remembered port when free) and return its origin."""
        loop = asyncio.get_running_loop()
        self._decision = loop.create_future()
        app = web.Application(middlewares=[self._guard], client_max_size=MAX_BODY_BYTES)
        app.router.add_get("/", self._page)
        app.router.add_get("/theme.js", self._theme)
        app.router.add_get("/client.js", self._client)
        app.router.add_get("/events", self._events)
        app.router.add_post("/api/feedback", self._feedback)
        app.router.add_post("/api/approve", self._approve)
        app.router.add_post("/api/cancel", self._cancel)
        # handler_cancellation: a closed tab ends its event stream at once (the close signal).
        runner = web.AppRunner(
            app, handler_cancellation=True, access_log=None, keepalive_timeout=self.head_seconds
        )
        await runner.setup()
        self._runner = runner
        wanted = remembered_port(self.home, self.plan)
        for port in ([wanted] if wanted else []) + [0]:
            try:
                self._listener = await loop.create_server(self._accept, "127.0.0.1", port, reuse_address=True)
            except OSError:
                continue  # the remembered port is taken: any free one
            self.port = int(self._listener.sockets[0].getsockname()[1])
            break
        remember_port(self.home, self.plan, self.port)
        try:  # build the page while the browser starts: the first GET finds it ready
            self._model_for(read_plan_bytes(self.plan))
        except PlanviewError:
            pass  # the GET says what is wrong with the file
        return self.origin

    def _accept(self) -> asyncio.Protocol:
        """The protocol for one accepted connection: aiohttp's, with a head deadline, or a reset
        when MAX_CONNECTIONS are open already."""
        assert self._runner is not None and self._runner.server is not None
        server = self._runner.server
        if len(server.connections) >= self.max_connections:
            return _Refused()
        handler = server()
        self._arm(handler)
        return handler

    def _arm(self, handler: Any) -> None:
        old = self._head_timers.pop(handler, None)
        if old is not None:
            old.cancel()
        loop = asyncio.get_running_loop()
        self._head_timers[handler] = loop.call_later(self.head_seconds, self._head_expired, handler)

    def _head_expired(self, handler: Any) -> None:
        self._head_timers.pop(handler, None)
        if self._runner is not None and self._runner.server is not None:
            if handler in self._runner.server.connections:
                handler.force_close()  # no whole request in time: a half-sent head holds nothing

    def _model_for(self, data: bytes) -> asyncio.Future[PageModel]:
        """The page for these bytes, built off the event loop (a long plan takes a few hundred ms,
        and the loop is the terminal UI's); the same bytes again reuse the last build."""
        if self._model is None or self._model[0] != data:
            build = asyncio.get_running_loop().run_in_executor(
                None,
                lambda: build_page(
                    self.plan, data, approve=self.approve, baseline=self.baseline, to_model=self.to_model
                ),
            )
            self._model = (data, build)
        return self._model[1]

    async def wait(self) -> WebDecision:
        assert self._decision is not None, "start() the server first"
        return await asyncio.shield(self._decision)

    def close(self, reason: str = "closed") -> None:
        """Settle as closed (nothing decided here) unless the page already decided; the page is told."""
        self._settle(WebDecision("closed", self.plan, reason=reason))

    async def stop(self) -> None:
        """Close (if still open) and release the port."""
        self.close("the review ended")
        if self._close_timer is not None:
            self._close_timer.cancel()
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        for timer in self._head_timers.values():
            timer.cancel()
        self._head_timers.clear()
        for path in self._tickets.values():
            if path is not None:
                path.unlink(missing_ok=True)
        self._tickets.clear()
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    async def __aenter__(self) -> ReviewServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _settle(self, decision: WebDecision) -> bool:
        if self._decision is None or self._decision.done():
            return False
        self._decision.set_result(decision)
        self._settled.set()
        return True

    # -- the guard ------------------------------------------------------------------------------
    def _origins(self) -> set[str]:
        return {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    @web.middleware
    async def _guard(self, request: web.Request, handler: Callable[..., Awaitable[web.StreamResponse]]):
        connection = request.protocol
        timer = self._head_timers.pop(connection, None)
        if timer is not None:
            timer.cancel()  # the head arrived; the body has its own time
        try:
            return await self._checked(request, handler)
        finally:
            if self._runner is not None:
                self._arm(connection)  # a kept-alive connection: the next head in time too

    async def _checked(self, request: web.Request, handler: Callable[..., Awaitable[web.StreamResponse]]):
        if request.method not in ("GET", "POST"):
            return web.json_response(
                {"error": "only GET and POST are served"}, status=405, headers={"Allow": "GET, POST"}
            )
        host = request.headers.get("Host")
        if not host:
            return _error(400, "missing Host header")
        if host.lower() not in self._origins():
            return _error(403, "foreign Host header; open the review URL planview printed")
        signed_in = hmac.compare_digest(
            request.cookies.get(self.cookie_name, "").encode("utf-8", "replace"), self._session.encode()
        )
        ticket = request.query.get("ticket")
        if ticket is not None and request.method == "GET" and request.path == "/":
            return self._exchange(ticket, signed_in)
        if not signed_in:
            return _error(
                403, "this browser has no session for this review; open the review link planview gave"
            )
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin is not None and origin.lower() not in {f"http://{o}" for o in self._origins()}:
                return _error(403, "cross-origin request refused")
            length = request.content_length
            if length is None:
                return _error(411, "a POST must declare its Content-Length")
            if length > MAX_BODY_BYTES:
                return _error(413, f"request body over {MAX_BODY_BYTES} bytes")
            if request.content_type != "application/json":
                return _error(415, "a POST body must be application/json")
        response = await handler(request)
        page.secure(response)
        return response

    def _exchange(self, ticket: str, signed_in: bool) -> web.Response:
        """Spend a one-time ticket for the session cookie; a spent or unknown one is refused (unless this
        browser already holds the session: a reload of the first URL)."""
        spent = next(
            (t for t in self._tickets if hmac.compare_digest(t.encode(), ticket.encode("utf-8", "replace"))),
            None,
        )
        if spent is None and not signed_in:
            return _error(
                403,
                "this review link was already used or is wrong (each link works once, in the browser that "
                "opens it first); go back to that browser tab, or open the review again from planview",
            )
        response = web.Response(status=303, headers={"Location": "/"})
        if spent is not None:
            launch = self._tickets.pop(spent)
            if launch is not None:
                launch.unlink(missing_ok=True)
            response.set_cookie(self.cookie_name, self._session, path="/", httponly=True, samesite="Lax")
        page.secure(response)
        return response

    async def _json(self, request: web.Request) -> Any:
        try:
            raw = await asyncio.wait_for(request.read(), self.body_seconds)
        except TimeoutError as exc:
            raise SlowBody(f"the request body did not arrive within {self.body_seconds:g} s") from exc
        except web.HTTPRequestEntityTooLarge as exc:  # a body longer than it declared
            raise BadRequest(f"request body over {MAX_BODY_BYTES} bytes") from exc
        if too_deep_json(raw):
            raise BadRequest(f"the body nests deeper than {MAX_DEPTH} levels; send the page's own JSON")
        try:
            return json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise BadRequest("the body is not JSON") from exc

    async def _comments(self, request: web.Request) -> tuple[str, tuple[Any, ...]] | web.Response:
        """The request's (base, comments), read before any lock; or the 400/408 that says why not."""
        try:
            return parse_comments(await self._json(request))
        except SlowBody as exc:
            refused = _error(408, str(exc))
            refused.force_close()
            return refused
        except BadRequest as exc:
            return _error(400, str(exc))

    # -- GET ------------------------------------------------------------------------------------
    async def _page(self, request: web.Request) -> web.Response:
        try:
            data = read_plan_bytes(self.plan)
            decode_plan(self.plan, data)
        except PlanviewError as exc:
            return web.Response(status=404, text=f"planview: {exc}", content_type="text/plain")
        model = await asyncio.shield(self._model_for(data))
        shown = model.data
        if self.settled:  # a reload after the decision shows the final state, not live actions
            assert self._decision is not None
            shown = {**shown, "settled": _settled_json(self._decision.result())}
        return web.Response(text=page.html(shown), content_type="text/html", charset="utf-8")

    async def _theme(self, request: web.Request) -> web.Response:
        return page.asset("theme.js")

    async def _client(self, request: web.Request) -> web.Response:
        return page.asset("client.js")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"}
        )
        page.secure(response)
        try:
            await response.prepare(request)
        except ConnectionError:
            return response  # the tab went away before the stream started
        self._clients += 1
        if self._close_timer is not None:
            self._close_timer.cancel()
            self._close_timer = None
        try:
            await response.write(b"retry: 1000\nevent: hello\ndata: {}\n\n")
            while not self._settled.is_set():
                try:
                    await asyncio.wait_for(self._settled.wait(), PING_SECONDS)
                except TimeoutError:
                    await response.write(b": ping\n\n")
            assert self._decision is not None
            payload = json.dumps(_settled_json(self._decision.result()))
            await response.write(f"event: settled\ndata: {payload}\n\n".encode())
        except ConnectionError:
            pass  # the tab closed: the finally below starts the close timer
        finally:
            self._clients -= 1
            if self._clients == 0 and not self.settled:
                loop = asyncio.get_running_loop()
                self._close_timer = loop.call_later(self.close_grace, self._maybe_tab_closed)
        return response

    def _maybe_tab_closed(self) -> None:
        self._close_timer = None
        if self._clients == 0:
            self.close("the review page was closed")

    # -- POST -----------------------------------------------------------------------------------
    async def _deliver_then_settle(
        self, request: web.Request, body: dict[str, Any], decision: WebDecision
    ) -> web.StreamResponse:
        """Write the whole response first, then settle: the page never sees a dropped connection."""
        response = web.json_response(body)
        page.secure(response)
        await response.prepare(request)
        await response.write_eof()
        self._settle(decision)
        return response

    def _refuse_if_settled(self) -> web.Response | None:
        if self.settled:
            assert self._decision is not None
            outcome = self._decision.result()
            return _error(410, f"this review is already {outcome.outcome}", settled=_settled_json(outcome))
        return None

    def _save(self, base: str, comments: tuple[Any, ...]) -> tuple[str, bytes, str] | web.StreamResponse:
        """The comments written into the plan (text before, bytes written, their sha256), or the
        answer that says why not: a stale base (409), the store's refusal (422)."""
        try:
            return save_comments(self.plan, self.store, base, comments)
        except PlanChangedError as exc:
            return _error(409, str(exc), sha256=current_sha256(self.plan))
        except PlanviewError as exc:
            return _error(422, str(exc))

    async def _feedback(self, request: web.Request) -> web.StreamResponse:
        if (refused := self._refuse_if_settled()) is not None:
            return refused
        body = await self._comments(request)
        if isinstance(body, web.StreamResponse):
            return body
        async with self._lock:  # the decision: one at a time, and never while a body is still arriving
            if (refused := self._refuse_if_settled()) is not None:
                return refused
            saved = self._save(*body)
            if isinstance(saved, web.StreamResponse):
                return saved
            _text, written, sha = saved
            stored = parse_feedback(written.decode("utf-8"))
            decision = WebDecision("saved", self.plan, comments=stored, file_sha256=sha)
            return await self._deliver_then_settle(
                request, {"ok": True, "sha256": sha, "comments": len(stored), "state": "saved"}, decision
            )

    async def _approve(self, request: web.Request) -> web.StreamResponse:
        if not self.approve:
            return _error(403, "this review is comment-only; approve from the review that asked for it")
        if (refused := self._refuse_if_settled()) is not None:
            return refused
        body = await self._comments(request)
        if isinstance(body, web.StreamResponse):
            return body
        async with self._lock:
            if (refused := self._refuse_if_settled()) is not None:
                return refused
            # Written first: the approval seals the bytes on disk, comments included.
            saved = self._save(*body)
            if isinstance(saved, web.StreamResponse):
                return saved
            text, written, sha = saved
            from planview.approval.flow import take_back
            from planview.plan.canonical import canonical_sha256
            from planview.plan.decision import SavedComments

            shown = canonical_sha256(text)  # comments never change it: this is the text on the page
            wrote = SavedComments(text, sha) if written != text.encode("utf-8") else None
            try:
                assert self.on_approve is not None
                record = self.on_approve(self.plan, shown)
                if asyncio.iscoroutine(record) or isinstance(record, asyncio.Future):
                    record = await record
            except PlanviewError as exc:
                # Nothing was approved, so the comments that came with the approval go too.
                status = 409 if isinstance(exc, PlanChangedError) else 422
                reason = str(exc).rstrip(".")
                message = f"{reason}; {take_back(self.plan, wrote)}" if wrote is not None else str(exc)
                return _error(status, message, sha256=current_sha256(self.plan))
            except BaseException:
                if wrote is not None:
                    take_back(self.plan, wrote)
                raise
            decision = WebDecision(
                "approved",
                self.plan,
                comments=parse_feedback(written.decode("utf-8")),
                canonical_sha256=shown,
                file_sha256=sha,
                record=record,
                saved=wrote,
            )
            return await self._deliver_then_settle(
                request, {"ok": True, "sha256": sha, "canonical_sha256": shown, "state": "approved"}, decision
            )

    async def _cancel(self, request: web.Request) -> web.StreamResponse:
        async with self._lock:
            if (refused := self._refuse_if_settled()) is not None:
                return refused
            decision = WebDecision("closed", self.plan, reason="Back")
            return await self._deliver_then_settle(request, {"ok": True, "state": "closed"}, decision)


def _settled_json(decision: WebDecision) -> dict[str, str]:
    return {"outcome": decision.outcome, "reason": decision.reason}
