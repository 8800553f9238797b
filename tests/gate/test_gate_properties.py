"""Properties: the gate never raises, unquoted metacharacters are always refused, words match shlex."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planview.gate.calls import ToolCall
from planview.gate.git_shell import check_git_command
from planview.gate.path_guard import takes_path
from planview.gate.policy import decide
from planview.gate.shell_words import ShellRefusal, split_chain
from planview.textsafe import sanitize_for_terminal

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=30,
)
tool_names = st.sampled_from(
    [
        "read",
        "grep",
        "find",
        "ls",
        "todo",
        "ask_user",
        "write_plan",
        "exit_plan_mode",
        "enter_plan_mode",
        "set_plan_steps",
        "bash",
        "write",
        "edit",
        "subagent",
        "powershell",
    ]
) | st.text(max_size=12)
anything = json_values | tool_names | st.builds(object)


@SETTINGS
@given(value=anything, mode=st.sampled_from(["plan", "execute"]) | st.text(max_size=8))
def test_decide_never_raises_on_arbitrary_values(value: Any, mode: str) -> None:
    decision = decide(value, mode)
    assert isinstance(decision.allowed, bool) and isinstance(decision.reason, str)
    assert decision.allowed or decision.reason


call_mappings = st.fixed_dictionaries(
    {"tool": tool_names | json_values},
    optional={
        "input": st.dictionaries(st.text(max_size=8), json_values, max_size=5) | json_values,
        "annotations": st.dictionaries(st.sampled_from(["readOnlyHint", "x"]), json_values, max_size=2)
        | json_values,
        "builtin": st.booleans() | json_values,
        "input_schema": json_values,
    },
)


@SETTINGS
@given(value=call_mappings, mode=st.sampled_from(["plan", "execute"]))
def test_decide_never_raises_on_call_shaped_values(value: dict[str, Any], mode: str) -> None:
    decision = decide(value, mode)
    assert isinstance(decision.call, ToolCall)
    if not decision.allowed:
        assert decision.reason
    if mode == "execute" and not decision.allowed:
        assert decision.reason.startswith("malformed tool call: ")


@SETTINGS
@given(name=tool_names, input=st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_plan_mode_is_never_looser_than_execute(name: str, input: dict[str, Any]) -> None:
    call = ToolCall(name=name, input=input, builtin=False)
    if decide(call, "plan").allowed:
        assert decide(call, "execute").allowed


@SETTINGS
@given(command=st.text(max_size=80))
def test_check_git_command_never_raises(command: str) -> None:
    verdict = check_git_command(command)
    assert verdict.allowed or verdict.reason


@SETTINGS
@given(command=st.text(alphabet=st.sampled_from("git statusdflo-=./'\"\\ &;|<>$`(){},*?#~!\t"), max_size=40))
def test_check_git_command_never_raises_on_shell_soup(command: str) -> None:
    verdict = check_git_command("git " + command)
    assert verdict.allowed or verdict.reason


SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@%+=^~é日"
plain_words = st.text(alphabet=SAFE, min_size=1, max_size=8)
quoted_words = st.text(alphabet=SAFE + ' |&;<>$`()*?[#"\\', max_size=8).map(lambda text: f"'{text}'")
words = st.lists(plain_words | quoted_words, min_size=0, max_size=5)
REFUSED_METAS = [
    "|",
    "||",
    "&",
    ">",
    ">>",
    "<",
    "2>",
    "&>",
    ">|",
    "$(",
    "`",
    "<(",
    ">(",
    "$",
    "\n",
    "\r",
    "(",
    ")",
    "*",
    "?",
    "[",
]


@SETTINGS
@given(before=words, after=words, meta=st.sampled_from(REFUSED_METAS), glue=st.booleans())
def test_unquoted_metacharacter_is_always_refused(
    before: list[str], after: list[str], meta: str, glue: bool
) -> None:
    left = " ".join(["git", "log", *before])
    right = " ".join(after)
    command = f"{left}{meta}{right}" if glue else f"{left} {meta} {right}"
    verdict = check_git_command(command)
    assert not verdict.allowed, command


@SETTINGS
@given(text=st.text(alphabet=SAFE + ' |&;<>$`()*?[{},#"\\\t', max_size=30))
def test_single_quoted_text_is_inert(text: str) -> None:
    assert check_git_command(f"git log --grep='{text}'").allowed


@SETTINGS
@given(command=st.text(alphabet=SAFE + " '\"\\{},#!", max_size=40))
def test_words_match_shlex_for_single_commands(command: str) -> None:
    try:
        segments = split_chain(command)
    except ShellRefusal:
        return
    assert len(segments) == 1
    assert [word.value for word in segments[0]] == shlex.split(command)


@SETTINGS
@given(value=json_values)
def test_takes_path_never_raises(value: Any) -> None:
    result = takes_path(value if isinstance(value, dict) else {"v": value})
    assert result is None or isinstance(result, str)


@SETTINGS
@given(text=st.text(max_size=60))
def test_sanitized_text_has_no_controls_and_keeps_lines(text: str) -> None:
    out = sanitize_for_terminal(text)
    assert all(ch == "\n" or (ord(ch) >= 0x20 and not 0x7F <= ord(ch) <= 0x9F) for ch in out)
    assert out.count("\n") == text.count("\n")
    assert sanitize_for_terminal(out) == out


BASH = shutil.which("bash")
_PIECE = st.one_of(
    st.text(alphabet=SAFE + "{},#!~=", min_size=1, max_size=6),
    st.text(alphabet=SAFE + ' |&;<>$`()*?[{},#"\\!', max_size=6).map(lambda text: f"'{text}'"),
    st.text(alphabet=SAFE + " |&;<>()*?[{},#'\\!", max_size=6).map(lambda text: f'"{text}"'),
    st.sampled_from(SAFE).map(lambda char: "\\" + char),
    st.sampled_from([" ", "\t", "  "]),
)
SHELLISH = st.lists(_PIECE, max_size=8).map("".join)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tail=SHELLISH)
def test_what_is_checked_is_what_bash_runs(tail: str) -> None:
    """For every command the gate allows, git receives exactly the words the gate checked."""
    command = f"git log {tail}"
    if not check_git_command(command).allowed:
        return
    ours = [word.value for word in split_chain(command)[0][1:]]
    script = "git() { printf '%s\\0' \"$@\"; }\n" + command
    result = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", script],
        capture_output=True,
        timeout=30,
        env={"HOME": "~", "PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"},
    )
    assert result.stdout.decode("utf-8").split("\x00")[:-1] == ours, command
