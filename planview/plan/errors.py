"""The plan store's errors: each says what to do next (the CLI prints it as one line, exit 2)."""

from __future__ import annotations

from planview.errors import PlanviewError


class PlanStoreError(PlanviewError):
    """Base of the store's errors (also: the disk refused a write)."""


class PlanPathError(PlanStoreError):
    """The path is not a writable plan: outside the folder, not .md, a dotfile, a symlink, ..."""


class PlanNotFoundError(PlanStoreError):
    """No plan file at that path."""


class PlanTooLargeError(PlanStoreError):
    """The plan is over MAX_PLAN_BYTES."""


class PlanTitleError(PlanStoreError):
    """The plan title is blank."""


class PlanContentError(PlanStoreError):
    """The plan content is empty or not valid Unicode text."""


class PlanReadError(PlanStoreError):
    """The file exists but cannot be read as a UTF-8 plan (a folder, no permission, not UTF-8)."""


class PlanChangedError(PlanStoreError):
    """The plan on disk is no longer the version a write was based on (a stale view)."""
