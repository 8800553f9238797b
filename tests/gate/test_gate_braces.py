"""Brace-expansion refusal: the one-pass check agrees with the obvious innermost-first rewrite."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from planview.gate.git_shell import check_git_command
from planview.gate.shell_words import ShellRefusal, _check_braces

_INNER = re.compile(r"\{[^{}]*\}")


def _reference(skeleton: str) -> bool:
    """The rule as first written (quadratic): collapse innermost groups, refuse one with , or .."""
    while (found := _INNER.search(skeleton)) is not None:
        if "," in found.group() or ".." in found.group():
            return False
        skeleton = skeleton[: found.start()] + "_" + skeleton[found.end() :]
    return True


def _accepts(skeleton: str) -> bool:
    try:
        _check_braces(skeleton)
    except ShellRefusal:
        return False
    return True


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="{},.ab_", max_size=30))
def test_one_pass_check_matches_the_innermost_first_rule(skeleton: str) -> None:
    assert _accepts(skeleton) == _reference(skeleton)


def test_deeply_nested_and_long_brace_words_are_checked_whole() -> None:
    # The innermost-first rewrite took minutes on inputs this size (a model can send them).
    deep = "{" * 100_000 + "a,b" + "}" * 100_000
    assert not check_git_command(f"git log {deep}").allowed
    assert "brace expansion" in check_git_command(f"git log {deep}").reason
    assert check_git_command("git log x" + "{}" * 100_000).allowed
    assert check_git_command("git log " + "{" * 50_000 + "}" * 50_000).allowed
