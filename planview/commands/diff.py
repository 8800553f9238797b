"""`planview diff PLAN [--rev N] [--json]`: what changed in a plan, word by word, since a review.

Compares the plan on disk with the last revision a person reviewed (`--rev N`: the Nth, 1 = the
first), kept under `.planview/reviews/` by every review (terminal and browser). Prints each changed,
added and removed section with deleted words as `[-old-]` and inserted words as `{+new+}` (also
coloured at a terminal); `--json` prints
`{"plan", "revision", "revisions", "revision_sha256", "reviewed_at", "changed", "changed_count",
"removed", "sections": [{"index", "title", "status", "pieces": [{"op": equal|insert|delete, "text"}]}]}`.
Exit 0 when nothing changed, 1 when something did, 2 on bad input (no such plan, never reviewed,
no such revision). A damaged revision store is reported on stderr and rebuilt from what is intact.
"""

from __future__ import annotations

import argparse
import sys

from planview.errors import PlanviewError
from planview.textsafe import json_for_terminal, sanitize_for_terminal, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from planview.plan.word_diff import SectionWords


class DiffInputError(PlanviewError):
    """`planview diff` cannot compare: the plan was never reviewed here, or no such revision."""


def register(subparsers: argparse._SubParsersAction) -> None:
    diff = subparsers.add_parser(
        "diff",
        help="what changed in a plan, word by word, since it was last reviewed",
        description="Print the sections of PLAN that changed since the last revision a person reviewed, "
        "deleted words as [-old-] and inserted ones as {+new+}. Exit status: 0 no change, 1 changed, "
        "2 bad input (not a plan, never reviewed, no such revision).",
    )
    diff.add_argument("path", metavar="PLAN", help="the Markdown plan (e.g. .planview/plans/<name>.md)")
    diff.add_argument(
        "--rev",
        type=int,
        metavar="N",
        help="compare with the Nth reviewed revision (1 = the first; default: the last)",
    )
    diff.add_argument("--json", action="store_true", help="print the sections and their word pieces as JSON")
    diff.set_defaults(handler=run_diff)


def run_diff(args: argparse.Namespace) -> int:
    from planview.commands.review import check_plan
    from planview.home import planview_home
    from planview.plan.reviews import ReviewBaselines
    from planview.plan.word_diff import section_words

    path, text = check_plan(args.path)
    shown = sanitize_for_terminal(str(path))
    store = ReviewBaselines(planview_home())
    history = store.history(path)
    if history.damage is not None:
        try:
            store.repair(path)
            done = f"rebuilt it from the {len(history.revisions)} intact revision(s)"
        except OSError as exc:
            done = f"could not rebuild it ({exc.strerror or exc}); check that the folder is writable"
        say(f"planview: warning: {sanitize_for_terminal(history.damage)}; {done}", file=sys.stderr)
    count = len(history.revisions)
    if count == 0:
        raise DiffInputError(
            f"{shown} has not been reviewed yet: there is no revision to compare with; "
            f"review it first with `planview review {shown}`"
        )
    number = count if args.rev is None else args.rev
    if not 1 <= number <= count:
        raise DiffInputError(
            f"--rev {args.rev}: {shown} has {count} reviewed revision{'s' if count != 1 else ''}; "
            f"give --rev 1 to {count}"
        )
    picked = store.revision_text(path, number)
    if picked is None:  # vanished between the two reads: say so rather than compare with nothing
        raise DiffInputError(f"revision {number} of {shown} could not be read; run `planview diff` again")
    revision, before = picked
    sections = section_words(before, text)
    changed = bool(sections)
    if args.json:
        say(
            json_for_terminal(
                {
                    "plan": str(path),
                    "revision": number,
                    "revisions": count,
                    "revision_sha256": revision.sha256,
                    "reviewed_at": revision.at or None,
                    "changed": changed,
                    "changed_count": sum(1 for s in sections if s.status != "removed"),
                    "removed": [s.title for s in sections if s.status == "removed"],
                    "sections": [_section_json(s) for s in sections],
                }
            )
        )
        return 1 if changed else 0
    when = f", reviewed {revision.at}" if revision.at else ""
    if not changed:
        say(f"no change: {shown} is as revision {number} of {count}{when} showed it")
        return 0
    say(f"{shown} against revision {number} of {count}{when}: {len(sections)} section(s) changed")
    color = _is_tty(sys.stdout)
    for section in sections:
        say()
        say(render_section(section, color=color), colors=_SGR)
    return 1


def _section_json(section: SectionWords) -> dict[str, object]:
    return {
        "index": section.index if section.index >= 0 else None,
        "title": section.title,
        "status": section.status,
        "pieces": [{"op": p.op, "text": p.text} for p in section.pieces],
    }


_MARKS = {"delete": ("[-", "-]", "\x1b[31;9m"), "insert": ("{+", "+}", "\x1b[32;4m")}
_SGR = ("\x1b[31;9m", "\x1b[32;4m", "\x1b[0m")  # the only sequences `say` lets through here


def render_section(section: SectionWords, *, color: bool) -> str:
    """A section's heading row, then its text with deletions `[-…-]` and insertions `{+…+}` (sanitised)."""
    title = sanitize_for_terminal(section.title) or "Preamble"
    out = [f"§ {title} · {section.status}"]
    for piece in section.pieces:
        text = sanitize_for_terminal(piece.text)
        if piece.op == "equal":
            out.append(text)
            continue
        opener, closer, sgr = _MARKS[piece.op]
        # Marks close before a line break and open again after it: each line reads on its own.
        marked = "\n".join(
            (f"{sgr}{opener}{line}{closer}\x1b[0m" if color else f"{opener}{line}{closer}") if line else ""
            for line in text.split("\n")
        )
        out.append(marked)
    return "".join(out[:1]) + "\n" + "".join(out[1:]).rstrip("\n")


def _is_tty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False
