"""The rule language as an attacker would test it: the glob matcher against a brute-force reference,
last-match-wins against a reference loop, and the inputs that must be refused (policy engines' threshold
and rollback bugs live in exactly this code)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planview.team.errors import PolicyError
from planview.team.globs import check_pattern, matches
from planview.team.policy import Policy, Rule, parse_policy, parse_signers
from planview.team.record import MalformedRecord, parse_line
from planview.team.scope import plan_scope

# ---------------------------------------------------------------- brute-force reference


def ref_segment(pattern: str, text: str) -> bool:
    """Character-level match of one segment: * any run, ? one character (no / in either)."""
    if not pattern:
        return not text
    head = pattern[0]
    if head == "*":
        return any(ref_segment(pattern[1:], text[k:]) for k in range(len(text) + 1))
    if not text:
        return False
    return (head == "?" or head == text[0]) and ref_segment(pattern[1:], text[1:])


def ref_match(pattern: str, path: str) -> bool:
    """Segment-level: ** is zero or more whole segments. Tries every split (exponential, tiny inputs)."""

    def go(ps: list[str], ss: list[str]) -> bool:
        if not ps:
            return not ss
        if ps[0] == "**":
            return any(go(ps[1:], ss[k:]) for k in range(len(ss) + 1))
        return bool(ss) and ref_segment(ps[0], ss[0]) and go(ps[1:], ss[1:])

    return go(pattern.split("/"), path.split("/"))


def ref_rule(rules: list[tuple[tuple[str, ...], int]], path: str) -> int | None:
    """The index of the last rule any of whose patterns matches (None: none)."""
    found = None
    for index, (patterns, _) in enumerate(rules):
        for pattern in patterns:
            if ref_match(pattern, path):
                found = index
    return found


segment_text = st.text(alphabet="ab.", min_size=1, max_size=3)
path_st = st.lists(segment_text, min_size=1, max_size=4).map("/".join)
pattern_segment = st.one_of(st.just("**"), st.text(alphabet="ab.*?", min_size=1, max_size=4)).filter(
    lambda s: s == "**" or ("**" not in s and s not in (".", ".."))
)
pattern_st = st.lists(pattern_segment, min_size=1, max_size=4).map("/".join)


@settings(max_examples=600, deadline=None)
@given(pattern_st, path_st)
def test_the_matcher_agrees_with_the_brute_force_reference(pattern: str, path: str) -> None:
    if path.split("/").count(".") or ".." in path.split("/"):
        return  # git never names such a path
    assert matches(pattern, path) == ref_match(pattern, path)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(pattern_st, min_size=1, max_size=3), st.integers(1, 3)), min_size=1, max_size=5
    ),
    path_st,
)
def test_last_match_wins_agrees_with_the_reference(raw: list, path: str) -> None:
    rules = [(tuple(patterns), n) for patterns, n in raw]
    policy = Policy(tuple(Rule(i + 1, p, n) for i, (p, n) in enumerate(rules)), {})
    found = policy.rule_for(path)
    expected = ref_rule(rules, path)
    assert (None if found is None else found.index - 1) == expected


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("**", "a", True),
        ("**", "a/b/c", True),
        ("docs/**", "docs", True),
        ("docs/**", "docs/a/b.md", True),
        ("docs/**", "docsx/a", False),
        ("*.md", "a.md", True),
        ("*.md", "d/a.md", False),  # * never crosses a /
        ("**/*.md", "d/e/a.md", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("a/**/b", "a/x/yb", False),
        ("src/*", "src/a/b", False),
        ("?", "ab", False),
        (".planview/policy.toml", ".planview/policy.toml", True),
        (".planview/policy.toml", ".planview/policy.tomlx", False),
        ("a.b", "axb", False),  # . is a character, not "any"
    ],
)
def test_examples(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


@pytest.mark.parametrize(
    "pattern", ["", "/src/**", "src//a", "a/../b", "./a", "a**", "**b/c", "[ab]", "{a,b}", "!a", "a\\*"]
)
def test_malformed_patterns_are_refused_not_guessed(pattern: str) -> None:
    with pytest.raises(PolicyError):
        check_pattern(pattern)


# ---------------------------------------------------------------- policy.toml


def policy(text: str) -> Policy:
    return parse_policy(text.encode())


def test_no_rule_means_uncovered_not_allowed() -> None:
    p = policy('[[rules]]\npaths = ["src/**"]\napprovals = 1\n')
    assert p.rule_for("README.md") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[rules]]\npaths = ["**"]\napprovals = 0\n', "approvals must be a whole number from 1"),
        ('[[rules]]\npaths = ["**"]\napprovals = true\n', "approvals must be a whole number"),
        ('[[rules]]\npaths = ["**"]\napprovals = 1.5\n', "approvals must be a whole number"),
        ('[[rules]]\npaths = ["**"]\napprovals = -1\n', "approvals must be a whole number"),
        ("[[rules]]\npaths = []\napprovals = 1\n", "paths must be a non-empty list"),
        ('[[rules]]\npaths = "**"\napprovals = 1\n', "paths must be a non-empty list"),
        ('[[rules]]\npaths = ["**"]\napprovals = 1\ngroup = "nobody"\n', "group 'nobody' is not defined"),
        (
            '[[rules]]\npaths = ["**"]\napprovals = 1\nexclude_author = "yes"\n',
            "exclude_author must be true or false",
        ),
        ('[[rules]]\npaths = ["**"]\napprovals = 1\nthreshold = 0\n', "unknown key 'threshold'"),
        ('[[rules]]\npaths = ["[a]"]\napprovals = 1\n', "only *, ? and ** segments are special"),
        ('version = 2\n[[rules]]\npaths = ["**"]\napprovals = 1\n', "unknown key 'version'"),
        ("", "no [[rules]]"),
        ("[[rules]\n", "not valid UTF-8 TOML"),
        ('[groups]\nx = "alice"\n[[rules]]\npaths = ["**"]\napprovals = 1\n', "must be a list of principals"),
    ],
)
def test_malformed_policies_are_refused(text: str, message: str) -> None:
    with pytest.raises(
        PolicyError, match=message.replace("[", r"\[").replace("*", r"\*").replace("?", r"\?")
    ):
        policy(text)


def test_group_and_exclusion_are_read() -> None:
    p = policy(
        '[groups]\nm = ["a@x"]\n[[rules]]\npaths = ["**"]\napprovals = 2\ngroup = "m"\nexclude_author = true\n'
    )
    rule = p.rule_for("f")
    assert rule is not None and rule.approvals == 2 and rule.exclude_author
    assert p.eligible(rule, "a@x") and not p.eligible(rule, "b@x")


# ---------------------------------------------------------------- allowed_signers

KEY1 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOd/bZsHMrIeqwykIav3oymu0eIFALHgRkQY/LGYKFJX"
KEY2 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBBBbZsHMrIeqwykIav3oymu0eIFALHgRkQY/LGYKFJX"
NS = 'namespaces="planview-approval-v1"'


def test_signers_are_read_with_options() -> None:
    [a, b] = parse_signers(f"# team\na@x {NS} {KEY1} a\nb@x {NS} {KEY2}\n".encode())
    assert a.principals == ("a@x",) and a.key == KEY1
    assert b.principals == ("b@x",) and b.key == KEY2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"* {NS} {KEY1}\n", "is a pattern"),
        (f"*@x {NS} {KEY1}\n", "is a pattern"),
        (f"a@x,!b@x {NS} {KEY1}\n", "is a pattern"),
        (f"a@x {NS} {KEY1}\nb@x {NS} {KEY1}\n", "this key is also listed for 'a@x'"),
        (f"a@x cert-authority,{NS} {KEY1}\n", "cert-authority lines are not accepted"),
        ("a@x\n", "expected `principal"),
        (f'a@x namespaces="x {KEY1}\n', "unterminated quote"),
        ("# only comments\n", "lists no key"),
    ],
)
def test_signers_that_would_let_one_key_count_twice_are_refused(text: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message.replace("*", r"\*")):
        parse_signers(text.encode())


def test_two_principals_on_one_line_share_one_key_and_are_refused_as_two_people() -> None:
    """`a,b KEY` is one key for two principals: a single signature must not be able to count as both."""
    with pytest.raises(PolicyError, match="one key, one person"):
        parse_signers(f"a@x,b@x {NS} {KEY1}\n".encode())


# ---------------------------------------------------------------- scope and records


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        ("# plan\n", ("**",)),
        ("---\ntitle: x\n---\n# plan\n", ("**",)),
        ('---\nscope: "src/**"\n---\n', ("src/**",)),
        ("---\nscope: [src/**, 'docs/*.md']\n---\n", ("src/**", "docs/*.md")),
        ("---\nscope:\n  - src/**\n  - tests/**  # the tests\n---\n", ("src/**", "tests/**")),
    ],
)
def test_plan_scope(text: str, scope: tuple[str, ...]) -> None:
    assert plan_scope(text) == scope


@pytest.mark.parametrize(
    "text",
    [
        "---\nscope: []\n---\n",
        "---\nscope: [src/**\n---\n",
        "---\nscope: /etc/**\n---\n",
        "---\nscope:\n  src/**\n---\n",
    ],
)
def test_unreadable_scopes_are_refused_not_widened(text: str) -> None:
    with pytest.raises(PolicyError):
        plan_scope(text)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "{",
        "[]",
        '{"v":1}',
        '{"v":1,"payload":"{}","signature":"s","plan_text":"t"}',
        '{"v":1,"payload":"{\\"v\\": 1}","signature":"s","plan_text":"t"}',  # not canonical
        '{"v":2,"payload":"{}","signature":"s","plan_text":"t"}',
        '{"v":1,"payload":"{}","signature":"s","plan_text":"t","extra":1}',
    ],
)
def test_malformed_record_lines_are_refused(line: str) -> None:
    with pytest.raises(MalformedRecord):
        parse_line(line)


def test_only_the_one_approval_flow_signs() -> None:
    """One home per rule: approvals are signed by planview/approval/flow.py and nothing else."""
    from pathlib import Path

    package = Path(__file__).resolve().parents[2] / "planview"
    callers = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "sign_approval(" in path.read_text(encoding="utf-8")
    )
    assert callers == ["approval/flow.py", "team/signing.py"]


def test_an_old_self_ignoring_home_is_upgraded_and_a_users_own_gitignore_is_left_alone(tmp_path) -> None:
    from planview.home import HOME_GITIGNORE, track_team_policy

    old = tmp_path / "old"
    old.mkdir()
    (old / ".gitignore").write_text("*\n")  # what every home held before team policy
    assert track_team_policy(old) and (old / ".gitignore").read_text() == HOME_GITIGNORE
    own = tmp_path / "own"
    own.mkdir()
    (own / ".gitignore").write_text("*\n!/notes.md\n")
    assert not track_team_policy(own) and (own / ".gitignore").read_text() == "*\n!/notes.md\n"
    assert HOME_GITIGNORE.splitlines() == ["*", "!/allowed_signers", "!/policy.toml"]
