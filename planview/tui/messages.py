"""Textual messages of the session app.

Session events arrive from the runtime through a plain callback and are posted to the app as
`SessionEventMessage`s, so every widget update happens in the message loop. Review and confirmation
requests carry an asyncio Future the UI resolves; the runtime awaits it and never knows which UI
answered (Toad's permission-prompt pattern).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class SessionEventMessage(Message):
    """One event emitted by the session runtime (planview.session.events)."""

    event: Any


@dataclass
class ReviewRequested(Message):
    """The model called exit_plan_mode: open the review screen, resolve with a ReviewDecision."""

    request: Any  # planview.session.ui.ReviewRequest
    future: asyncio.Future


@dataclass
class ConfirmRequested(Message):
    """The runtime asks a yes/no question (enter_plan_mode); resolve with a bool."""

    title: str
    message: str
    future: asyncio.Future


@dataclass
class PromptSubmitted(Message):
    """The user pressed Enter in the prompt."""

    text: str


@dataclass
class CancelRequested(Message):
    """The user pressed Esc in the prompt: stop the running turn."""
