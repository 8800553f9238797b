"""Markdown section -> terminal lines at a width (Rich styles, no widgets).

Each section of a plan is rendered on its own into a list of `Strip`s, so the review body can
lay out a 10,000-line plan without mounting a widget per block, jump between headings with
exact offsets, and re-render only the sections that changed. Every line is at most `width`
cells wide (tables and long words are folded, never overflowed), and every character of
model-authored text has been through the gate's terminal sanitiser first.
"""

from __future__ import annotations

import io
import re
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from planview.textsafe import sanitize_for_terminal
from planview.tui.review.fit import CONTINUATION, code_break_offsets, fit_columns, has_wide, wrap_wide
from planview.tui.review.markdown_tree import (
    Node,
    align,
    is_tight,
    is_tight_item,
    markdown,
    task_state,
    tree,
)
from planview.tui.review.theme import RenderTheme

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pygments.lexer import Lexer

    from planview.plan.word_diff import Piece

# C0 (but the line feed), DEL and C1 controls: a last line of defence after the gate's sanitiser.
_CONTROLS = {c: None for c in [*range(0x00, 0x0A), *range(0x0B, 0x20), *range(0x7F, 0xA0)]}
_TASK_TEXT = re.compile(r"^\[[ xX~]\](?:\s+|$)")
_FOOTNOTE_REF = re.compile(r"\[\^([^\]\s]+)\]")
# Task markers by state; all single-width (East Asian width "N"), like the bullets.
TASK_MARKERS = {"pending": "◻", "in_progress": "◧", "completed": "◼"}
_TASK_STYLES = {"pending": "task_open", "in_progress": "task_active", "completed": "task_done"}
_BULLETS = ("•", "◦", "▪")
GUTTER = 2  # columns the body keeps left of every line for the changed mark
_GAP = 2  # spaces between table columns


# Lexers by language name, None for a name Pygments does not know. A lexer compiles its regular
# expressions on first use (Python's: tens of milliseconds), so each is made once per process.
_LEXERS: dict[str, Lexer | None] = {}


def lexer_for(lang: str) -> Lexer | None:
    try:
        return _LEXERS[lang]
    except KeyError:
        pass
    # Pygments loads with the first highlighted block (after the first frame), not with the screen.
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer: Lexer | None = get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        lexer = None
    _LEXERS[lang] = lexer
    return lexer


def clean_text(text: str) -> str:
    """Model text made safe to draw: escape sequences and controls gone, tabs expanded.

    The number of lines never changes, so source line numbers stay valid.
    """
    cleaned = sanitize_for_terminal(text)
    # Belt and braces: whatever the sanitiser lets through, no control character is drawn.
    return cleaned.translate(_CONTROLS)


@dataclass(frozen=True)
class RenderedSection:
    """One section drawn at one width: its lines and, per line, the source line it shows."""

    lines: tuple[Strip, ...]
    sources: tuple[int, ...]  # 0-based, relative to the section's first line
    plain_code: bool = False  # code drawn unhighlighted because its lexer was not loaded yet (`quick`)


_Line = tuple[Text, int]


class _Painter:
    """Walks markdown-it's syntax tree for one section at one width."""

    def __init__(
        self, console: Console, theme: RenderTheme, quick: bool = False, front_matter: bool = False
    ) -> None:
        self.console = console
        self.theme = theme
        self.front_matter = front_matter  # YAML front matter in full, else one dim line
        self.s = theme.styles
        self.quick = quick
        self.plain_code = False  # a code block was left plain (quick, lexer not loaded yet)

    # -- inline -----------------------------------------------------------------------------
    def inline(self, node: Node, style: Style | None = None) -> Text:
        text = Text(style=style or "")
        self._inline_into(text, node.children, Style())
        return text

    def _inline_into(self, out: Text, nodes: list[Node], style: Style) -> None:
        for node in nodes:
            kind = node.type
            if kind == "text":
                self._text_with_refs(out, node.content, style)
            elif kind == "footnote_ref":
                out.append(f"[{node.meta.get('label', '')}]", style + self.s["link"])
            elif kind == "code_inline":
                out.append(node.content, style + self.s["code_inline"])
            elif kind == "strong":
                self._inline_into(out, node.children, style + Style(bold=True))
            elif kind == "em":
                self._inline_into(out, node.children, style + Style(italic=True))
            elif kind == "s":
                self._inline_into(out, node.children, style + Style(strike=True))
            elif kind == "link":
                start = len(out)
                self._inline_into(out, node.children, style + self.s["link"])
                href = str(node.attrs.get("href", ""))
                label = out.plain[start:]
                if href and href != label and href.removeprefix("mailto:") != label:
                    out.append(f" ({href})", style + self.s["muted"])
            elif kind == "image":
                alt = node.content or "".join(c.content for c in node.children)
                out.append(f"[image: {alt}]", style + self.s["muted"])
            elif kind == "softbreak":
                out.append(" ", style)
            elif kind == "hardbreak":
                out.append("\n", style)
            elif kind == "html_inline":
                out.append(node.content, style + self.s["muted"])
            else:
                if node.children:
                    self._inline_into(out, node.children, style)
                else:
                    out.append(node.content, style)

    def _text_with_refs(self, out: Text, content: str, style: Style) -> None:
        """Text, with `[^label]` (a footnote whose definition is in another section) drawn as a reference."""
        if "[^" not in content:
            out.append(content, style)
            return
        position = 0
        for match in _FOOTNOTE_REF.finditer(content):
            out.append(content[position : match.start()], style)
            out.append(f"[{match.group(1)}]", style + self.s["link"])
            position = match.end()
        out.append(content[position:], style)

    # -- helpers ----------------------------------------------------------------------------
    def wrap(self, text: Text, width: int) -> list[Text]:
        width = max(1, width)
        if has_wide(text.plain):
            lines = [piece for line in text.split("\n", allow_blank=True) for piece in wrap_wide(line, width)]
        else:
            lines = list(text.wrap(self.console, width, overflow="fold", no_wrap=False))
        for line in lines:
            line.rstrip()  # in place
        return lines or [Text("")]

    @staticmethod
    def prefix(lines: list[_Line], first: Text, rest: Text) -> list[_Line]:
        out = []
        for i, (line, src) in enumerate(lines):
            head = first if i == 0 else rest
            out.append((Text.assemble(head.copy(), line), src))
        return out

    # -- blocks -----------------------------------------------------------------------------
    def blocks(self, nodes: list[Node], width: int) -> list[_Line]:
        return _joined((self.block(node, width) for node in nodes), tight=False)

    def block(self, node: Node, width: int) -> list[_Line]:
        kind = node.type
        start = node.map[0] if node.map else 0
        if kind == "heading":
            level = int(node.tag[1:]) if node.tag[1:].isdigit() else 1
            text = self.inline(node.children[0], self.s[f"h{min(level, 6)}"]) if node.children else Text()
            return [(line, start) for line in self.wrap(text, width)]
        if kind == "paragraph":
            if not node.children:
                return []
            return [(line, start) for line in self.wrap(self.inline(node.children[0]), width)]
        if kind == "inline":
            return [(line, start) for line in self.wrap(self.inline(node), width)]
        if kind in ("bullet_list", "ordered_list"):
            return self.list_(node, width, depth=0)
        if kind in ("fence", "code_block"):
            lang = node.info.strip().split()[0] if kind == "fence" and node.info.strip() else ""
            first = start + 1 if kind == "fence" else start
            return self.code(node.content, lang, width, first)
        if kind == "front_matter":
            return self.front_matter_block(node, width, start)
        if kind == "footnote_reference":
            return self.footnote(node, width, start)
        if kind == "blockquote":
            return self.blockquote(node, width)
        if kind == "table":
            return self.table(node, width, start)
        if kind == "hr":
            return [(Text("─" * max(1, width), self.s["rule"]), start)]
        if kind == "html_block":
            return self.html_block(node, width, start)
        content = node.content.rstrip("\n")
        return [(line, start) for line in self.wrap(Text(content), width)] if content else []

    def front_matter_block(self, node: Node, width: int, start: int) -> list[_Line]:
        """The YAML front matter dimmed when shown (f), else one muted line saying how long it is."""
        if self.front_matter:
            return self.code(node.content, "yaml", width, start + 1, dim=True)
        count = node.content.rstrip("\n").count("\n") + 1 if node.content.strip() else 0
        folded = Text(
            f"⋯ front matter, {count} line{'s' if count != 1 else ''} (f shows it)", self.s["muted"]
        )
        return [(line, start) for line in self.wrap(folded, width)]

    def footnote(self, node: Node, width: int, start: int) -> list[_Line]:
        """A footnote's body hung after its [label]."""
        label = Text(f"[{node.meta.get('label', '')}] ", self.s["link"])
        body = self.blocks(node.children, width - label.cell_len)
        return self.prefix(body, label, Text(" " * label.cell_len)) if body else [(label, start)]

    def blockquote(self, node: Node, width: int) -> list[_Line]:
        """The quoted blocks behind a bar, in the quote style."""
        inner = self.blocks(node.children, width - 2)
        bar = Text("▌ ", self.s["quote_bar"])
        lines = self.prefix(inner, bar, bar)
        for line, _ in lines:
            line.stylize(self.s["quote"], 2)
        return lines

    def html_block(self, node: Node, width: int, start: int) -> list[_Line]:
        """Raw HTML shown as muted text, each source line wrapped on its own (so each keeps its source line)."""
        out: list[_Line] = []
        for i, raw in enumerate(node.content.rstrip("\n").split("\n")):
            for piece in self.wrap(Text(raw, self.s["muted"]), width):
                out.append((piece, start + i))
        return out

    def list_(self, node: Node, width: int, depth: int) -> list[_Line]:
        ordered = node.type == "ordered_list"
        items = [c for c in node.children if c.type == "list_item"]
        first_number = int(node.attrs.get("start", 1) or 1) if ordered else 0
        delim = (items[0].markup if items and items[0].markup else ".") if ordered else ""
        number_width = len(str(first_number + len(items) - 1)) if ordered else 0
        out: list[_Line] = []
        for i, item in enumerate(items):
            if ordered:
                marker = Text(f"{first_number + i}{delim}".rjust(number_width + 1) + " ", self.s["bullet"])
            else:
                marker = Text(_BULLETS[depth % len(_BULLETS)] + " ", self.s["bullet"])
            state = task_state(item)
            if state is not None:
                box_ = Text(TASK_MARKERS[state] + " ", self.s[_TASK_STYLES[state]])
                marker = Text.assemble(marker, box_) if ordered else box_
            body = self.item_body(item, width - marker.cell_len, depth, task=state is not None)
            indent = Text(" " * marker.cell_len)
            item_lines = (
                self.prefix(body, marker, indent) if body else [(marker, item.map[0] if item.map else 0)]
            )
            if out and not is_tight(node):
                out.append((Text(""), out[-1][1]))
            out.extend(item_lines)
        return out

    def item_body(self, item: Node, width: int, depth: int, task: bool = False) -> list[_Line]:
        return _joined(
            (self.item_child(child, width, depth, task and i == 0) for i, child in enumerate(item.children)),
            tight=is_tight_item(item),
        )

    def item_child(self, child: Node, width: int, depth: int, task_text: bool) -> list[_Line]:
        if child.type in ("bullet_list", "ordered_list"):
            return self.list_(child, width, depth + 1)
        if task_text and child.children:
            # The `[ ]` / `[~]` / `[x]` becomes the item's marker: drop it before wrapping.
            text = self.inline(child.children[0])
            match = _TASK_TEXT.match(text.plain)
            text = text[match.end() :] if match else text
            return [(line, child.map[0] if child.map else 0) for line in self.wrap(text, width)]
        return self.block(child, width)

    def code(self, code: str, lang: str, width: int, first_line: int, dim: bool = False) -> list[_Line]:
        base = self.s["code_block"] + (self.s["muted"] if dim else Style())
        source_lines = code.rstrip("\n").split("\n") if code.strip("\n") else [""]
        highlighted = self.highlight(code, lang) if lang and not dim else None
        out: list[_Line] = []
        inner = max(1, width - 2)
        for i, raw in enumerate(source_lines):
            text = highlighted[i] if highlighted and i < len(highlighted) else Text(raw)
            text.style = base
            # A long line breaks at a space or punctuation where it can; its continuation lines
            # start with a dim ↪, so a wrapped tail never reads as a command of its own.
            rest = max(1, inner - len(CONTINUATION))
            pieces = (
                text.divide(code_break_offsets(text.plain, inner, rest)) if text.cell_len > inner else [text]
            )
            for k, piece in enumerate(pieces or [Text("")]):
                line = Text(" ", base)
                if k:
                    line.append(CONTINUATION, base + self.s["muted"])
                if len(pieces) > 1:
                    piece.rstrip()  # the spaces a break left at the end of a piece
                line.append_text(piece)
                line.pad_right(max(0, width - line.cell_len))
                line.style = base
                out.append((line, first_line + i))
        return out

    def highlight(self, code: str, lang: str) -> list[Text] | None:
        """Pygments tokens for a named language; None when the language is unknown (never guessed)."""
        if self.quick and lang not in _LEXERS:
            self.plain_code = True
            return None
        lexer = lexer_for(lang)
        if lexer is None:
            return None
        token_style = self.theme.token_style
        lines = [Text()]
        for ttype, value in lexer.get_tokens(code.rstrip("\n")):
            style = token_style(ttype)
            parts = value.split("\n")
            for j, part in enumerate(parts):
                if j:
                    lines.append(Text())
                if part:
                    lines[-1].append(part, style)
        return lines

    def table(self, node: Node, width: int, start: int) -> list[_Line]:
        """A GFM table fitted to the width: columns shrink widest-first and their cells wrap."""
        rows: list[tuple[list[Text], int, bool]] = []  # cells, source line, is header
        aligns: list[str] = []
        for part in node.children:
            for tr in part.children:
                tds = [c for c in tr.children if c.type in ("th", "td")]
                if part.type == "thead" and not aligns:
                    aligns = [align(c) for c in tds]
                texts = [self.inline(c.children[0]) if c.children else Text() for c in tds]
                rows.append((texts, tr.map[0] if tr.map else start, part.type == "thead"))
        columns = max((len(r[0]) for r in rows), default=0)
        if columns == 0:
            return []
        aligns += ["left"] * (columns - len(aligns))
        for cells, _src, _head in rows:
            cells += [Text() for _ in range(columns - len(cells))]
        natural = [max(1, max(cells[i].cell_len for cells, _s, _h in rows)) for i in range(columns)]
        widths = fit_columns(natural, width - _GAP * (columns - 1))
        gap = " " * _GAP
        out: list[_Line] = []
        for cells, src, head in rows:
            wrapped = []
            for i, cell in enumerate(cells):
                if head:
                    cell.stylize(self.s["table_header"])
                wrapped.append(self.wrap(cell, widths[i]) if cell.cell_len > widths[i] else [cell])
            for k in range(max(len(w) for w in wrapped)):
                line = Text()
                for i, pieces in enumerate(wrapped):
                    piece = pieces[k] if k < len(pieces) else Text()
                    room = max(0, widths[i] - piece.cell_len)
                    left = room if aligns[i] == "right" else room // 2 if aligns[i] == "center" else 0
                    if i:
                        line.append(gap)
                    line.append(" " * left)
                    line.append_text(piece)
                    line.append(" " * (room - left))
                line.rstrip()
                out.append((line, src))
            if head:
                rule = gap.join("─" * w for w in widths)
                out.append((Text(rule[: max(1, width)], self.s["table_border"]), src))
        return out


def _joined(parts: Iterable[list[_Line]], tight: bool) -> list[_Line]:
    """Block lines one after another, a blank line between blocks unless `tight` (empty blocks dropped)."""
    out: list[_Line] = []
    for lines in parts:
        if not lines:
            continue
        if out and not tight:
            out.append((Text(""), out[-1][1]))
        out.extend(lines)
    return out


class SectionRenderer:
    """Renders section text to lines, cached by (section text, width, theme)."""

    def __init__(self, max_entries: int = 8192, max_lines: int = 2500) -> None:
        self._cache: OrderedDict[tuple[object, ...], RenderedSection] = OrderedDict()
        self._max = max_entries
        # Bounded by lines too: a reload of a long plan re-renders only what it shows, but the cache
        # must not hold every line of a 50,000-line plan (about 1.7 kB a line).
        self._max_lines = max_lines
        self._lines = 0
        self._md = markdown()
        self._consoles: dict[int, Console] = {}
        self.renders = 0  # cache misses, for tests and benchmarks
        # Quick: code whose lexer is not loaded yet is drawn plain (not cached), for a first frame
        # that does not wait for Pygments; the body draws such sections again once it is on screen.
        self.quick = False

    def _console(self, width: int) -> Console:
        console = self._consoles.get(width)
        if console is None:
            console = Console(
                width=width,
                file=io.StringIO(),
                color_system="truecolor",
                force_terminal=True,
                legacy_windows=False,
                emoji=False,
                markup=False,
                highlight=False,
            )
            self._consoles[width] = console
        return console

    def render(
        self, text: str, width: int, theme: RenderTheme, front_matter: bool = False
    ) -> RenderedSection:
        """`front_matter`: draw a YAML front matter block in full instead of as one line."""
        width = max(1, width)
        key = (text, width, theme, front_matter)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        rendered = self._render(text, width, theme, front_matter)
        self.renders += 1
        if rendered.plain_code:
            return rendered
        self._store(key, rendered)
        return rendered

    def clear(self) -> None:
        self._cache.clear()
        self._lines = 0

    def _store(self, key: tuple[object, ...], rendered: RenderedSection) -> None:
        self._cache[key] = rendered
        self._lines += len(rendered.lines)
        while len(self._cache) > 1 and (len(self._cache) > self._max or self._lines > self._max_lines):
            _key, old = self._cache.popitem(last=False)
            self._lines -= len(old.lines)

    def render_diff(self, pieces: tuple[Piece, ...], width: int, theme: RenderTheme) -> RenderedSection:
        """A changed section as its source lines with deleted and inserted words marked (`d`)."""
        width = max(1, width)
        key = ("diff", pieces, width, theme)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        console = self._console(width)
        painter = _Painter(console, theme, self.quick, False)
        rendered = _strips(
            [(piece, src) for line, src in diff_lines(pieces, theme) for piece in painter.wrap(line, width)],
            console,
            width,
        )
        self._store(key, rendered)
        return rendered

    def _render(self, text: str, width: int, theme: RenderTheme, front_matter: bool) -> RenderedSection:
        console = self._console(width)
        painter = _Painter(console, theme, self.quick, front_matter)
        cleaned = clean_text(text)
        lines = painter.blocks(tree(self._md.parse(cleaned)), width)
        last = max(0, cleaned.count("\n"))
        lines.append((Text(""), min(last, lines[-1][1] if lines else 0)))  # the gap before the next section
        return _strips(lines, console, width, painter.plain_code)


def _strips(lines: list[_Line], console: Console, width: int, plain_code: bool = False) -> RenderedSection:
    strips = []
    sources = []
    simplify = Segment.simplify
    for line, src in lines:
        if line.spans or not line.style:
            segments = [s for s in line.render(console) if s.text]
        else:  # Text.render drops the base style of a line without spans
            segments = [Segment(line.plain, console.get_style(line.style))] if line.plain else []
        # One Strip per line where it fits (every Strip made costs its caches).
        strip = Strip(simplify(segments))
        if strip.cell_length > width:
            strip = strip.crop(0, width)
        strips.append(strip)
        sources.append(src)
    return RenderedSection(tuple(strips), tuple(sources), plain_code)


def diff_lines(pieces: tuple[Piece, ...], theme: RenderTheme) -> list[_Line]:
    """The section's lines (current text, with what was deleted kept in place), words styled by
    what happened to them; each with the 0-based source line of the current text it belongs to.
    A final blank line is the gap before the next section, as in the rendered view."""
    styles = theme.styles
    marks = {"insert": styles["diff_insert"], "delete": styles["diff_delete"], "equal": Style()}
    lines: list[_Line] = [(Text(), 0)]
    source = 0
    for piece in pieces:
        parts = clean_text(piece.text).split("\n")
        for k, part in enumerate(parts):
            if k:
                if piece.op != "delete":
                    source += 1
                lines.append((Text(), source))
            if part:
                lines[-1][0].append(part, marks[piece.op])
    if len(lines) > 1 and not lines[-1][0].plain:
        lines.pop()  # the text's own last newline
    lines.append((Text(""), lines[-1][1]))
    return lines


def strip_text(strip: Strip) -> str:
    """The characters of a strip (for tests and the gauge's section label)."""
    return "".join(segment.text for segment in strip if not segment.control)


__all__ = [
    "GUTTER",
    "RenderTheme",
    "RenderedSection",
    "SectionRenderer",
    "Segment",
    "clean_text",
    "strip_text",
]
