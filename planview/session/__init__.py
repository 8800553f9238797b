"""planview.session: the agent runtime (events, tools, providers, the plan-mode lifecycle, persistence).

No textual here: a UI consumes events and answers review / confirmation requests.
"""

from __future__ import annotations

from planview.session.base import SessionBusyError
from planview.session.events import (
    ConfirmationRequested,
    ErrorEvent,
    Event,
    McpNotice,
    Mode,
    ModeChanged,
    PlanWritten,
    ReviewRequested,
    SubagentEvent,
    TextDelta,
    Todo,
    TodosChanged,
    ToolFinished,
    ToolStarted,
    TurnEnded,
)
from planview.session.providers import make_provider
from planview.session.session import Session
from planview.session.ui import ReviewRequest, SessionUI

__all__ = [
    "ConfirmationRequested",
    "ErrorEvent",
    "Event",
    "McpNotice",
    "Mode",
    "ModeChanged",
    "PlanWritten",
    "ReviewRequest",
    "ReviewRequested",
    "Session",
    "SessionBusyError",
    "SessionUI",
    "SubagentEvent",
    "TextDelta",
    "Todo",
    "TodosChanged",
    "ToolFinished",
    "ToolStarted",
    "TurnEnded",
    "make_provider",
]
