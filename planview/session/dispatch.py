"""One tool call, start to finish: the gate, the arguments, the hash pin, the tool, the events.

A refused call returns the reason to the model as the tool result, never an exception; a tool
that fails returns its error the same way. Only cancellation propagates.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from planview.errors import PlanviewError
from planview.session.events import ToolFinished, ToolStarted
from planview.session.providers.base import ModelToolCall
from planview.session.tools import ToolContext, ToolResult, headline, validate

if TYPE_CHECKING:
    from planview.session.session import Session


async def run_call(session: Session, call: ModelToolCall) -> ToolResult:
    from planview.gate import ToolCall, decide

    args = dict(call.arguments)
    session._emit(ToolStarted(call.id, call.name, args, headline(call.name, args)))
    if call.invalid:
        return refuse(
            session, call, f"malformed tool call: {call.invalid}; send the arguments as a JSON object"
        )
    tool = session.tools.get(call.name)
    if tool is None and session.mcp:
        mcp_tool = session.mcp.find(call.name)
        if mcp_tool is not None:
            from planview.session.mcp.calls import run_mcp_call

            return await run_mcp_call(session, call, mcp_tool, args)
    if tool is None:  # nothing to run, so nothing for the gate to weigh: name what exists instead
        offered = ", ".join(schema.name for schema in session.tool_schemas())
        return finish(
            session,
            call,
            ToolResult(
                f"unknown tool {call.name!r}; available in {session.mode} mode: {offered}", error=True
            ),
        )
    decision = decide(
        ToolCall(call.name, args, builtin=True, input_schema=tool.parameters),
        session.mode,
        session.policy,
    )
    if not decision.allowed:
        return refuse(session, call, decision.reason)
    args = dict(decision.call.input)
    problem = validate(tool.parameters, args)
    if problem:
        return finish(session, call, ToolResult(f"{call.name}: {problem}", error=True))
    if tool.mutating and session.mode == "execute":
        pinned = check_pin(session)
        if pinned is not None:
            return refuse(session, call, pinned)
    try:
        result = await tool.run(ToolContext(session.project_root, session, call.id), args)
    except asyncio.CancelledError:
        session._emit(ToolFinished(call.id, call.name, "cancelled by the user", False, None, True))
        raise
    except PlanviewError as exc:
        result = ToolResult(str(exc), error=True)
    except OSError as exc:
        result = ToolResult(f"{call.name} failed: {exc.strerror or exc}", error=True)
    except Exception as exc:  # a tool bug must not end the session; the model sees it
        result = ToolResult(f"{call.name} failed unexpectedly: {type(exc).__name__}: {exc}", error=True)
    return finish(session, call, result)


def refuse(session: Session, call: ModelToolCall, reason: str) -> ToolResult:
    text = reason if reason.lower().startswith("refused") else f"Refused: {reason}"
    session._emit(ToolFinished(call.id, call.name, text, True, reason, False))
    return ToolResult(text, error=True)


def finish(session: Session, call: ModelToolCall, result: ToolResult) -> ToolResult:
    session._emit(ToolFinished(call.id, call.name, result.text, False, None, result.error))
    return result


def check_pin(session: Session) -> str | None:
    """The hash pin: None while the approval is current, else the refusal (and back to planning)."""
    change = revoke_if_changed(session)
    if change is None:
        return None
    return (
        f"Refused: {change}. Nothing was run. The session is back in plan mode: review the change, then "
        "call exit_plan_mode to get the plan approved again before any write."
    )


def revoke_if_changed(session: Session) -> str | None:
    """None while the approval holds; else drop it (the session plans again) and say what changed."""
    if session.approval is None or session.plan_path is None:
        return None
    path = session.plan_path
    detail = "it no longer matches the approval"
    sections: tuple[str, ...] = ()
    try:
        # One ledger read in the common case (still current); the revocation only when it is not.
        if session.approvals.status(path).state == "approved":
            return None
        revocation = session.approvals.check_and_revoke(path)
        if revocation is not None:
            sections = tuple(revocation.changed_sections)
            detail = f"changed sections: {', '.join(sections)}" if sections else revocation.reason
    except PlanviewError as exc:  # fail closed: an approval that cannot be checked does not hold
        detail = f"it could not be checked: {exc}"
    session._revert_to_plan(sections, f"plan changed after approval: {', '.join(sections) or detail}")
    return f"the approved plan {session.relative(path)} changed after approval ({detail})"
