"""The agent as planview drives it: its process, the ACP session it works in, and its own mode.

`AgentConnection` (connection.py) speaks the protocol; this holds what planview decided about it:

- which agent session is open, and whether it was opened with the profile's plan-only hard limits
  (session/new `_meta`). Limits are fixed when a session opens, so a session whose limits do not
  fit the mode, or one a hand-off asked to replace, is swapped for a fresh one before a prompt;
- on resume, the agent session the saved planview session last used, reopened with session/load
  when the agent can (so it keeps its own context); its replayed history is not shown again;
- the agent's own mode, switched to its read-only mode while planview plans and out of it when
  planview executes - and verified: the config option's answer, or a mode update naming it. An
  agent whose mode cannot be confirmed is refused plan mode (PlanModeUnavailableError).

It knows nothing of planview's mode machine, plans or approvals: the session says what it wants.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planview.agents.client import ClientHandler, PlanviewClient
from planview.agents.connection import AgentConnection
from planview.agents.errors import PlanModeUnavailableError
from planview.agents.modes import AgentModes, ModeTarget
from planview.agents.profiles import AgentProfile, builtin_names
from planview.errors import PlanviewError

MODE_CONFIRM_TIMEOUT = 1.0  # how long a set_mode waits for the agent's mode update


@dataclass(frozen=True)
class SavedAgentSession:
    """The agent session a saved planview session last used (from its provider snapshot)."""

    id: str
    limited: bool  # opened with the plan-only hard limits

    @classmethod
    def from_snapshot(cls, snapshot: Any) -> SavedAgentSession | None:
        if not isinstance(snapshot, dict):
            return None
        found, limited = snapshot.get("agent_session"), snapshot.get("limited")
        if not isinstance(found, str) or not found or not isinstance(limited, bool):
            return None
        return cls(found, limited)


class AgentLink:
    def __init__(
        self,
        profile: AgentProfile,
        project_root: Path,
        stderr_path: Path,
        handler: ClientHandler,
        env: Mapping[str, str] | None = None,  # the agent process's environment (the session's tool_env)
        plans_dir: Path | None = None,  # what the agent profile lets a planning agent write
    ) -> None:
        self.profile = profile
        self._session_ids: set[str] = set()  # the client answers only the sessions opened here
        self._agent = AgentConnection(
            profile, project_root, stderr_path, PlanviewClient(handler, self._session_ids), env, plans_dir
        )
        self.session_id: str | None = None
        self._limited = False  # the agent session was opened with the plan-only hard limits
        self.fresh = True  # the agent session has seen no prompt yet
        self.replace_session = False  # open a new agent session (without the limits) for the next prompt
        self.modes = AgentModes(None, ())
        self.mode: str | None = None  # the agent's current mode, as it last reported it
        self._mode_event = asyncio.Event()
        self.saved: SavedAgentSession | None = None  # what a resumed planview session last used
        self.replaying = False  # session/load is replaying history: its updates are not news
        self.loaded: str | None = None  # the agent session reopened by session/load, if one was

    def snapshot(self) -> dict[str, Any]:
        """What a resume needs to reopen this agent session (empty until one is open)."""
        if self.session_id is None:
            return {}
        return {"agent_session": self.session_id, "limited": self._limited}

    # ------------------------------------------------------------------ process and session

    @property
    def open(self) -> bool:
        return self._agent.open

    @property
    def init_response(self) -> Any:
        return self._agent.init_response

    @property
    def sandboxed(self) -> bool:
        """The agent process runs under the agent profile (it can write only its plans and state)."""
        return self._agent.open and self._agent.sandboxed

    async def connect(self, planning: bool = False) -> None:
        """Start the agent and initialize (once; later calls return at once) - under the agent
        profile when it starts for planning on a machine with Landlock."""
        if not self._agent.open:
            from planview.agents.confine import sandboxed

            await self._agent.start(sandboxed=planning and sandboxed())

    async def fit_process(self, planning: bool) -> bool:
        """A process that fits the mode: a planning agent runs sandboxed, an executing one does not.
        Landlock cannot be lifted, so a process that does not fit is replaced, and the conversation
        carried over (session/load when the agent offers it, else a fresh session that is sent the
        approved plan with its first prompt). True when the process was replaced."""
        from planview.agents.confine import sandboxed

        wanted = planning and sandboxed()
        if not self._agent.open:
            await self._agent.start(sandboxed=wanted)
            return False
        if self._agent.sandboxed == wanted:
            return False
        await self.restart(sandboxed=wanted)
        return True

    async def restart(self, *, sandboxed: bool, kill: bool = False) -> None:
        """A new agent process (`kill`: the old one is killed at once, not asked to stop), reopening
        the current agent session in it when it can."""
        carried = SavedAgentSession(self.session_id, self._limited) if self.session_id else None
        if kill:
            self._agent.kill()
        await self._agent.close()
        self.session_id, self.modes, self.mode = None, AgentModes(None, ()), None
        self.saved = carried
        await self._agent.start(sandboxed=sandboxed)

    async def ensure_session(self, planning: bool) -> None:
        """An agent session whose hard limits fit the mode (limits are fixed when a session opens)."""
        wants_limits = planning and bool(self.profile.session_meta)
        if self.session_id is None and self.saved is not None:
            saved, self.saved = self.saved, None
            # A session opened with the plan-only limits is never reopened: the limits are given at
            # session/new, and whether an agent keeps them on load is not something planview can check.
            if not saved.limited and not wants_limits and self._can_load() and await self._load(saved.id):
                return
        if self.session_id is None or self.replace_session or wants_limits != self._limited:
            self.replace_session = False
            response = await self._agent.new_session(dict(self.profile.session_meta) if wants_limits else {})
            self.session_id = response.session_id
            self._session_ids.add(response.session_id)
            self._limited, self.fresh = wants_limits, True
            self.modes = AgentModes.from_response(response.modes, response.config_options)
            self.mode = self.modes.current

    def _can_load(self) -> bool:
        capabilities = getattr(self._agent.init_response, "agent_capabilities", None)
        return bool(getattr(capabilities, "load_session", False))

    async def _load(self, session_id: str) -> bool:
        """Reopen a saved agent session; False (a fresh one is opened instead) when the agent refuses."""
        self._session_ids.add(session_id)
        self.replaying = True
        try:
            response = await self._agent.load_session(session_id)
        except PlanviewError:
            self._session_ids.discard(session_id)
            return False
        finally:
            self.replaying = False
        self.session_id, self.loaded = session_id, session_id
        # Its history is back, but the approved plan is still sent with the first prompt (fresh): the
        # person may have changed the plan in the review since the agent wrote it.
        self._limited, self.fresh = False, True
        self.modes = AgentModes.from_response(
            getattr(response, "modes", None), getattr(response, "config_options", None)
        )
        self.mode = self.modes.current
        return True

    async def prompt(self, text: str) -> Any:
        assert self.session_id is not None
        self.fresh = False
        return await self._agent.prompt(self.session_id, text)

    def cancel_soon(self) -> None:
        """session/cancel, sent after the permission answer that asked for it."""
        if self.session_id is not None:
            self._agent.cancel_soon(self.session_id)

    async def close(self) -> None:
        await self._agent.close()

    # ------------------------------------------------------------------ the agent's mode

    def mode_reported(self, mode: str) -> None:
        """The agent said which mode it is in (a session/update)."""
        self.mode = mode
        self._mode_event.set()

    async def _switch(self, target: ModeTarget) -> None:
        """Switch the agent and verify: the config option's answer, or a mode update that names it."""
        if self.mode == target.value:
            return
        assert self.session_id is not None
        self._mode_event.clear()
        if target.via == "config":
            response = await self._agent.set_config_option(self.session_id, target.config_id, target.value)
            reported = AgentModes.from_response(None, getattr(response, "config_options", None)).current
            if reported is not None:
                self.mode = reported
        else:
            await self._agent.set_mode(self.session_id, target.value)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._mode_event.wait(), MODE_CONFIRM_TIMEOUT)
            if not self._mode_event.is_set():
                self.mode = target.value  # answered without an update: its answer is the word we have
        if self.mode != target.value:
            raise PlanModeUnavailableError(
                f"{self.profile.short_name} was asked for its {target.name!r} mode but reports {self.mode!r}; "
                "planview does not start plan mode on an agent whose mode it cannot confirm"
            )

    async def plan_mode(self) -> None:
        """Into the agent's own read-only mode; PlanModeUnavailableError when it has none."""
        target = self.modes.find(self.profile.plan_modes)
        if target is None:
            offered = self.modes.listing() or "no modes at all"
            raise PlanModeUnavailableError(
                f"{self.profile.short_name} has no plan or read-only mode (it offers {offered}), so planview cannot "
                "keep it read-only while it plans; run without --plan, or use an agent with a plan mode "
                f"({builtin_names(plan_mode=True)})"
            )
        await self._switch(target)

    async def execute_mode(self) -> None:
        """Out of the agent's read-only mode when planview is executing (after approval or /plan off)."""
        plan_ids = {t.value for t in (self.modes.find([m]) for m in self.profile.plan_modes) if t}
        target = self.modes.find(self.profile.execute_modes)
        if self.mode in plan_ids and target is not None:
            await self._switch(target)

    def leave_plan_mode_soon(self) -> None:
        """After an allowed exit-plan request most agents switch mode themselves; one that stays in its
        read-only mode is moved out of it (in the background), so it can carry out the plan."""

        async def move() -> None:
            with contextlib.suppress(PlanviewError):
                await self.execute_mode()

        if self._agent.open:
            task = asyncio.get_running_loop().create_task(move())
            task.add_done_callback(lambda t: t.cancelled() or t.exception())
