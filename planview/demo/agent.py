"""The demo's scripted agent: `script.jsonl` replayed, with one scripted revision.

The turn after the first review is a scripted revision: a refinement (`r` on the review screen) gets
it — the agent rewrites two sections of the same plan file and asks for review again, so the
re-review marks them — and an approval skips it. When the reviewer keeps planning, or asks for a
second refinement, the agent says it cannot act on that and rewinds to its `exit_plan_mode` turn, so
the next message brings the plan back for review rather than running execute-mode steps that plan
mode would refuse.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from planview.session.providers.scripted import ScriptedProvider

SCRIPT = Path(__file__).resolve().parent / "script.jsonl"
# What the demo suggests typing; the scripted agent works on this task whatever is sent.
DEMO_TASK = "/plan add a --shout option to greet.py"

NOT_APPROVED = (
    "Not approved, so I'm still in plan mode and nothing was changed.\n\n"
    "*This demo agent follows a script and cannot revise the plan from this feedback* (a real agent would "
    "rewrite it with `write_plan` and submit it again). Send any message to get the plan back for "
    "review; approve it with **a** to watch the steps run."
)
# exit_plan_mode's answer to a refinement names the file to revise: write_plan(plan_path="…").
_REVISE_PATH = re.compile(r'write_plan\(plan_path="([^"]+)"')


def demo_provider(*, paced: bool = True) -> ScriptedProvider:
    """The demo's scripted agent; `paced=False` drops the pauses that let a person watch."""
    from dataclasses import replace

    from planview.session.providers.base import Done, TextChunk
    from planview.session.providers.scripted import ScriptedProvider

    class DemoProvider(ScriptedProvider):
        def __init__(self, base: ScriptedProvider) -> None:
            turns = base.turns if paced else tuple(replace(t, delay=0.0) for t in base.turns)
            super().__init__(turns, label="scripted demo agent", digest=base.digest)
            self.review_turn = next(
                i for i, t in enumerate(self.turns) if any(c.name == "exit_plan_mode" for c in t.tool_calls)
            )
            self.revision_turn = self.review_turn + 1  # write_plan + exit_plan_mode again
            self.revised = False

        async def stream(self, request: Any):
            last = request.messages[-1] if request.messages else {}
            still_planning = any(tool.name == "write_plan" for tool in request.tools)
            if last.get("role") == "tool" and last.get("name") == "exit_plan_mode":
                if not still_planning:  # approved
                    if self.position == self.revision_turn:
                        self.position += 1  # approved as first written: no revision
                elif (found := _REVISE_PATH.search(str(last.get("content", "")))) and not self.revised:
                    self._revise(found.group(1))
                else:
                    self.requests.append(request)
                    self.position = self.review_turn
                    yield TextChunk(NOT_APPROVED)
                    yield Done("end_turn")
                    return
            async for event in super().stream(request):
                yield event

        def _revise(self, plan_path: str) -> None:
            """Play the revision turn next, writing to the file the review named."""
            i = self.revision_turn
            turn = self.turns[i]
            calls = tuple(
                replace(c, arguments={**c.arguments, "plan_path": plan_path}) if c.name == "write_plan" else c
                for c in turn.tool_calls
            )
            self.turns = (*self.turns[:i], replace(turn, tool_calls=calls), *self.turns[i + 1 :])
            self.position, self.revised = i, True

    return DemoProvider(ScriptedProvider.from_file(SCRIPT))
