"""AcpSession: an external ACP agent behind planview's plan mode, review, ledger and hash pin.

Its turn is run by the agent instead of planview's own model loop; mode, approval, todos,
persistence and the execute-mode pin are `SessionBase`'s, the same code (and the same events) as
planview's own agent. What is new is the agent's side of each rule, layered because a client
cannot enforce read-only by itself:

1. put the agent in its own read-only mode and verify it took (refuse plan mode if it has none);
2. pass the agent's hard limits (profile: env, session/new `_meta`);
3. refuse `fs/write_text_file` (but the plan file) and every `terminal/create` but read-only git,
   and answer mutating permission requests with the agent's reject option, through
   `planview.gate.policy.decide`;
4. watch the project while it plans, from before the agent starts or opens its session: a write
   outside `.planview/` (or in its plans folder that is not a plan) cancels the turn and names it;
5. route its exit-plan request (or a plan file it wrote) to planview's review; approval seals and
   records first, then answers with the agent's allow option.

This module holds the turn: the prompts it sends (framed by prompts.py), the follow-ups a review
leaves, how it ends, and how the person stops it. The answers to what the agent asks meanwhile
(layers 3-5) are `AgentRequests` (requests.py); the agent process, its session and its mode
(layers 1-2) are `AgentLink` (link.py); stopping a turn is `TurnCancel` (cancel.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from planview.agents import prompts
from planview.agents.requests import AgentRequests
from planview.errors import PlanviewError
from planview.session.conversation import AssistantMessage, UserMessage


class AcpSession(AgentRequests):
    @property
    def init_response(self) -> Any:
        return self.agent.init_response

    async def connect(self) -> None:
        """Start the agent and initialize (once; later calls return at once), sandboxed while planning."""
        await self.agent.connect(planning=self.mode == "plan")

    async def start_servers(self) -> None:
        """planview's MCP servers serve planview's own agent; an ACP agent brings its own."""

    async def close(self) -> None:
        """Stop the MCP servers, the watcher, the agent's terminals and the agent process."""
        await super().close()
        if self._watcher is not None:
            await self._watcher.stop()
        await self._stop_plan_watch()
        if self._restart is not None:
            await self._restart
        await self._terminals.close()
        await self.agent.close()

    # ------------------------------------------------------------------ the turn

    async def _turn(self, text: str) -> None:
        self._stop.reset()
        self._follow_up, self._stop_message = None, None
        try:
            if self.mode == "plan":
                await self._watch()  # before the agent starts: its start-up writes are watched too
            await self.connect()
            self._append(UserMessage(text))
            prompt: str | None = text
            while prompt is not None:
                reason = await self._one_prompt(prompt)
                if self._breach or self._stop_message is not None:
                    break
                if reason == "cancelled" and self._stop.why != "handoff":
                    break
                self._stop.reset()
                prompt, self._follow_up = self._follow_up, None
            await self._finish()
        except asyncio.CancelledError:
            self._translator.close_open(cancelled=True)
            self._keep_text(" [cancelled]")
            if (
                self._stop.hard_stopped
            ):  # the agent ignored session/cancel: it is stopped, the next turn restarts it
                await self.close()
            if self._breach:
                if self._breach_report is not None:
                    await self._breach_report
            else:
                self._end("cancelled")
        except PlanviewError as exc:
            self._translator.close_open(cancelled=True)
            self._fail(str(exc))
        except Exception as exc:  # an agent or SDK bug must end the turn with a message, not kill the UI
            self._translator.close_open(cancelled=True)
            self._fail(f"the turn failed unexpectedly ({type(exc).__name__}: {exc}); send a message to retry")
        finally:
            self._stop.reset()
            self._breach, self._breach_report, self._stop.hard_stopped = (), None, False
            if self._watcher is not None:
                await self._watcher.stop()

    async def _one_prompt(self, text: str) -> str:
        self._plan_files, self._reviewed = [], False
        if self.mode == "plan":
            self._terminals.kill_running("execute")  # a command started before a revocation stops here
            await self._watch()  # before session/new, so what the agent writes while it opens one is seen
        await self.agent.fit_process(planning=self.mode == "plan")
        await self.agent.ensure_session(planning=self.mode == "plan")
        if self.mode == "plan":
            await self.agent.plan_mode()
            if self._watcher is not None:
                await self._watcher.settle()  # what it wrote while it started has come through
        else:
            await self.agent.execute_mode()
        if self._breach:
            return "cancelled"  # the agent wrote while it started: the prompt is not sent
        if self.mode == "execute":
            await self._watch_plan()
        try:
            told, self._untold = self._untold, []
            framed = self._framed(text)
            response = await self._prompt_unless_revoked(
                prompts.refusals_told(told) + framed if told else framed
            )
        finally:
            await self._stop_plan_watch()
        reason = "cancelled" if self._stop.requested or response is None else response.stop_reason
        if self._watcher is not None:
            await self._watcher.stop()
        self._translator.close_open(cancelled=reason == "cancelled")
        self._keep_text()
        if reason != "cancelled" and self.mode == "plan" and not self._reviewed and self._plan_files:
            await self._review_written_plan()
        return reason

    async def _prompt_unless_revoked(self, text: str) -> Any:
        """session/prompt, abandoned (None) the moment the approved plan changes under the agent:
        its process is then killed and restarted sandboxed (requests.py), so no answer will come."""
        prompt = asyncio.ensure_future(self.agent.prompt(text))
        revoked = asyncio.ensure_future(self._revoked.wait())
        try:
            await asyncio.wait({prompt, revoked}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            revoked.cancel()
        if prompt.done():
            return prompt.result()
        prompt.cancel()
        with contextlib.suppress(BaseException):
            await prompt
        if self._restart is not None:
            await self._restart  # the sandboxed process is up before the turn ends
        return None

    def _framed(self, text: str) -> str:
        """What the agent is sent: planview's plan-mode rules while planning; the plan on a fresh session."""
        rel = self.relative(self.plan_path) if self.plan_path else None
        if self.mode == "plan":
            return prompts.plan_preamble(self.relative(self.store.plans_dir), rel) + text
        if self.agent.fresh and self.approval is not None and self.plan_path is not None:
            try:
                plan = self.store.read(self.plan_path)
            except PlanviewError:
                return text
            return prompts.with_approved_plan(self.relative(self.plan_path), plan, text)
        return text

    def _keep_text(self, suffix: str = "") -> None:
        text = self._translator.take_text()
        if text:
            self._append(AssistantMessage(text + suffix))

    async def _finish(self) -> None:
        if self._breach:
            if self._breach_report is not None:
                await self._breach_report  # it ends the turn, naming the files
            return
        if self._stop_message is not None:
            message, self._stop_message = self._stop_message, None
            self._end("review", message)
        elif self._stop.requested:
            self._end("cancelled")
        else:
            self._end("done")

    def cancel(self) -> None:
        """Esc: session/cancel to the agent, `cancelled` to every pending permission; a hard stop if it hangs."""
        if self.busy:
            self._stop.request("user")


__all__ = ["AcpSession", "build"]


def build(
    spec: str,
    *,
    project_root: Path,
    ui: Any = None,
    on_event: Callable[[Any], None] | None = None,
    plan_mode: bool = False,
    resume: str | None = None,
    **kwargs: Any,
) -> AcpSession:
    """An AcpSession for `--agent spec` (the binary checked now, so a missing one is one line)."""
    from planview.agents.profiles import require_installed, resolve_agent

    profile = require_installed(resolve_agent(spec))
    common = {
        "project_root": project_root,
        "ui": ui,
        "on_event": on_event,
        "profile": profile,
        "spec": spec,
        **kwargs,
    }
    if resume is not None:
        return AcpSession.resume(resume or None, plan_mode=plan_mode, **common)
    return AcpSession(plan_mode=plan_mode, **common)
