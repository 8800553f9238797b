"""The canonical hash without the parser (`canonical_parts`, `canonical_sha256_known`) is the full one.

The Claude hook re-hashes a plan whose only change is ticked boxes from the last verified text's
skeleton and code ranges, without markdown-it. These properties hold it to the full parse: on every
corpus plan and on generated plans (fences, indented code, quotes, tables, HTML, tabs, lone CRs,
review comments, link definitions) with boxes flipped anywhere, code blocks included.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planview.plan.canonical import (
    ITEM_LINE,
    canonical_parts,
    canonical_sha256,
    canonical_sha256_known,
    canonical_text,
)
from planview.plan.document import parse_tokens
from planview.plan.feedback import strip_feedback

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_plan_properties import FRAGMENTS

REPO = Path(__file__).resolve().parents[2]
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STATES = " xX~"
# More of what decides code, and boxes in every container.
EXTRA = [
    "```",
    "```",
    "~~~~",
    "- [ ] a",
    "- [x] b",
    "  - [ ] nested",
    "      - [ ] deep, maybe code",
    "    - [X] four in",
    "        - [~] eight in",
    "-     [ ] five after the marker",
    "1. [ ] ordered",
    "> - [ ] quoted",
    ">     - [ ] quoted code?",
    "\t- [ ] tab",
    "- [x]: /url",
    "[x]: /url",
    "- [ ] a | b",
    "| - [ ] cell | b |",
    "<pre>",
    "</pre>",
    "- [ ] a\r- [x] b",
    "x\r```",
    "- [ ] [DONE:1]",
    "[DONE:4]",
    "  ```",
    "   ~~~",
    "- ```",
    "  - [ ] in item fence",
]


def _flip(text: str, rng: random.Random) -> str:
    """`text` with the state of some boxes (anywhere, code too) changed, nothing else."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        pieces = line.split("\r")
        for j, piece in enumerate(pieces):
            match = ITEM_LINE.match(piece)
            if match is not None and match.group("box") is not None and rng.random() < 0.6:
                at = match.start("state")
                pieces[j] = piece[:at] + rng.choice(STATES) + piece[at + 1 :]
        lines[i] = "\r".join(pieces)
    return "\n".join(lines)


def _check(text: str, flipped: str) -> None:
    parts = canonical_parts(text)
    assert parts.sha256 == canonical_sha256(text)
    known = canonical_sha256_known(flipped, parts)
    assert known is not None, "a text changed only in its boxes' states keeps its skeleton"
    assert known.sha256 == canonical_sha256(flipped)
    assert known == canonical_parts(flipped)._replace(code_ranges=known.code_ranges)
    if parts.code_ranges is not None:
        # The premise: a box's state never moves the code lines.
        normal = strip_feedback(flipped.removeprefix("\ufeff").replace("\r\n", "\n"))
        assert parse_tokens(normal).code_ranges == parts.code_ranges


def _corpus() -> list[Path]:
    shared = REPO.parent / "shared" / "corpus" / "plans"
    found = sorted(shared.glob("*.md")) if shared.is_dir() else []
    return found + sorted((REPO / "plans").glob("2*.md"))


def test_every_corpus_plan_with_its_boxes_flipped() -> None:
    # The repository's own sample plans always run; ../shared/corpus adds the real ones when present.
    plans = _corpus()
    assert len(plans) >= 2
    for path in plans:
        text = path.read_bytes().decode("utf-8")
        for seed in range(6):
            _check(text, _flip(text, random.Random(seed)))


@FAST
@given(st.lists(st.sampled_from(FRAGMENTS + EXTRA), max_size=40), st.integers(0, 2**32), st.booleans())
def test_generated_plans_with_boxes_flipped(lines: list[str], seed: int, crlf: bool) -> None:
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    _check(text, _flip(text, random.Random(seed)))


@FAST
@given(
    st.lists(st.sampled_from(FRAGMENTS + EXTRA), max_size=30),
    st.text(alphabet="-[]x ~`>\t\r\n:|", max_size=20),
)
def test_any_other_change_is_refused_or_exact(lines: list[str], noise: str) -> None:
    """A change beyond box states: the fast path says None (the hook parses in full) or is exact."""
    text = "\n".join(lines) + "\n"
    changed = text + noise if lines else noise
    known = canonical_sha256_known(changed, canonical_parts(text))
    assert known is None or known.sha256 == canonical_sha256(changed)


def test_a_plan_whose_code_does_not_decide_is_never_parsed() -> None:
    """No box or marker outside what would be stripped anyway: the parse is skipped entirely."""
    text = "# Plan\n\n## Goal\n\n```\ncode [with brackets]\n```\n\n- plain item [link](x)\n"
    parts = canonical_parts(text)
    assert parts.code_ranges is None
    assert parts.sha256 == canonical_sha256(text)
    assert canonical_text(text).endswith("- plain item [link](x)\n")
