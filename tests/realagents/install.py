#!/usr/bin/env python3
"""Install the real agents this tier runs (package.json + package-lock.json beside this file) into the
cache folder the tests read them from. Run by .ci/run before the suite; stdlib only (it runs before the
venv exists). Exits non-zero, naming the failure, when npm or the install fails: CI must never skip the tier.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness.install import install

if __name__ == "__main__":
    sys.exit(install())
