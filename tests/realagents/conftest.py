"""The real-agent tier: the pinned agents must be installed (`python3 tests/realagents/install.py`;
.ci/run does it). Under CI a missing agent fails the test instead of skipping it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness.install import INSTALL_COMMAND, bin_dir, missing

PLANVIEW = Path(sys.executable).with_name("planview")


@pytest.fixture
def agents() -> Path:
    """The folder with the pinned agents' executables."""
    lost = missing()
    if lost:
        message = f"the pinned agents are not installed ({', '.join(lost)}): run {INSTALL_COMMAND}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return bin_dir()
