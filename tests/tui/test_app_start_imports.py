"""The session app's first frame needs no Markdown parser and no highlighter.

markdown-it, rich.markdown and Pygments cost tens of milliseconds to import; they are loaded at the
agent's first answer (the transcript), at a pin check or at a review, not before the app can draw.
The demo app runs under Pilot in a fresh interpreter (sys.modules starts empty), and the test reads
what was loaded once its first screen is up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_PROBE = """
import asyncio, json, os, sys
from planview.demo import guide
from planview.demo.agent import DEMO_TASK, demo_provider
from planview.demo.sample_project import prepare_demo_project
from planview.commands.session_builder import prepare
from planview.tui.app import PlanviewApp

root = prepare_demo_project()
os.chdir(root)
provider = demo_provider()
spec = prepare(cwd=root)
app = PlanviewApp(
    lambda ui, on_event: spec.build(ui=ui, on_event=on_event, provider=provider),
    project_root=spec.project_root,
    welcome=guide.welcome(root),
    prompt_text=DEMO_TASK,
)

async def main():
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        shown = app.screen.__class__.__name__
    return shown

shown = asyncio.run(main())
names = ("markdown_it", "rich.markdown", "pygments", "planview.plan.document")
print(json.dumps({"screen": shown, "loaded": [n for n in names if n in sys.modules]}))
"""


def test_the_demo_app_draws_its_first_screen_without_markdown_or_pygments(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PLANVIEW_HOME"}
    env |= {"TMPDIR": str(tmp_path), "TEXTUAL_ANIMATIONS": "none"}  # the demo copies its project there
    result = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["screen"] == "SessionScreen", report
    assert report["loaded"] == [], report
