"""The one key map: every screen's keys, defined once (pure data, no UI import).

Each screen is a tuple of `KeyRow`s. A row is one line of that screen's `?` sheet and README table
(`description`), holds the bindings it stands for (each with the id `[keys]` in the config uses to
rebind it, and the action it runs), and — when it has a `label` — one footer hint, shown while the
screen's state satisfies `when`. The Textual screens build their BINDINGS from these rows, the footer
hints and `?` sheet draw them, `/help` lists the session's, the browser page receives the web rows in its
data island, and a test checks README's key tables against `markdown_table`.

Key names are Textual's (`escape`, `question_mark`, `ctrl+d`; alternatives comma-separated);
`key_display` turns them into what the reader sees (`Esc`, `?`, `Ctrl+D`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from planview.errors import PlanviewError


class KeyMapError(PlanviewError):
    """A `[keys]` entry names a binding no screen has, or a key no terminal sends."""


@dataclass(frozen=True)
class Key:
    """One binding: its config id (`review.approve`), its keys (Textual names, comma-separated
    alternatives, the first one shown), the screen action it runs and whether it beats a focused
    widget's own keys (`priority`)."""

    id: str
    keys: str
    action: str
    priority: bool = False

    @property
    def alternatives(self) -> tuple[str, ...]:
        return tuple(k.strip() for k in self.keys.split(",") if k.strip())


@dataclass(frozen=True)
class KeyRow:
    """One line of a screen's key list: the bindings it stands for, what they do (`description`),
    and its footer hint (`label`, `short` when narrow; none when `label` is empty) shown while the
    screen's condition `when` holds ("" always). `footer` orders the hints (lowest first, and the
    first is the safe exit, kept last when the width shrinks). `keys_shown` replaces the keys derived
    from the bindings where a widget handles the key itself (Enter in an editor, the mouse wheel)."""

    description: str
    bindings: tuple[Key, ...] = ()
    label: str = ""
    short: str = ""
    footer: int = 0
    when: str = ""
    keys_shown: str = ""

    @property
    def display(self) -> str:
        """The keys as the `?` sheet writes them: `↑ ↓  k j` (first keys, then the alternatives)."""
        if self.keys_shown:
            return self.keys_shown
        columns: list[list[str]] = []
        for key in self.bindings:
            for i, name in enumerate(_shown_alternatives(key)):
                while len(columns) <= i:
                    columns.append([])
                if name not in columns[i]:
                    columns[i].append(name)
        return "  ".join(" ".join(column) for column in columns)

    @property
    def hint_key(self) -> str:
        """The keys as a footer hint writes them: `n/p` (each binding's first key)."""
        if self.keys_shown:
            return self.keys_shown.split()[0]
        firsts = [_shown_alternatives(key)[0] for key in self.bindings if key.alternatives]
        return "/".join(dict.fromkeys(firsts))


_NAMES = {
    "escape": "Esc",
    "question_mark": "?",
    "slash": "/",
    "space": "space",
    "enter": "Enter",
    "up": "↑",
    "down": "↓",
    "left": "←",
    "right": "→",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "home": "Home",
    "end": "End",
    "tab": "Tab",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
}


def key_display(name: str) -> str:
    """A Textual key name as written for people: `escape` → `Esc`, `ctrl+d` → `Ctrl+D`."""
    if name in _NAMES:
        return _NAMES[name]
    *mods, last = name.split("+")
    last = _NAMES.get(last, last.upper() if mods and len(last) == 1 else last)
    return "+".join([*(m.capitalize() for m in mods), last])


def _shown_alternatives(key: Key) -> list[str]:
    """A binding's keys as shown, without a spelling that only repeats another (`G` and `shift+g`)."""
    shown: list[str] = []
    for name in key.alternatives:
        text = key_display(name)
        if name.startswith("shift+") and len(name) == 7 and name[-1].upper() in shown:
            continue
        if text not in shown:
            shown.append(text)
    return shown


def _k(id: str, keys: str, action: str, priority: bool = False) -> Key:
    return Key(id, keys, action, priority)


# -- the review screen ----------------------------------------------------------------------------
# `d` shows the word diff of the changed sections (issue 26), so half a page is Ctrl+D / Ctrl+U; `u`
# stays as half a page up (it clashes with nothing and readers of `less` expect it).
REVIEW: tuple[KeyRow, ...] = (
    KeyRow(
        "a line",
        (_k("review.line_up", "up,k", "lines(-1)"), _k("review.line_down", "down,j", "lines(1)")),
    ),
    KeyRow(
        "a page (one line of overlap)",
        (_k("review.page_up", "pageup,b", "pages(-1)"), _k("review.page_down", "pagedown,space", "pages(1)")),
    ),
    KeyRow(
        "half a page",
        (_k("review.half_up", "ctrl+u,u", "half(-1)"), _k("review.half_down", "ctrl+d", "half(1)")),
    ),
    KeyRow(
        "top / bottom",
        (_k("review.top", "g,home", "top"), _k("review.bottom", "G,shift+g,end", "bottom")),
    ),
    KeyRow("scroll", keys_shown="mouse wheel"),
    KeyRow(
        "next / previous section (the highlighted cursor)",
        (_k("review.next_section", "n", "section(1)"), _k("review.previous_section", "p", "section(-1)")),
        label="section",
        footer=3,
    ),
    KeyRow(
        "next / previous changed section",
        (
            _k("review.next_changed", "right_square_bracket", "changed(1)"),
            _k("review.previous_changed", "left_square_bracket", "changed(-1)"),
        ),
        label="changed",
        footer=6,
        when="changed",
    ),
    KeyRow(
        "search the plan (Enter or ↓ next match, ↑ previous, Esc leaves)",
        (_k("review.search", "slash", "search"),),
        label="search",
        short="search",
        footer=5,
    ),
    KeyRow(
        "diff: the words changed since your last review (show / hide)",
        (_k("review.diff", "d", "diff"),),
        label="diff",
        short="diff",
        footer=7,
        when="changed",
    ),
    KeyRow(
        "outline of the sections: show / hide",
        (_k("review.outline", "o", "outline"),),
        label="outline",
        short="outline",
        footer=8,
    ),
    KeyRow("front matter: show / fold", (_k("review.front_matter", "f", "front_matter"),)),
    KeyRow(
        "approve & run (asks once: what you have seen, an optional note)",
        (_k("review.approve", "a", "approve"),),
        label="approve & run",
        short="approve",
        footer=1,
        when="approvable",
    ),
    KeyRow(
        "refine: write what should change",
        (_k("review.refine", "r", "refine"),),
        label="refine",
        short="refine",
        footer=2,
    ),
    KeyRow(
        "review in the browser: comment, save, approve",
        (_k("review.web", "w", "web"),),
        label="web",
        short="web",
        footer=4,
    ),
    KeyRow(
        "keep planning (not approved)",
        (_k("review.keep", "escape", "keep"),),
        label="keep planning",
        short="keep",
        footer=0,
    ),
    KeyRow("this list", (_k("review.keys", "question_mark", "keys"),), label="keys", short="keys", footer=9),
)


# While `/` is open (the search bar has the keys).
SEARCH: tuple[KeyRow, ...] = (
    KeyRow(
        "leave the search (the view stays)",
        (_k("search.leave", "escape", "leave"),),
        "leave search",
        "leave",
        0,
    ),
    KeyRow("next match", (_k("search.next", "enter,down", "match(1)"),), "next", "next", 1),
    KeyRow("previous match", (_k("search.previous", "up", "match(-1)"),), "previous", "prev", 2),
    KeyRow(
        "search as you type: lower case matches any case, a capital matches exactly", keys_shown="letters"
    ),
)

# The `a` confirmation line.
CONFIRM: tuple[KeyRow, ...] = (
    KeyRow("back to the plan, nothing approved", (_k("confirm.back", "escape", "back"),), "back", "back", 0),
    KeyRow(
        "approve & run (with the note, if any)",
        keys_shown="Enter",
        label="approve",
        short="approve",
        footer=1,
    ),
    KeyRow("an optional note for the ledger and the agent", keys_shown="letters"),
)

# The inline refine editor.
EDITOR: tuple[KeyRow, ...] = (
    KeyRow(
        "back to the plan (the draft is kept)", keys_shown="Esc", label="back to plan", short="back", footer=0
    ),
    KeyRow("send the refinement", keys_shown="Enter", label="send", short="send", footer=1),
    KeyRow("new line", keys_shown="Ctrl+J", label="newline", short="newline", footer=2),
)

# The browser review page (planview/web/assets/client.js reads these from its data island).
WEB: tuple[KeyRow, ...] = (
    KeyRow("next / previous block", (_k("web.next", "j", "next"), _k("web.previous", "k", "previous"))),
    KeyRow("comment on the current block", (_k("web.comment", "c", "comment"),)),
    KeyRow("edit the current block's newest comment", (_k("web.edit", "e", "edit"),)),
    KeyRow("save feedback into the plan file", (_k("web.save", "s", "save"),)),
    KeyRow("approve & run", (_k("web.approve", "a", "approve"),), when="approvable"),
    KeyRow(
        "show / hide the words changed since your last review", (_k("web.diff", "d", "diff"),), when="diff"
    ),
    KeyRow("close the composer, this sheet, then the review", (_k("web.close", "Escape", "close"),)),
    KeyRow("this sheet", (_k("web.sheet", "?", "sheet"),)),
)

# The session app (its prompt handles Enter, Ctrl+J and ↑ itself).
SESSION: tuple[KeyRow, ...] = (
    KeyRow("send", keys_shown="Enter"),
    KeyRow("newline", keys_shown="Ctrl+J"),
    KeyRow("history", keys_shown="↑"),
    KeyRow(
        "scroll the transcript",
        (
            _k("transcript.page_up", "pageup", "page_transcript(-1)", priority=True),
            _k("transcript.page_down", "pagedown", "page_transcript(1)", priority=True),
        ),
    ),
    KeyRow("cancel the turn", (_k("turn.cancel", "escape", "cancel_turn"),)),
    KeyRow(
        "plan mode (/plan in any terminal)",
        (_k("plan.toggle", "ctrl+alt+p,alt+ctrl+p", "toggle_plan"),),
        label="plan mode (/plan)",
    ),
    KeyRow("expand tool output", (_k("tools.expand", "ctrl+o", "expand_tools"),), label="expand"),
    KeyRow("the todo list, where a narrow screen folded it", (_k("todos.toggle", "ctrl+t", "toggle_todos"),)),
    KeyRow("command palette", keys_shown="Ctrl+P"),
)

SCREENS: Mapping[str, tuple[KeyRow, ...]] = {
    "review": REVIEW,
    "search": SEARCH,
    "confirm": CONFIRM,
    "editor": EDITOR,
    "web": WEB,
    "session": SESSION,
}


def all_ids() -> dict[str, Key]:
    return {key.id: key for rows in SCREENS.values() for row in rows for key in row.bindings}


def with_overrides(rows: Sequence[KeyRow], overrides: Mapping[str, str]) -> tuple[KeyRow, ...]:
    """`rows` with the keys `[keys]` rebinds (`"review.approve" = "ctrl+a"`); other entries are ignored
    (they belong to another screen: `check_overrides` reports the unknown ones)."""
    if not overrides:
        return tuple(rows)
    out = []
    for row in rows:
        bindings = tuple(
            replace(key, keys=str(overrides[key.id]).strip()) if key.id in overrides else key
            for key in row.bindings
        )
        out.append(replace(row, bindings=bindings) if bindings != row.bindings else row)
    return tuple(out)


def check_overrides(overrides: Mapping[str, object], where: str = "[keys]") -> None:
    """Refuse a `[keys]` entry that names no binding, so a typo is not silently ignored."""
    known = all_ids()
    for name, value in overrides.items():
        if name not in known:
            close = sorted(k for k in known if k.split(".")[0] == str(name).split(".")[0]) or sorted(known)
            raise KeyMapError(f"{where}: no key called {name!r}; rebind one of: {', '.join(close)}")
        if not isinstance(value, str) or not value.strip():
            raise KeyMapError(f'{where}: {name} must be a key name such as "ctrl+p"')


def footer_rows(rows: Iterable[KeyRow], state: Mapping[str, bool] | None = None) -> tuple[KeyRow, ...]:
    """The rows with a footer hint whose condition holds, in footer order."""
    state = state or {}
    shown = [row for row in rows if row.label and (not row.when or state.get(row.when, False))]
    return tuple(sorted(shown, key=lambda row: row.footer))


def markdown_table(rows: Sequence[KeyRow]) -> str:
    """The rows as README's key table (one per screen, checked by a test)."""
    lines = ["| keys | what they do |", "|---|---|"]
    for row in rows:
        if row.keys_shown:  # a widget's own key, written as words ("mouse wheel")
            keys = row.keys_shown
        else:
            keys = " ".join(f"`{part}`" for part in row.display.replace("  ", " ").split(" "))
        keys = keys.replace("|", "\\|")
        lines.append(f"| {keys} | {row.description} |")
    return "\n".join(lines)


def web_keys(approve: bool, diff: bool) -> list[dict[str, str]]:
    """The browser page's key sheet for its data island (client.js draws it; its key handler is
    checked against these rows by a test): `shown` as the page writes keys, `what` they do."""
    state = {"approvable": approve, "diff": diff}
    return [
        {"shown": " / ".join(key.alternatives[0] for key in row.bindings), "what": row.description}
        for row in WEB
        if not row.when or state.get(row.when, False)
    ]
