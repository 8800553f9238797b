"""The plan document model: sections at headings, blocks with source line ranges.

One markdown-it-py block parse per text (CommonMark + GFM tables + YAML front
matter). Inline parsing is skipped for the document — block structure never
depends on it — and only the few strings that need it (heading titles, step text)
go through `markup.strip_inline`. That keeps a parse well under the cost of a bare
`MarkdownIt("commonmark").parse()` of the same text.

Rules:
- Sections start at top-level headings (ATX and setext); a heading inside a code
  fence, a block quote or a list item is not a section boundary. Lines before the
  first heading form the preamble section (level 0, title ""), which also holds
  the front matter. Sections cover every line exactly once, in order.
- Fences are ``` and ~~~; an unterminated fence runs to the end of its container
  (the end of the file at top level).
- `---` front matter at the very first line is recognised (and is not a setext
  heading or a rule).
- Blocks are the top-level heading / paragraph / code / quote / table / rule /
  html / front matter blocks, plus every list item (nested ones too, `level` is
  the list nesting depth). Block ranges never end on a blank line.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_block.table import table as _gfm_table
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from planview.plan.lines import split_lines
from planview.plan.markup import strip_inline

BlockKind = Literal[
    "heading", "paragraph", "list_item", "code", "quote", "table", "rule", "html", "front_matter"
]


@dataclass(frozen=True)
class Block:
    """A top-level block or a list item, by its source lines."""

    kind: BlockKind
    start: int  # first source line (1-based)
    end: int  # last source line (inclusive)
    level: int = 0  # heading level / list nesting depth (0 = top level)


@dataclass(frozen=True)
class Section:
    """The lines from one top-level heading to the next (the preamble: those before the first)."""

    index: int  # 0-based position in the document
    title: str  # heading text, inline markup stripped; "" for the preamble
    level: int  # 1-6; 0 for the preamble
    start: int  # first line (the heading line itself for headed sections)
    end: int  # last line (the line before the next heading, or the last line)
    text: str  # exact source lines start..end joined with "\n"
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class PlanDocument:
    """A plan's text split into sections and blocks (see the module docstring for the rules)."""

    text: str
    lines: tuple[str, ...]  # text.split("\n") without a phantom last "" for a final newline
    sections: tuple[Section, ...]  # cover every line exactly once, in order
    front_matter: tuple[int, int] | None
    title: str | None  # first H1's title, else None

    @property
    def blocks(self) -> tuple[Block, ...]:
        return tuple(block for section in self.sections for block in section.blocks)

    def section_at(self, line: int) -> Section | None:
        """The section holding 1-based `line`, or None when out of range."""
        for section in self.sections:
            if section.start <= line <= section.end:
                return section
        return None


def _table_extent(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """GFM table recognition (markdown-it's own check) that records only the table's line range.

    markdown-it's table rule also splits every row into cell tokens, which made tables the
    most expensive part of a plan; the document needs just the block and its lines.
    """
    if not _gfm_table(state, start, end, True):
        return False
    if silent:
        return True
    terminators = state.md.block.ruler.getRules("blockquote")
    old_parent = state.parentType
    state.parentType = "table"
    line = start + 2
    while line < end:
        if state.sCount[line] < state.blkIndent:
            break
        if any(rule(state, line, end, True) for rule in terminators):
            break
        if not state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]].strip(" \t"):
            break
        if state.is_code_block(line):
            break
        line += 1
    token = state.push("table_open", "table", 1)
    token.map = [start, line]
    state.push("table_close", "table", -1)
    state.parentType = old_parent
    state.line = line
    return True


_MD = MarkdownIt("commonmark").enable("table").use(front_matter_plugin)
_MD.block.ruler.at("table", _table_extent, {"alt": ["paragraph", "reference"]})
# The core "inline" rule only fills inline children; block structure and maps do not need it.
_MD.disable("inline")

_CONTAINERS = {"bullet_list_open", "ordered_list_open", "blockquote_open", "list_item_open", "table_open"}
_SIMPLE_KINDS: dict[str, BlockKind] = {
    "paragraph_open": "paragraph",
    "fence": "code",
    "code_block": "code",
    "blockquote_open": "quote",
    "table_open": "table",
    "hr": "rule",
    "html_block": "html",
    "front_matter": "front_matter",
}


def _markdown_source(text: str) -> str:
    """What markdown-it sees: same line count as `split_lines` (a lone CR is not a line break here)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", " ")
    return text


@dataclass(frozen=True)
class ParsedPlan:
    """A document plus its block tokens and code line ranges (internal, shared by the plan modules)."""

    document: PlanDocument
    tokens: tuple[Token, ...]
    code_ranges: tuple[tuple[int, int], ...]  # 1-based inclusive ranges of fenced / indented code


# markdown-it's tokens take about 1 kB a source line: a plan longer than this is parsed again by each
# caller rather than kept (eight cached 50,000-line plans held 400 MB).
CACHED_CHARS = 256 * 1024


def parse_plan(text: str) -> PlanDocument:
    """Parse `text` into sections and blocks. Never raises on any str."""
    return parse_tokens(text).document


def parse_tokens(text: str) -> ParsedPlan:
    """Parse once; callers that need tokens (steps, feedback) share this. Tokens must not be mutated."""
    return _cached_parse(text) if len(text) <= CACHED_CHARS else _parse(text)


@lru_cache(maxsize=8)
def _cached_parse(text: str) -> ParsedPlan:
    return _parse(text)


def clear_parse_cache() -> None:
    """Forget every cached parse (benchmarks measure cold parses)."""
    _cached_parse.cache_clear()


def _parse(text: str) -> ParsedPlan:
    lines = split_lines(text)
    if not lines:
        return ParsedPlan(PlanDocument(text, (), (), None, None), (), ())
    tokens = _MD.parse(_markdown_source(text))
    walk = _BlockWalk(lines)
    for token in tokens:
        walk.take(token)
    sections = _sections(text, lines, walk.headings, walk.blocks)
    title = next((t for (_, level, t) in walk.headings if level == 1), None)
    document = PlanDocument(text, lines, sections, walk.front, title)
    return ParsedPlan(document, tuple(tokens), tuple(walk.code_ranges))


class _BlockWalk:
    """One pass over markdown-it's block tokens, collecting the top-level blocks, headings and code."""

    def __init__(self, lines: tuple[str, ...]) -> None:
        self.lines = lines
        self.blocks: list[Block] = []
        self.headings: list[tuple[int, int, str]] = []  # (start line, level, title)
        self.code_ranges: list[tuple[int, int]] = []
        self.front: tuple[int, int] | None = None
        self.stack: list[str] = []  # open container token types
        self.list_depth = 0
        self.inline_after_heading = False

    def last_content_line(self, start: int, end: int) -> int:
        end = min(end, len(self.lines))
        while end > start and not self.lines[end - 1].strip():
            end -= 1
        return end

    def take(self, token: Token) -> None:
        kind = token.type
        if token.nesting == -1:
            if self.stack:
                self.stack.pop()
            if kind in ("bullet_list_close", "ordered_list_close"):
                self.list_depth -= 1
            return
        tmap, top = token.map, not self.stack
        if kind in ("fence", "code_block") and tmap:
            self.code_ranges.append((tmap[0] + 1, min(max(tmap[1], tmap[0] + 1), len(self.lines))))
        if kind == "heading_open":
            self.heading(token, top)
        elif kind == "inline":
            if self.inline_after_heading:
                start, level, _ = self.headings[-1]
                self.headings[-1] = (start, level, strip_inline(token.content))
                self.inline_after_heading = False
        elif tmap is not None:
            self.block(kind, tmap[0] + 1, tmap[1], top)
        if token.nesting == 1:
            if kind in ("bullet_list_open", "ordered_list_open"):
                self.list_depth += 1
            # Headings and paragraphs are leaves for our purposes; still track them so closes pair up.
            self.stack.append(kind if kind in _CONTAINERS else "leaf")

    def heading(self, token: Token, top: bool) -> None:
        tmap = token.map
        self.inline_after_heading = top and tmap is not None
        if top and tmap is not None:
            start, end = tmap[0] + 1, self.last_content_line(tmap[0] + 1, tmap[1])
            self.blocks.append(Block("heading", start, end, int(token.tag[1])))
            self.headings.append((start, int(token.tag[1]), ""))

    def block(self, kind: str, start: int, map_end: int, top: bool) -> None:
        if kind == "list_item_open":
            if "blockquote_open" not in self.stack and "table_open" not in self.stack:
                end = self.last_content_line(start, map_end)
                self.blocks.append(Block("list_item", start, end, self.list_depth - 1))
        elif top and kind in _SIMPLE_KINDS:
            self.blocks.append(Block(_SIMPLE_KINDS[kind], start, self.last_content_line(start, map_end)))
            if kind == "front_matter":
                self.front = (start, min(map_end, len(self.lines)))


def _sections(
    text: str, lines: tuple[str, ...], headings: list[tuple[int, int, str]], blocks: list[Block]
) -> tuple[Section, ...]:
    n = len(lines)
    starts: list[tuple[int, int, str]] = []
    if not headings or headings[0][0] > 1:
        starts.append((1, 0, ""))
    starts.extend(headings)
    sections: list[Section] = []
    block_index = 0
    for i, (start, level, title) in enumerate(starts):
        end = starts[i + 1][0] - 1 if i + 1 < len(starts) else n
        own: list[Block] = []
        while block_index < len(blocks) and blocks[block_index].start <= end:
            own.append(blocks[block_index])
            block_index += 1
        body = "\n".join(lines[start - 1 : end])
        sections.append(Section(i, title, level, start, end, body, tuple(own)))
    return tuple(sections)
