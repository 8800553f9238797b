"""Fixtures for the browser review: a plan inside a throwaway planview home."""

from __future__ import annotations

from pathlib import Path

import pytest

PLAN = """# Add a cache

## Goal

Make reads fast.

## Steps

1. [ ] Add the cache layer
   with a continuation line
2. [x] Wire it in

```python
def get(key):
    return cache[key]
```

| a | b |
|:--|--:|
| 1 | 2 |
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / "plans").mkdir(parents=True)
    monkeypatch.setenv("PLANVIEW_HOME", str(home))
    return home


@pytest.fixture
def plan(home: Path) -> Path:
    path = home / "plans" / "2026-01-01-1200-add-a-cache.md"
    path.write_text(PLAN, encoding="utf-8", newline="")
    return path
