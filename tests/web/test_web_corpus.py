"""On every real plan: the page's blocks are the codec's blocks, so a comment lands where the page shows it."""

from __future__ import annotations

from planview.plan.feedback import ReviewComment, apply_feedback, parse_feedback, strip_feedback
from planview.web.model import build_page


def commentable(nodes: list) -> list[dict]:
    found = []
    for node in nodes:
        if isinstance(node, dict):
            if "b" in node:
                found.append(node)
            if node.get("k") in ("ul", "ol", "li", "quote"):
                found.extend(commentable(node["c"]))
    return found


def test_a_comment_on_any_block_is_written_right_after_it_and_read_back_there(corpus):
    checked = 0
    for path in corpus:
        data = path.read_bytes()
        model = build_page(path, data, approve=False, baseline=None).data
        shown = strip_feedback(data.decode("utf-8"))
        ends = sorted(node["end"] for node in commentable(model["nodes"]))
        # One comment after every block at once: each must come back anchored to its block's last line
        # (one the codec moved, or one written inside code, would read back elsewhere or not at all).
        saved = apply_feedback(shown, [ReviewComment(end, f"probe {end}") for end in ends])
        back = parse_feedback(saved)
        assert sorted(c.anchor_line for c in back) == ends, path.name
        assert all(c.text == f"probe {c.anchor_line}" for c in back), path.name
        assert strip_feedback(saved) == shown, path.name
        checked += len(ends)
    assert checked > 100
