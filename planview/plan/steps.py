"""A plan's steps, and editing their checkboxes in place.

Which items are steps (read, like the canonical hash, from the text without its review-comment
lines, `> [!REVIEW] ...`; `Step.line` still counts them):
- The Steps section is the first heading (any level) whose title, with markup,
  leading emoji and numbering (`4.`, `4)`, `IV.`), a trailing remark in
  parentheses (`(in order)`) and a trailing colon removed, is `Steps`
  (case-insensitive). Without one, the first heading titled `<one word> Steps`
  (`Implementation Steps`, `Execution steps`) is used. The section runs until the
  next heading of the same or a higher level, so its subsections belong to it.
- Its steps are the top-level list items inside it: bullets (`-` `*` `+`) and
  ordered items (`1.` `1)`), across every list of the section, in document order.
  "Top-level" means the shallowest items present (a list inside a quote counts one
  deeper). Items nested under a step are its notes (flattened, in order), never
  steps. Items inside code fences or HTML blocks are not list items at all.
- A plan without a Steps section falls back to the shallowest list of the whole
  document, `source="shallowest_list"`: when the document has task lists (lists
  with at least one `[ ]`/`[~]`/`[x]` item), the items of the shallowest task lists (all
  of their items, with or without a checkbox); otherwise the items of every
  top-level list, in order. Items nested under a chosen item are its notes.
  A Steps section without list items gives no steps (it does not fall back).
- Checkboxes and status: `- [ ]` is pending, `- [~]` is in progress, `- [x]` /
  `- [X]` is completed, and a `[DONE:n]` marker anywhere in the item's first
  paragraph makes the step completed whatever its box says. `Step.completed` is
  `status == "completed"`.
- Other bracket states are not checkboxes and stay in the step's text, on purpose:
  `[-]` means "cancelled" to some tools (Obsidian Tasks) and "partly done" to others
  (org-mode), and `[/]` appears in no plan we have seen; reading either as a state
  would guess, and would also make the canonical hash ignore text that it hashes
  today. Only `[~]`, which real progress files write for "started", is added.
- A step's text is its first paragraph with inline markup stripped (`user_id`
  and `snake_case.py` stay intact) and the checkbox (`[ ]`, `[~]`, `[x]`) /
  `[DONE:n]` markers removed;
  its display form is cut to 200 characters ending in "…". Nothing is capped: every
  item is returned, with its full text.

Editing (`set_steps`) rewrites only the state character of the box (` `, `~`, `x`),
or inserts a box when the step has none: `completed` writes `x` (an `X` is kept),
`in_progress` writes `~`, `pending` writes a space. `pending` and `in_progress` also
remove the step's `[DONE:n]` markers, since those would keep it completed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from planview.errors import PlanviewError
from planview.plan.canonical import DONE_MARKER, ITEM_LINE, strip_done_markers
from planview.plan.document import Section, parse_tokens
from planview.plan.feedback import without_feedback
from planview.plan.markup import strip_inline

DISPLAY_LIMIT = 200

_LEADING_BOX = re.compile(r"^\[[ xX~]\](?:[ \t]+|\n|$)")
_TITLE_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*[.):]?|[ivxlc]+[.):])\s+")
_TITLE_TAIL = re.compile(r"\s*(?:\([^()]*\)|\[[^\[\]]*\])$")
_QUALIFIED = re.compile(r"[\w-]+ steps")

StepStatus = Literal["pending", "in_progress", "completed"]
StepSource = Literal["steps_section", "shallowest_list", "none"]
STEP_STATUSES: tuple[StepStatus, ...] = ("pending", "in_progress", "completed")
_BOX_CHAR = {"pending": " ", "in_progress": "~", "completed": "x"}


@dataclass(frozen=True)
class Step:
    """One step of the plan: its text, checkbox state and source line."""

    index: int  # 1-based, in document order
    text: str  # full text, Markdown markup stripped (identifiers like user_id intact)
    display: str  # text shortened to 200 chars ending in "…" when longer
    completed: bool  # [x]/[X] or a [DONE:n] marker (status == "completed")
    has_checkbox: bool
    line: int  # source line of the item
    notes: tuple[str, ...]  # nested items' text (stripped)
    status: StepStatus = "pending"  # [ ] pending, [~] in_progress, [x]/[DONE:n] completed

    def __post_init__(self) -> None:
        # One truth for both fields: `completed` callers and `status` callers always agree.
        if self.completed and self.status != "completed":
            object.__setattr__(self, "status", "completed")
        elif self.status == "completed" and not self.completed:
            object.__setattr__(self, "completed", True)


@dataclass(frozen=True)
class StepList:
    """The plan's steps and where they were found (the Steps section, else the shallowest list)."""

    steps: tuple[Step, ...]
    source: StepSource
    section_title: str | None

    @property
    def done(self) -> int:
        return sum(1 for step in self.steps if step.completed)

    @property
    def total(self) -> int:
        return len(self.steps)


@dataclass(frozen=True)
class StepUpdate:
    """A request to set one step's checkbox, refused if the step's text no longer matches."""

    step: int  # 1-based
    status: StepStatus  # "in_progress" writes [~]
    expected: str | None = None  # step text; refuses when it no longer matches


class StepUpdateError(PlanviewError):
    """A step update was refused; names the step(s). Nothing was changed."""

    def __init__(self, message: str, steps: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.steps = steps


@dataclass
class _Item:
    """A list item from markdown-it's tokens, with its nested items (built while steps are found)."""

    start: int  # 1-based first line
    end: int
    depth: int  # list nesting + quote nesting
    token_level: int
    list_id: int  # which list the item belongs to
    para: tuple[int, int] | None = None  # first paragraph's lines (1-based, inclusive)
    content: str | None = None  # first paragraph's raw inline content
    children: list[_Item] = field(default_factory=list)
    first_seen: bool = False
    first_kind: str | None = None  # token type of the item's first child (None: empty item)


def _normalise_title(title: str) -> str:
    title = " ".join(title.split()).casefold()
    # Leading emoji / symbols ("✅ Steps"), then section numbering ("4.", "IV.").
    start = 0
    while start < len(title) and not title[start].isalnum():
        start += 1
    title = _TITLE_NUMBER.sub("", title[start:])
    # A trailing remark in parentheses or brackets ("Steps (in order)") and a colon.
    title = _TITLE_TAIL.sub("", title.rstrip(":").strip()).rstrip(":").strip()
    return title


def steps_section(sections: tuple[Section, ...]) -> tuple[Section, int] | None:
    """The Steps section and the last line of its scope (subsections included), or None."""
    headed = [s for s in sections if s.level > 0]
    found = next((s for s in headed if _normalise_title(s.title) == "steps"), None)
    if found is None:
        found = next((s for s in headed if _QUALIFIED.fullmatch(_normalise_title(s.title))), None)
    if found is None:
        return None
    end = sections[-1].end
    for later in sections[found.index + 1 :]:
        if later.level <= found.level:
            end = later.start - 1
            break
    return found, end


def _items(tokens: Sequence[Any]) -> list[_Item]:
    """Every list item as a tree (roots = items not nested in another item)."""
    roots: list[_Item] = []
    open_items: list[_Item] = []
    quotes = 0
    lists = 0
    pending_para: _Item | None = None
    list_ids: list[int] = []
    next_list = 0
    for token in tokens:
        kind = token.type
        if kind == "blockquote_open":
            quotes += 1
        elif kind == "blockquote_close":
            quotes -= 1
        elif kind in ("bullet_list_open", "ordered_list_open"):
            lists += 1
            next_list += 1
            list_ids.append(next_list)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists -= 1
            list_ids.pop()
        if open_items and kind != "list_item_open":
            current = open_items[-1]
            if not current.first_seen and token.nesting >= 0 and token.level == current.token_level + 1:
                current.first_seen = True
                current.first_kind = kind
                if kind == "paragraph_open" and token.map:
                    current.para = (token.map[0] + 1, token.map[1])
                    pending_para = current
        if kind == "inline" and pending_para is not None:
            pending_para.content = token.content
            pending_para = None
        elif kind == "list_item_open" and token.map:
            item = _Item(token.map[0] + 1, token.map[1], lists - 1 + quotes, token.level, list_ids[-1])
            (open_items[-1].children if open_items else roots).append(item)
            open_items.append(item)
        elif kind == "list_item_close" and open_items:
            open_items.pop()
    return roots


def _walk(items: list[_Item]) -> Iterator[_Item]:
    for item in items:
        yield item
        yield from _walk(item.children)


@dataclass(frozen=True)
class _Located:
    """A step with the item it came from and its lines in the original text (comments included)."""

    step: Step
    item: _Item  # line numbers of the comment-free text
    line: int  # the item's first line in `text` (1-based)
    text_lines: tuple[int, ...]  # the lines of `text` the step's text was read from (1-based)


def _locate(text: str) -> tuple[list[_Located], StepList]:
    # Steps are read from the text without review comments, as the canonical hash, the diff and
    # the review screen read it; `origin` maps its lines back to `text`'s for Step.line and edits.
    body, origin = without_feedback(text)

    def line_in_text(line: int) -> int:
        return origin[line - 1] + 1 if origin is not None else line

    parsed = parse_tokens(body)
    doc = parsed.document
    lines = doc.lines
    found = steps_section(doc.sections)
    if found is not None:
        section, scope_end = found
        source: StepSource = "steps_section"
        lo, hi, title = section.start, scope_end, section.title
    else:
        source, lo, hi, title = "shallowest_list", 1, len(lines), None
    candidates = [item for item in _walk(_items(parsed.tokens)) if lo <= item.start <= hi]
    if not candidates:
        return [], StepList((), source if found is not None else "none", title)
    if found is None:
        # Without a Steps section, task lists (lists with a checkbox item) are the plan's steps when present.
        task_lists = {item.list_id for item in candidates if _has_checkbox(lines[item.start - 1])}
        if task_lists:
            candidates = [item for item in candidates if item.list_id in task_lists]
    shallowest = min(item.depth for item in candidates)
    chosen: list[_Item] = []
    for item in candidates:
        # Items nested in an already chosen step are its notes, whatever their depth.
        if item.depth == shallowest and not (chosen and chosen[-1].start <= item.start <= chosen[-1].end):
            chosen.append(item)
    located: list[_Located] = []
    for number, item in enumerate(chosen, start=1):
        line = line_in_text(item.start)
        step, (first, last) = _make_step(number, item, lines, line)
        located.append(_Located(step, item, line, tuple(line_in_text(n) for n in range(first, last + 1))))
    return located, StepList(tuple(loc.step for loc in located), source, title)


def _has_checkbox(line: str) -> bool:
    match = ITEM_LINE.match(line.removesuffix("\r"))
    return bool(match and match.group("box"))


def _make_step(index: int, item: _Item, lines: tuple[str, ...], line: int) -> tuple[Step, tuple[int, int]]:
    first = lines[item.start - 1].removesuffix("\r")
    match = ITEM_LINE.match(first)
    # Five or more spaces after the marker make the item's content indented code, where `[x]` is
    # text: the canonical hash keeps it, so it must not read (or be edited) as a checkbox either.
    has_checkbox = bool(match and match.group("box")) and item.first_kind != "code_block"
    state = match.group("state") if match is not None and has_checkbox else None
    raw = (first[match.end() :] if has_checkbox else first[match.end("gap") :]) if match else first
    if item.para and item.content is not None and (item.para[0] == item.start or not raw.strip()):
        # The first paragraph, on the marker line or right below an otherwise empty one.
        content, text_lines = item.content, item.para
    else:
        # The item opens with something else (a heading, a fence, a nested list): use its first line.
        content, text_lines = raw, (item.start, item.start)
    if has_checkbox:
        content = _LEADING_BOX.sub("", content, count=1)
    done_marker = bool(DONE_MARKER.search(content))
    text = strip_inline(strip_done_markers(content))
    notes = tuple(_note(child) for child in _walk(item.children))
    status: StepStatus = (
        "completed"
        if done_marker or (state and state in "xX")
        else "in_progress"
        if state == "~"
        else "pending"
    )
    step = Step(
        index=index,
        text=text,
        display=shorten(text),
        completed=status == "completed",
        has_checkbox=has_checkbox,
        line=line,
        notes=notes,
        status=status,
    )
    return step, text_lines


def _note(item: _Item) -> str:
    return strip_inline(item.content or "")


def shorten(text: str, limit: int = DISPLAY_LIMIT) -> str:
    """`text` cut to `limit` characters, ending in "…" when it was longer."""
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def extract_steps(text: str) -> StepList:
    """The plan's steps (see the module docstring for the rules). Never raises on any str."""
    return _locate(text)[1]


# --- checkbox editing ---------------------------------------------------------------------------


def _coerce(update: StepUpdate | Mapping[str, Any], position: int) -> StepUpdate:
    raw_step: Any
    status: Any
    expected: Any
    if isinstance(update, StepUpdate):
        raw_step, status, expected = update.step, update.status, update.expected
    elif isinstance(update, Mapping):
        raw_step, status, expected = update.get("step"), update.get("status"), update.get("expected")
    else:
        raise StepUpdateError(
            f"update #{position} must be an object with step, status and optional expected "
            f"(got {type(update).__name__})"
        )
    step = raw_step
    if isinstance(step, str) and step.strip().isdigit():
        step = int(step.strip())
    if isinstance(step, bool) or not isinstance(step, int):
        raise StepUpdateError(f"update #{position}: step must be a 1-based step number (got {raw_step!r})")
    if status not in STEP_STATUSES:
        raise StepUpdateError(
            f"step {step}: status must be 'pending', 'in_progress' or 'completed' (got {status!r}); "
            "nothing was changed",
            (step,),
        )
    if expected is not None and not isinstance(expected, str):
        raise StepUpdateError(f"step {step}: expected must be the step's text (got {expected!r})", (step,))
    return StepUpdate(step, status, expected)


def _comparable(text: str) -> str:
    text = _LEADING_BOX.sub("", " ".join(text.split()))
    return " ".join(strip_inline(strip_done_markers(text)).split()).casefold()


def _matches(expected: str, step: Step) -> bool:
    want = _comparable(expected)
    have = _comparable(step.text)
    if want == have:
        return True
    if want.endswith("…"):  # the display form was passed back
        return have.startswith(want[:-1].rstrip())
    return False


def set_steps(text: str, updates: Iterable[StepUpdate | Mapping[str, Any]]) -> str:
    """`text` with the named steps' checkboxes set; every other byte unchanged. All or nothing."""
    if isinstance(updates, Mapping | StepUpdate):
        updates = [updates]
    wanted = [_coerce(update, i + 1) for i, update in enumerate(updates)]
    located, steps = _locate(text)
    problems: list[str] = []
    bad: list[int] = []
    final: dict[int, StepUpdate] = {}
    total = len(located)
    for update in wanted:
        if not 1 <= update.step <= total:
            have = (
                f"the plan has {total} step{'s' if total != 1 else ''}" if total else "the plan has no steps"
            )
            problems.append(f"step {update.step} is out of range ({have})")
            bad.append(update.step)
            continue
        step = located[update.step - 1].step
        if update.expected is not None and not _matches(update.expected, step):
            problems.append(
                f"step {update.step} no longer matches: expected {shorten(update.expected, 80)!r}, "
                f"the plan says {shorten(step.text, 80)!r}"
            )
            bad.append(update.step)
            continue
        previous = final.get(update.step)
        if previous is not None and previous.status != update.status:
            both = sorted((previous.status, update.status), key=STEP_STATUSES.index)
            problems.append(f"step {update.step} is set to both {both[0]} and {both[1]}")
            bad.append(update.step)
            continue
        if not step.has_checkbox and located[update.step - 1].item.first_kind != "paragraph_open":
            what = _KIND_NAMES.get(located[update.step - 1].item.first_kind or "", "nothing")
            problems.append(
                f"step {update.step} starts with {what} instead of text, so it cannot take a checkbox "
                "without changing the plan; put the step's text on its first line"
            )
            bad.append(update.step)
            continue
        final[update.step] = update
    if problems:
        raise StepUpdateError(
            "; ".join(problems) + ". Nothing was changed: read the plan's steps again and retry with "
            "the current step numbers and texts.",
            tuple(bad),
        )
    if not final:
        return text
    edited = _apply(text, located, final)
    if steps.source == "shallowest_list" and _texts(edited) != _texts(steps):
        # No Steps section and no checklist: the steps are every top-level list, and the first box
        # inserted would make its list the plan's only checklist, hiding (and renumbering) the other
        # steps. Giving every step its box keeps them all; statuses and the canonical hash are unchanged.
        boxed = dict(final)
        for number, loc in enumerate(located, start=1):
            if number not in boxed and not loc.step.has_checkbox and loc.item.first_kind == "paragraph_open":
                boxed[number] = StepUpdate(number, loc.step.status)
        edited = _apply(text, located, boxed)
        if _texts(edited) != _texts(steps):
            raise StepUpdateError(
                "setting these checkboxes would change which items count as the plan's steps; add a "
                "'## Steps' section holding the steps, then retry. Nothing was changed.",
                tuple(final),
            )
    return edited


def _texts(found: str | StepList) -> list[str]:
    return [step.text for step in (extract_steps(found) if isinstance(found, str) else found).steps]


def _apply(text: str, located: list[_Located], updates: Mapping[int, StepUpdate]) -> str:
    pieces: list[str | None] = list(text.split("\n"))
    for number, update in updates.items():
        _edit(pieces, located[number - 1], update.status)
    return "\n".join(piece for piece in pieces if piece is not None)


_KIND_NAMES = {
    "fence": "a code fence",
    "code_block": "indented code",
    "heading_open": "a heading",
    "blockquote_open": "a quote",
    "bullet_list_open": "a nested list",
    "ordered_list_open": "a nested list",
    "html_block": "HTML",
    "table_open": "a table",
    "hr": "a rule",
}


def _edit(pieces: list[str | None], loc: _Located, status: StepStatus) -> None:
    index = loc.line - 1
    line = pieces[index]
    assert line is not None
    body, cr = (line[:-1], "\r") if line.endswith("\r") else (line, "")
    match = ITEM_LINE.match(body)
    if match is None:  # pragma: no cover - every located item's first line carries its marker
        return
    want = _BOX_CHAR[status]
    if match.group("box"):
        at = match.start("state")
        state = body[at]
        # An `X` already says completed: keep the author's spelling.
        if not (status == "completed" and state in "xX"):
            body = body[:at] + want + body[at + 1 :]
    else:
        box = f"[{want}]"
        at = match.end("gap")
        body = body[:at] + (f"{box} " if match.group("gap") else f" {box}") + body[at:]
    pieces[index] = body + cr
    if status != "completed":
        # A reopened (or restarted) step loses its [DONE:n] markers (only within the lines its text was read from).
        for number in loc.text_lines:
            i = number - 1
            if i >= len(pieces):
                continue
            piece = pieces[i]
            if piece is None or "[" not in piece:
                continue
            tail = "\r" if piece.endswith("\r") else ""
            kept = strip_done_markers(piece[: len(piece) - len(tail)])
            # A continuation line that held only the marker goes, rather than becoming a blank
            # line that would split the item.
            pieces[i] = None if (i != index and not kept.strip()) else kept + tail
