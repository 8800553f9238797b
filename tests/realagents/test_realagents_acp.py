"""opencode 1.18.33 and Gemini CLI 0.61.0 for real over ACP, behind `planview run --plan --agent`: the
planner reads the project, a write is refused and nothing is written, and what the agent sent back
shows the refusal reached the model. (Both agents judge their own write tools in plan mode without
asking planview; the plan hand-off through each agent's own plans folder is not built yet.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from harness.agents import gemini_env, opencode_env
from harness.gemini_api import GeminiServer
from harness.netns import run_isolated
from harness.openai_api import OpenAIServer
from harness.scenario import call, say

PLANVIEW = Path(sys.executable).with_name("planview")

# Each agent's own tool names and argument keys (from the tools its requests offer).
AGENTS: dict[str, dict[str, Any]] = {
    "opencode": {
        "server": OpenAIServer,
        "env": opencode_env,
        "read": lambda p: call("read", filePath=str(p / "README.md")),
        "write": lambda p: call("write", filePath=str(p / "notes.txt"), content="planned\n"),
        # opencode's own plan agent refuses its write tool outside its plans folders (it never asks).
        "refusal": "prevents you from using this specific tool call",
    },
    "gemini": {
        "server": GeminiServer,
        "env": gemini_env,
        "read": lambda p: call("read_file", file_path=str(p / "README.md")),
        "write": lambda p: call("write_file", file_path=str(p / "notes.txt"), content="planned\n"),
        # Gemini CLI's own plan mode refuses write_file outside its plans folder under ~/.gemini/tmp.
        "refusal": "must be within the designated plans directory",
    },
}


def _plan_run(name: str, project: Path, home: Path) -> dict[str, Any]:
    agent = AGENTS[name]
    steps = [agent["read"](project), agent["write"](project), say("I will plan instead.")]
    with agent["server"](steps) as server:
        env = agent["env"](home, server.url)
        done = subprocess.run(
            [str(PLANVIEW), "run", "--plan", "--agent", name, "read the project and add notes"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        return {"code": done.returncode, "out": done.stdout, "err": done.stderr, "results": server.results()}


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_plan_mode_reads_and_refuses_a_write(agents: Path, project: Path, tmp_path: Path, name: str) -> None:
    seen = run_isolated(_plan_run, name, project, tmp_path / "home")
    assert seen["code"] == 0, seen["err"]
    assert not (project / "notes.txt").exists()
    read, write = seen["results"][:2]
    assert "sample project" in read.text and not read.is_error
    # The refusal is the agent's own plan mode (planview is told of neither call: each agent runs these
    # tools itself); it reaches the model as the tool's result, and planview's transcript shows it.
    assert AGENTS[name]["refusal"] in write.text, write
    assert AGENTS[name]["refusal"][:30] in seen["out"]
