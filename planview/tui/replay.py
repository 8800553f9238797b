"""Show a resumed session's conversation in the transcript (newest messages only)."""

from __future__ import annotations

from collections.abc import Sequence

from planview.session.conversation import AssistantMessage, Message, ToolMessage, UserMessage
from planview.tui.widgets.transcript import Transcript

REPLAY_MESSAGES = 200


def replay_conversation(
    transcript: Transcript, conversation: Sequence[Message], limit: int = REPLAY_MESSAGES
) -> int:
    """Render the last `limit` messages: user prompts, assistant text, tool rows with their results.

    A tool row replays as it ended: refused (✗), failed or done, from the flags the record kept.
    Hidden runtime messages (the plan-mode note, the evidence packet) carry a `kind` and are skipped.
    Returns the number of messages shown.
    """
    from planview.session.tools.registry import headline

    shown = 0
    names: dict[str, str] = {}
    for message in list(conversation)[-limit:]:
        if isinstance(message, UserMessage):
            if message.kind:
                continue
            transcript.add_user(message.content)
        elif isinstance(message, AssistantMessage):
            if message.content.strip():
                transcript.append_text(message.content)
                transcript.end_message()
            for call in message.tool_calls:
                names[call.id] = call.name
                transcript.tool_started(call.id, call.name, headline(call.name, call.arguments))
        elif isinstance(message, ToolMessage):
            transcript.tool_finished(
                message.tool_call_id,
                names.get(message.tool_call_id, message.name),
                message.content,
                refused=message.refused,
                reason=message.content if message.refused else None,
                error=message.error,
            )
        else:
            continue
        shown += 1
    return shown
