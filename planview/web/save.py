"""Saving a page's comments: the request shape, the store that writes, the stale-base check.

A save names no file: the plan is the one the server was started for. The body is
`{"base_sha256": <sha256 of the bytes the page rendered>, "comments": [{"anchor_line", "text"}]}`;
the comments are written with `plan.feedback.apply_feedback` (earlier markers stripped first, so the
same comments twice give the same bytes) through `PlanStore.replace`, which refuses when the file no
longer hashes to the base (a stale page) right before its atomic, contained write.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from planview.errors import PlanviewError
from planview.plan.errors import PlanChangedError, PlanPathError
from planview.plan.feedback import ReviewComment, apply_feedback
from planview.plan.store import PlanStore, decode_plan, read_plan_bytes

MAX_COMMENTS = 1000
MAX_COMMENT_CHARS = 8000
_SHA = re.compile(r"^[0-9a-f]{64}$")


class BadRequest(PlanviewError):
    """A request body that is not the JSON shape the route takes."""


def store_for(plan: Path, home: Path | None) -> PlanStore:
    """The store whose contained write saves `plan`: the home's plans folder when it holds the plan,
    else a store narrowed to the plan's own folder (same rules: .md, no symlink, no hidden name)."""
    if home is not None:
        store = PlanStore(home)
        try:
            store.check_path(plan)
            return store
        except PlanPathError:
            pass
    return PlanStore(plan.parent, plans_dir=plan.parent)


def parse_comments(body: Any) -> tuple[str, tuple[ReviewComment, ...]]:
    """`{"base_sha256": hex, "comments": [{"anchor_line": int, "text": str}]}` -> (base, comments)."""
    if not isinstance(body, dict):
        raise BadRequest('the body must be a JSON object {"base_sha256": ..., "comments": [...]}')
    base = body.get("base_sha256")
    if not isinstance(base, str) or not _SHA.match(base):
        raise BadRequest("base_sha256 must be the 64-hex sha256 of the file the page rendered")
    raw = body.get("comments", [])
    if not isinstance(raw, list) or len(raw) > MAX_COMMENTS:
        raise BadRequest(f"comments must be a list of at most {MAX_COMMENTS} objects")
    comments = []
    for n, item in enumerate(raw, 1):
        if not isinstance(item, dict):
            raise BadRequest(f"comment {n} must be an object with anchor_line and text")
        line, text = item.get("anchor_line"), item.get("text")
        if not isinstance(line, int) or isinstance(line, bool) or line < 0:
            raise BadRequest(f"comment {n}: anchor_line must be a line number (0 or more)")
        if not isinstance(text, str) or len(text) > MAX_COMMENT_CHARS:
            raise BadRequest(f"comment {n}: text must be a string of at most {MAX_COMMENT_CHARS} characters")
        comments.append(ReviewComment(line, text))
    return base, tuple(comments)


def save_comments(
    plan: Path, store: PlanStore, base: str, comments: tuple[ReviewComment, ...]
) -> tuple[str, bytes, str]:
    """Write `comments` into `plan` if it is still the rendered version: (text shown, bytes now, their sha256)."""
    data = read_plan_bytes(plan)
    if hashlib.sha256(data).hexdigest() != base:
        raise PlanChangedError("the plan changed on disk since this page rendered it; reload the page")
    text = decode_plan(plan, data)
    written = store.replace(plan, apply_feedback(text, comments), expected_sha256=base)
    return text, written, hashlib.sha256(written).hexdigest()


def current_sha256(plan: Path) -> str | None:
    try:
        return hashlib.sha256(read_plan_bytes(plan)).hexdigest()
    except PlanviewError:
        return None
