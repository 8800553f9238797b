"""The sandbox's typed errors: each message names what to do next."""

from __future__ import annotations

from planview.errors import PlanviewError


class SandboxError(PlanviewError):
    """The sandbox could not be set up as asked."""


class SandboxUnavailable(SandboxError):
    """This kernel (or this process) offers no Landlock: plan mode runs on lists alone."""


class SandboxRequired(SandboxError):
    """`[sandbox] require = true` and the kernel offers no sandbox: plan mode is refused."""
