"""Typed errors of the ACP layer; each message names the fix."""

from __future__ import annotations

from planview.errors import PlanviewError


class AgentError(PlanviewError):
    """Something about the external agent stops the session."""


class AgentConfigError(AgentError):
    """--agent or [agent] command cannot be used as given."""


class AgentNotInstalledError(AgentError):
    """The agent's program is not on PATH."""


class AgentStartError(AgentError):
    """The agent did not start or did not speak ACP."""


class PlanModeUnavailableError(AgentError):
    """The agent offers no read-only mode, or did not confirm switching to it."""
