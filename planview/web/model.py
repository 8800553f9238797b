"""The page model: a plan turned into the JSON the browser page renders (no HTML, only data).

The page never parses markup: every string here reaches the DOM as a text node. The model is
the plan with its stored review comments stripped (they come back as `comments`, anchored to
the stripped text's lines, exactly as `plan.feedback` numbers them), so saving the page's
comments rewrites the file's comment lines and nothing else.

Nodes are dicts with a kind `k`; a node a comment can anchor to carries `b` (its block number)
and `end` (its last source line, 1-based, never a blank line): the top-level blocks and every
list item outside quotes and tables — the same blocks `plan.document` finds. Inline content is a
list of strings and `{"k": "code"|"em"|"strong"|"s"|"a"|"br"|"img", ...}` dicts. Fenced code is
highlighted here (`highlight.py`), so the client only copies text and token classes.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from planview.keymap import web_keys
from planview.plan.diff import changed_sections
from planview.plan.document import parse_plan
from planview.plan.feedback import ReviewComment, parse_feedback, strip_feedback
from planview.plan.lines import split_lines
from planview.plan.steps import extract_steps
from planview.plan.word_diff import section_words
from planview.web.highlight import highlight

_MD = MarkdownIt("commonmark", {"linkify": False}).enable(["table", "strikethrough"]).use(front_matter_plugin)
_SAFE_HREF = re.compile(r"^(https?:|mailto:|#)", re.IGNORECASE)
# GFM's extended autolinks, reduced to what plans contain: http(s):// and www. URLs.
_BARE_URL = re.compile(r"(?:https?://|www\.)[^\s<]*[^\s<?!.,:;*_~'\")\]]")
_TASK = re.compile(r"^\[([ xX~])\][ \t]+")
_ALIGN = re.compile(r"text-align:(left|center|right)")


@dataclass(frozen=True)
class PageModel:
    """What one page view shows: the JSON for the page (`base_sha256` in it is the sha256 of the exact
    bytes rendered, which a save or an approval must still find on disk)."""

    data: dict[str, Any]


def _inline(children: list[Token] | None) -> list[Any]:
    """markdown-it inline tokens as nested text runs; anything unknown becomes its plain text."""
    root: list[Any] = []
    stack: list[list[Any]] = [root]
    for token in children or []:
        kind = token.type
        out = stack[-1]
        if kind == "text":
            out.extend(_autolink(token.content))
        elif kind == "code_inline":
            out.append({"k": "code", "x": token.content})
        elif kind in ("softbreak",):
            out.append(" ")
        elif kind == "hardbreak":
            out.append({"k": "br"})
        elif kind in ("em_open", "strong_open", "s_open"):
            node: dict[str, Any] = {"k": kind[:-5], "c": []}
            out.append(node)
            stack.append(node["c"])
        elif kind == "link_open":
            href = str(token.attrs.get("href", ""))
            node = {"k": "a", "href": href if _SAFE_HREF.match(href) else None, "c": []}
            out.append(node)
            stack.append(node["c"])
        elif kind in ("em_close", "strong_close", "s_close", "link_close"):
            if len(stack) > 1:
                stack.pop()
        elif kind == "image":
            # Images are never loaded (a plan must not make the browser fetch anything): alt text only.
            out.append({"k": "img", "alt": token.content, "src": str(token.attrs.get("src", ""))})
        else:  # html_inline and the like: shown as written, as text
            out.append(token.content)
    return root


def _autolink(text: str) -> list[Any]:
    if "http" not in text and "www." not in text:
        return [text]
    out: list[Any] = []
    last = 0
    for match in _BARE_URL.finditer(text):
        if match.start() > last:
            out.append(text[last : match.start()])
        url = match.group(0)
        href = url if url.lower().startswith("http") else "https://" + url
        out.append({"k": "a", "href": href, "c": [url]})
        last = match.end()
    if last < len(text):
        out.append(text[last:])
    return out


class _Builder:
    """Walks the block tokens once, building nodes and numbering the commentable blocks."""

    def __init__(self, tokens: list[Token], lines: tuple[str, ...]) -> None:
        self.tokens = tokens
        self.lines = lines
        self.i = 0
        self.blocks: list[dict[str, Any]] = []  # commentable nodes, in document order

    def _end(self, token: Token) -> int:
        tmap = token.map
        assert tmap is not None  # block tokens always carry their source lines
        start, end = tmap[0] + 1, min(tmap[1], len(self.lines))
        while end > start and not self.lines[end - 1].strip():
            end -= 1
        return end

    def _mark(self, node: dict[str, Any], token: Token) -> dict[str, Any]:
        if token.map:
            node["b"] = len(self.blocks)
            node["start"] = token.map[0] + 1
            node["end"] = self._end(token)
            self.blocks.append(node)
        return node

    def children(self, close: str | None, *, commentable: bool, items: bool) -> list[dict[str, Any]]:
        """Nodes up to `close`; `commentable` marks blocks at this level, `items` marks list items."""
        nodes: list[dict[str, Any]] = []
        while self.i < len(self.tokens):
            token = self.tokens[self.i]
            if close is not None and token.type == close:
                self.i += 1
                return nodes
            node = self.node(token, commentable=commentable, items=items)
            if node is not None:
                nodes.append(node)
        return nodes

    def node(self, token: Token, *, commentable: bool, items: bool) -> dict[str, Any] | None:
        kind = token.type
        self.i += 1
        node: dict[str, Any] | None
        if kind == "heading_open":
            inline = self.tokens[self.i]
            self.i += 2  # inline, heading_close
            node = {"k": "h", "lvl": int(token.tag[1]), "c": _inline(inline.children)}
        elif kind == "paragraph_open":
            inline = self.tokens[self.i]
            self.i += 2
            node = {"k": "p", "c": _inline(inline.children)}
        elif kind in ("fence", "code_block"):
            lang = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
            node = {"k": "code", "lang": lang, "lines": highlight(token.content, lang)}
        elif kind == "hr":
            node = {"k": "hr"}
        elif kind == "html_block":
            node = {"k": "raw", "x": token.content.rstrip("\n")}
        elif kind == "front_matter":
            # Folded on the page (one line, opened on demand), as the terminal folds it.
            text = token.content.rstrip("\n")
            node = {"k": "raw", "x": text, "front": True, "n": len(text.split("\n")) if text else 0}
        elif kind == "blockquote_open":
            # Inside a quote nothing is a block of its own (as in plan.document): the quote is.
            node = {"k": "quote", "c": self.children("blockquote_close", commentable=False, items=False)}
        elif kind in ("bullet_list_open", "ordered_list_open"):
            close = kind.replace("_open", "_close")
            entries = self.children(close, commentable=items, items=items)
            node = {"k": "ol" if kind.startswith("ordered") else "ul", "c": entries}
            if kind.startswith("ordered"):
                node["from"] = int(token.attrs.get("start", 1) or 1)
            return node  # lists are containers: their items are the blocks
        elif kind == "list_item_open":
            node = {"k": "li", "c": []}
            if commentable:
                self._mark(node, token)
            # An item's paragraphs and code are part of it; its nested items are blocks again.
            node["c"] = self.children("list_item_close", commentable=False, items=items)
            _take_task(node)
            return node
        elif kind == "table_open":
            node = self.table()
        else:
            return None  # closing tokens of containers handled by their opener
        if commentable and token.map and node.get("k") != "li":
            self._mark(node, token)
        return node

    def table(self) -> dict[str, Any]:
        head: list[Any] = []
        rows: list[list[Any]] = []
        align: list[str] = []
        row: list[Any] | None = None
        in_head = False
        while self.i < len(self.tokens):
            token = self.tokens[self.i]
            self.i += 1
            kind = token.type
            if kind == "table_close":
                break
            if kind == "thead_open":
                in_head = True
            elif kind == "thead_close":
                in_head = False
            elif kind == "tr_open":
                row = []
            elif kind == "tr_close" and row is not None:
                if in_head:
                    head = row
                else:
                    rows.append(row)
                row = None
            elif kind in ("th_open", "td_open") and row is not None:
                if in_head:
                    match = _ALIGN.search(str(token.attrs.get("style", "")))
                    align.append(match.group(1) if match else "")
                inline = self.tokens[self.i]
                row.append(_inline(inline.children) if inline.type == "inline" else [])
        return {"k": "table", "align": align, "head": head, "rows": rows}


def _take_task(item: dict[str, Any]) -> None:
    """`- [ ] text` items: the box becomes `task` and leaves the text (`[~]` is in progress)."""
    first = item["c"][0] if item["c"] else None
    if not first or first.get("k") != "p" or not first["c"] or not isinstance(first["c"][0], str):
        return
    match = _TASK.match(first["c"][0])
    if match is None:
        return
    first["c"][0] = first["c"][0][match.end() :]
    item["task"] = {" ": "todo", "~": "doing"}.get(match.group(1), "done")


def _markdown_source(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", " ") if "\r" in text else text


def _anchor_block(blocks: list[dict[str, Any]], anchor: int) -> int | None:
    """The block a stored comment belongs to: the innermost holding its line (where `apply_feedback`
    moves it on the next save), else the last one ending before it, else the first."""
    holding = [node for node in blocks if node["start"] <= anchor <= node["end"]]
    if holding:
        return max(holding, key=lambda node: (node["start"], node["b"]))["b"]
    before = [node for node in blocks if node["end"] <= anchor]
    if before:
        return max(before, key=lambda node: (node["end"], node["b"]))["b"]
    return blocks[0]["b"] if blocks else None


def build_page(
    path: Path,
    data: bytes,
    *,
    approve: bool,
    baseline: str | None,
    title_fallback: str | None = None,
    to_model: bool = False,
) -> PageModel:
    """The page for `path`'s bytes `data` (already read and decoded as UTF-8 by the caller's check).

    `to_model`: saved comments go on to a model as a refinement (a session or Claude's hook); a
    standalone `planview review --web` only writes them into the file, and the page says so."""
    text = data.decode("utf-8")
    shown = strip_feedback(text)
    stored = parse_feedback(text)
    builder = _Builder(_MD.parse(_markdown_source(shown)), split_lines(shown))
    nodes = builder.children(None, commentable=True, items=True)
    document = parse_plan(shown)
    changed: set[int] = set()
    diffs: list[dict[str, Any]] = []
    if baseline is not None:
        diff = changed_sections(strip_feedback(baseline), shown)
        changed = {c.index for c in diff.changes if c.status != "unchanged"}
        # The same word diffs as `d` in the terminal and `planview diff` (the page's Changes panel).
        diffs = [
            {
                "i": w.index if w.index >= 0 else None,
                "title": w.title,
                "status": w.status,
                "pieces": [[p.op, p.text] for p in w.pieces],
            }
            for w in section_words(strip_feedback(baseline), shown)
        ]
    sections = [
        {
            "i": s.index,
            "title": s.title,
            "lvl": s.level,
            "start": s.start,
            "end": s.end,
            "changed": s.index in changed,
        }
        for s in document.sections
    ]
    # The counter is the Steps section's checkboxes only: a plan whose steps are plain bullets, or
    # one with no Steps section (the fallback reads every top-level list), has nothing to count.
    found = extract_steps(shown)
    boxes = [s for s in found.steps if s.has_checkbox] if found.source == "steps_section" else []
    comments = [_comment_json(c, builder.blocks) for c in stored]
    model = {
        "title": document.title or title_fallback or path.stem,
        "file": path.name,
        "approve": approve,
        "to_model": to_model,
        "base_sha256": hashlib.sha256(data).hexdigest(),
        "nodes": nodes,
        "sections": sections,
        "steps": {"done": sum(1 for s in boxes if s.completed), "total": len(boxes)},
        "comments": comments,
        "changed": len(changed),
        "baseline": baseline is not None,
        "diffs": diffs,
        "keys": web_keys(approve, bool(diffs)),  # the `?` sheet, from the one key map
    }
    return PageModel(model)


def _comment_json(comment: ReviewComment, blocks: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "anchor_line": comment.anchor_line,
        "text": comment.text,
        "b": _anchor_block(blocks, comment.anchor_line),
    }
