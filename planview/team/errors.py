"""Typed errors of the team layer; each message names the fix."""

from __future__ import annotations

from planview.errors import PlanviewError


class TeamError(PlanviewError):
    """A team operation cannot go on (no git repository, no key, a malformed policy, ...)."""


class PolicyError(TeamError):
    """`.planview/policy.toml` or `.planview/allowed_signers` is malformed; the message names the line."""


class SigningError(TeamError):
    """ssh-keygen could not sign the approval (no key, a refused agent, a wrong passphrase)."""
