"""The plan-mode control tools: enter_plan_mode, write_plan, exit_plan_mode, set_plan_steps."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planview.plan.decision import Approved, Refine
from planview.session import lifecycle
from planview.session.todos import TODO_CAP
from planview.session.tools.base import ToolContext, ToolDef, ToolError, ToolResult, schema

STEP_DISPLAY_CAP = 200
REVIEW_ATTEMPTS = 3  # re-requests when the plan changes on disk while it is being reviewed

STEP_STATUSES = ("pending", "in_progress", "completed")  # what set_plan_steps may set


def _steps(text: str):
    from planview.plan.steps import extract_steps

    return extract_steps(text)


# ---------------------------------------------------------------- enter_plan_mode


async def enter_plan_mode(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    session = ctx.host
    if session.mode == "plan":
        return ToolResult("Plan mode is already on.")
    answer = await session.ask_confirm(
        "Enter plan mode?",
        "The agent asks to plan first: it will explore read-only and write a plan for your review "
        "before changing anything.",
    )
    if answer is None:
        return ToolResult(
            "No UI is attached to confirm plan mode; continue in execute mode "
            "(the user can start a planning session with `planview run --plan`).",
            error=True,
        )
    if not answer:
        return ToolResult("The user declined plan mode; continue in execute mode.")
    session.enter_plan_mode(note="the agent asked to plan; the user agreed")
    return ToolResult(
        "Plan mode enabled: the project is read-only. Explore, save a plan with write_plan, "
        "then call exit_plan_mode for review."
    )


# ---------------------------------------------------------------- write_plan


def _planning_only(ctx: ToolContext, name: str) -> None:
    # The gate lets every call through in execute mode; these two only make sense while planning
    # (a new plan in execute mode would sit beside the pinned one, unreviewed).
    if ctx.host.mode != "plan":
        raise ToolError(
            f"{name} works in plan mode; you are executing an approved plan. To plan a change first, "
            "call enter_plan_mode (the user confirms)"
        )


async def write_plan(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    session = ctx.host
    _planning_only(ctx, "write_plan")
    title, content = str(args.get("title") or ""), args.get("content")
    if not isinstance(content, str) or not content.strip():
        raise ToolError("`content` must be the whole plan as Markdown")
    plan_path = args.get("plan_path") or None
    written = session.store.write(title, content, plan_path)  # PlanPathError etc. -> the model sees the fix
    session.note_plan_written(written.path, written.bytes)
    rel = session.relative(written.path)
    lines = [f"Saved plan {rel} ({written.bytes:,} bytes)."]
    steps = _steps(content)
    if steps.source == "none" or not steps.steps:
        lines.append(
            "No steps found: list them as `- [ ]` items under `## Steps` so approval can seed the todo list."
        )
    elif steps.source == "shallowest_list":
        lines.append("No `## Steps` section: approval will take the shallowest list as the steps.")
    if len(steps.steps) > TODO_CAP:
        lines.append(
            f"The plan has {len(steps.steps)} steps; approval seeds the first {TODO_CAP} into the todo list "
            "and defers the rest (the plan file keeps them all)."
        )
    long = [s.index for s in steps.steps if len(s.text) > STEP_DISPLAY_CAP]
    if long:
        lines.append(
            f"Step(s) {', '.join(map(str, long))} are longer than {STEP_DISPLAY_CAP} characters; the todo list "
            "shows them shortened, the plan keeps the full text."
        )
    lines.append(
        f'When it is ready, call exit_plan_mode (to revise it first: write_plan with plan_path="{rel}").'
    )
    return ToolResult("\n".join(lines))


# ---------------------------------------------------------------- exit_plan_mode


async def exit_plan_mode(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    session = ctx.host
    _planning_only(ctx, "exit_plan_mode")
    requested = args.get("plan_path") or session.plan_path
    if requested is None:
        raise ToolError(
            "no plan written in this session yet; save one with write_plan, then call exit_plan_mode"
        )
    path = session.store.check_path(requested)
    text = session.store.read(path)
    if not text.strip():
        raise ToolError(f"{session.relative(path)} is empty; write the plan with write_plan first")
    session.note_plan_path(path)
    rel = session.relative(path)
    if not session.has_ui:
        session.request_review_without_ui(path, text)
        return ToolResult(
            f"No review UI is attached, so the plan cannot be approved here. The plan is saved at {rel}. "
            f"The user approves it with `planview approve {rel}` and continues with `planview run --resume`. "
            "Stop here and wait for the user.",
            error=True,
            stop_turn="review",
        )
    for _ in range(REVIEW_ATTEMPTS):
        decision = await session.review(path, text)
        if isinstance(decision, Approved):
            if Path(decision.plan).resolve() != path.resolve():
                raise ToolError(f"the review approved {decision.plan}, not {rel}; call exit_plan_mode again")
            current = session.store.read(path)
            from planview.plan.canonical import canonical_sha256  # Markdown: only when a review ends

            if canonical_sha256(current) == decision.canonical_sha256:
                return _approved(ctx, path, current, decision)
            text = current  # changed on disk while shown: ask again with what is there now
            continue
        if isinstance(decision, Refine):
            return ToolResult(
                f"The user asked for changes to {rel}; you are still in plan mode.\n"
                f"Feedback:\n{decision.text.strip()}\n"
                f'Revise the same file with write_plan(plan_path="{rel}", ...) and call exit_plan_mode again.'
            )
        return ToolResult(
            f"The plan was not approved; you are still in plan mode. {rel} is unchanged. "
            "Ask the user what to change, or keep exploring and refine it."
        )
    return ToolResult(
        f"{rel} kept changing on disk during the review, so nothing was approved; you are still in plan mode. "
        "Call exit_plan_mode again once the plan is settled.",
        error=True,
    )


def _approved(ctx: ToolContext, path: Path, text: str, decision: Approved) -> ToolResult:
    session = ctx.host
    record = session.approve_reviewed(path, decision).record  # the one approval flow; pins the session
    assert record is not None
    steps = _steps(text).steps
    merge = session.seed_steps(steps)
    rel = session.relative(path)
    parts = [
        f"Plan approved: {rel} (canonical sha256 {record.canonical_sha256[:12]}…, {record.artifact}, "
        f"approved by {record.approver}). You are in execute mode; write tools are unlocked.",
        "The plan file is the source of truth: follow its steps in order, tick each with set_plan_steps "
        "(pass the step's text as `expected`) and keep the todo list current. Changing the plan's text "
        "returns the session to plan mode for re-approval.",
        "Steps:",
        lifecycle.steps_listing(steps),
    ]
    if decision.note:  # what the person said with the approval (the review's `a` line)
        parts.insert(1, f"The reviewer's note with the approval: {decision.note}")
    seeded = [f"{len(merge.added)} step(s) added to the todo list"]
    if merge.skipped:
        seeded.append(f"{len(merge.skipped)} already listed")
    if merge.deferred:
        seeded.append(f"{len(merge.deferred)} deferred by the {TODO_CAP}-item cap (still in the plan file)")
    parts.append("Todo: " + ", ".join(seeded) + ".")
    return ToolResult("\n".join(parts))


# ---------------------------------------------------------------- set_plan_steps


async def set_plan_steps(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    session = ctx.host
    updates = args.get("updates")
    if not isinstance(updates, list) or not updates:
        raise ToolError("`updates` must list one or more {step, status, expected?} objects")
    for i, u in enumerate(updates, 1):
        if (
            not isinstance(u, Mapping)
            or not isinstance(u.get("step"), int)
            or u.get("status") not in STEP_STATUSES
        ):
            raise ToolError(
                f"update {i}: needs `step` (1-based number) and `status` (pending, in_progress or completed)"
            )
    path = session.active_plan()
    if path is None:
        raise ToolError("no approved plan in this session; set_plan_steps keeps an approved plan current")
    new_text = session.store.set_steps(path, [dict(u) for u in updates])  # all-or-nothing
    steps = _steps(new_text).steps
    done = []
    for u in updates:
        step = steps[u["step"] - 1] if 0 < u["step"] <= len(steps) else None
        if step is not None:
            session.mark_step(step.display, u["status"])
            done.append(f"step {u['step']} {u['status']}")
    finished = sum(1 for s in steps if s.completed)
    return ToolResult(
        f"Updated {session.relative(path)}: {', '.join(done)}. Progress: {finished}/{len(steps)} steps done."
    )


OUTLINE_DESCRIPTION = (
    "Save the plan (plan mode's only write). Pass `title` (it names the file) and `content`: the whole plan "
    "as Markdown in this outline —\n"
    + lifecycle.OUTLINE
    + "\nThe outline is guidance; any Markdown is stored as "
    "written. To revise a plan after feedback, pass its `plan_path` to overwrite the same file. Returns the "
    "path and byte count."
)

TOOLS = (
    ToolDef(
        "enter_plan_mode",
        "Ask the user to switch to plan mode before a non-trivial change: you explore read-only and write a "
        "plan for review. The user confirms or declines.",
        schema({}),
        enter_plan_mode,
        lambda a: "enter_plan_mode requested plan mode",
    ),
    ToolDef(
        "write_plan",
        OUTLINE_DESCRIPTION,
        schema(
            {
                "title": {"type": "string", "description": "short title; becomes the file-name slug"},
                "content": {"type": "string", "description": "the full plan in Markdown"},
                "plan_path": {"type": "string", "description": "an existing plan to overwrite (refinements)"},
            },
            ("title", "content"),
        ),
        write_plan,
        lambda a: f"write_plan {a.get('title', '')}",
    ),
    ToolDef(
        "exit_plan_mode",
        "Submit the plan for the user's review. They approve (execute mode, steps become todos), ask for "
        "changes (you get their feedback and stay in plan mode) or keep planning. `plan_path` defaults to "
        "the plan you saved last.",
        schema(
            {"plan_path": {"type": "string", "description": "the plan to submit (default: your last plan)"}}
        ),
        exit_plan_mode,
        lambda a: "exit_plan_mode submitted a plan",
    ),
    ToolDef(
        "set_plan_steps",
        "Keep the approved plan current: set the checkboxes of the given top-level steps (1-based, in the "
        "order the approval listed) to completed, in_progress or pending, in one all-or-nothing write. Pass the step's "
        "text as `expected` so a renumbered plan is refused instead of ticking the wrong line.",
        schema(
            {
                "updates": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "integer"},
                            "status": {"type": "string", "enum": list(STEP_STATUSES)},
                            "expected": {"type": "string"},
                        },
                        "required": ["step", "status"],
                    },
                }
            },
            ("updates",),
        ),
        set_plan_steps,
        lambda a: (
            "set_plan_steps "
            + ", ".join(
                f"{u.get('step')}→{u.get('status')}" for u in a.get("updates") or () if isinstance(u, Mapping)
            )
        ),
        mutating=True,
    ),
)
