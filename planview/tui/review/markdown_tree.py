"""markdown-it's token stream as a light tree, and the questions the painter asks of it."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

_TASK = re.compile(r"^\[([ xX~])\]\s")


class Node:
    """A node of markdown-it's token stream as a tree (lighter than markdown_it.tree.SyntaxTreeNode)."""

    __slots__ = ("type", "children", "map", "content", "info", "attrs", "tag", "hidden", "markup", "meta")

    def __init__(self, kind: str, token: Token) -> None:
        self.type = kind
        self.children: list[Node] = []
        self.map = token.map
        self.content = token.content
        self.info = token.info
        self.attrs = token.attrs
        self.tag = token.tag
        self.hidden = token.hidden
        self.markup = token.markup
        self.meta = token.meta


def tree(tokens: list[Token]) -> list[Node]:
    root: list[Node] = []
    stack = [root]
    for token in tokens:
        if token.nesting == 1:
            node = Node(token.type.removesuffix("_open"), token)
            stack[-1].append(node)
            stack.append(node.children)
        elif token.nesting == -1:
            stack.pop()
        else:
            node = Node(token.type, token)
            if token.children:
                node.children = tree(token.children)
            stack[-1].append(node)
    return root


def markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable("table").enable("strikethrough").use(front_matter_plugin)
    # Footnote definitions stay where they are written (`footnote_tail` would move them to the end,
    # and drop those not referenced in the same section: each section is parsed on its own). Without
    # the plugin, `[^1]: url` is a link reference definition and vanishes from the review.
    return md.use(footnote_plugin).disable("footnote_tail")


def align(cell: Node) -> str:
    style = str(cell.attrs.get("style", ""))
    return "right" if "right" in style else "center" if "center" in style else "left"


def task_state(item: Node) -> str | None:
    """ "completed" / "in_progress" / "pending" for a `[x]` / `[~]` / `[ ]` task item, None otherwise."""
    first = item.children[0] if item.children else None
    if first is None or first.type != "paragraph" or not first.children:
        return None
    inline = first.children[0]
    if not inline.children or inline.children[0].type != "text":
        return None
    match = _TASK.match(inline.children[0].content)
    if (
        match is None
        and inline.children[0].content in ("[ ]", "[~]", "[x]", "[X]")
        and len(inline.children) > 1
    ):
        match = _TASK.match(inline.children[0].content + " ")
    if match is None:
        return None
    return {" ": "pending", "~": "in_progress"}.get(match.group(1), "completed")


def is_tight(list_node: Node) -> bool:
    return all(is_tight_item(item) for item in list_node.children)


def is_tight_item(item: Node) -> bool:
    return all(c.hidden for c in item.children if c.type == "paragraph")
