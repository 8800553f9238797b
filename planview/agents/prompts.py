"""Every word planview adds to what an ACP agent is told: the plan-mode rules, the approved plan,
the review's feedback, the hand-offs between them (pure).

planview's own model gets its rules as a hidden note and an evidence packet (session/lifecycle.py);
an external agent has its own system prompt, so planview frames the user's message instead. Kept in
one place so the agent hears the same rule in the same words whichever path sent it.
"""

from __future__ import annotations

from planview.session.lifecycle import OUTLINE

CARRY_OUT = "Carry out the approved plan."  # the first prompt of the fresh session a hand-off opens


def plan_preamble(plans_rel: str, plan_rel: str | None) -> str:
    """Put before every message while planning: read-only, the one file it may write, the outline."""
    where = f" (revise {plan_rel})" if plan_rel else ""
    return (
        "[planview plan mode] You are planning: the project is read-only for you until the user approves "
        "a plan. Explore and read; do not edit files or run commands that change anything (planview "
        "refuses them and cancels the turn if a file changes).\n"
        f"When the plan is ready, present it for approval with your exit-plan-mode tool, or write it as "
        f"Markdown to {plans_rel}/<short-name>.md{where} — the one file you may write — and stop.\n"
        f"Outline:\n{OUTLINE}\n\n"
    )


def with_approved_plan(plan_rel: str, plan: str, text: str) -> str:
    """The first message of an agent session that executes an approved plan: the plan itself."""
    return f"The user approved this plan ({plan_rel}); carry it out step by step.\n\n{plan}\n\n{text}"


def feedback(plan_rel: str, text: str) -> str:
    """The review asked for changes: the agent keeps planning with the person's words."""
    return (
        f"The user reviewed the plan {plan_rel} and asked for changes; you are still planning.\n"
        f"Feedback:\n{text.strip()}\nRevise the plan and present it again."
    )


def written_plan_approved(plan_rel: str) -> str:
    """The plan the agent wrote to a file was approved as the turn ended."""
    return f"The user approved the plan {plan_rel}. Carry it out step by step."


def with_note(prompt: str, note: str | None) -> str:
    """`prompt` followed by what the person said with the approval (the review's `a` line)."""
    return f"{prompt}\nThe reviewer's note with the approval: {note}" if note else prompt


def resumed_approval(plan_rel: str, approver: str, artifact: str) -> str:
    """A resumed session pinned to an approval (the agent gets the plan with its next message)."""
    return f"The plan {plan_rel} was approved by {approver} ({artifact}); follow its steps in order."


def refusals_told(refusals: list[str]) -> str:
    """Put before the next prompt after planview refused permissions: an ACP permission answer carries
    no reason, so an agent that ended its turn on a refusal never heard why."""
    # Seen with opencode 1.18: it ends the whole turn at the first refused permission.
    lines = "\n".join(f"- {item}" for item in refusals)
    return (
        "[planview] In your last turn planview refused these requests; the answer you got carried no "
        f"reason, so here it is:\n{lines}\n\n"
    )
