"""The team policy tracked in the repository, read from one commit (in CI: the base, never the head).

`.planview/policy.toml`:

    [groups]
    maintainers = ["ada@example.com", "grace@example.com"]

    [[rules]]                # last matching rule wins
    paths = ["**"]
    approvals = 1            # distinct principals whose signed approvals are needed

    [[rules]]
    paths = [".planview/**", ".github/**"]
    approvals = 2
    group = "maintainers"    # only these principals count
    exclude_author = true    # the commit's author does not count for their own change

A path that no rule matches is uncovered (verify fails): there is no implicit default.

`.planview/allowed_signers` is ssh-keygen's allowed-signers format. Refused here, because each would
let one key count as several people (the threshold bugs of policy engines): a principal with a
wildcard (`*`, `?`) or a negation, a `cert-authority` line, and one key listed for two principals.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planview.team.errors import PolicyError
from planview.team.globs import check_pattern, matches_any

POLICY_PATH = ".planview/policy.toml"
SIGNERS_PATH = ".planview/allowed_signers"
TEAM_FILES = (SIGNERS_PATH, POLICY_PATH)
NAMESPACE = "planview-approval-v1"
MAX_APPROVALS = 100
MAX_POLICY_BYTES = 256 * 1024


@dataclass(frozen=True)
class Rule:
    """One `[[rules]]` entry: which paths, how many distinct principals, from which group, author or not."""

    index: int  # 1-based position in the file (named in messages)
    paths: tuple[str, ...]
    approvals: int
    group: str | None = None
    exclude_author: bool = False

    def describe(self) -> str:
        who = f"from group {self.group}" if self.group else "from allowed signers"
        tail = ", the author excluded" if self.exclude_author else ""
        return f"rule {self.index} ({', '.join(self.paths)}): {self.approvals} {who}{tail}"


@dataclass(frozen=True)
class Policy:
    """The parsed policy.toml: its rules in file order and its groups of principals."""

    rules: tuple[Rule, ...]
    groups: Mapping[str, frozenset[str]]

    def rule_for(self, path: str) -> Rule | None:
        """The last rule with a pattern matching `path` (None: no rule covers it)."""
        found = None
        for rule in self.rules:
            if matches_any(rule.paths, path):
                found = rule
        return found

    def eligible(self, rule: Rule, principal: str) -> bool:
        return rule.group is None or principal in self.groups.get(rule.group, frozenset())


_RULE_KEYS = {"paths", "approvals", "group", "exclude_author"}


def _rule(index: int, raw: Any, groups: Mapping[str, frozenset[str]]) -> Rule:
    where = f"{POLICY_PATH}: rule {index}"
    if not isinstance(raw, Mapping):
        raise PolicyError(f"{where} must be a table ([[rules]])")
    unknown = sorted(set(raw) - _RULE_KEYS)
    if unknown:
        raise PolicyError(f"{where}: unknown key {unknown[0]!r}; known: {', '.join(sorted(_RULE_KEYS))}")
    paths = raw.get("paths")
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) for p in paths):
        raise PolicyError(f'{where}: paths must be a non-empty list of patterns, e.g. paths = ["src/**"]')
    for pattern in paths:
        try:
            check_pattern(pattern)
        except PolicyError as exc:
            raise PolicyError(f"{where}: {exc}") from None
    approvals = raw.get("approvals")
    if type(approvals) is not int or not 1 <= approvals <= MAX_APPROVALS:
        raise PolicyError(f"{where}: approvals must be a whole number from 1 to {MAX_APPROVALS}")
    group = raw.get("group")
    if group is not None and (not isinstance(group, str) or group not in groups):
        raise PolicyError(f"{where}: group {group!r} is not defined under [groups]")
    exclude = raw.get("exclude_author", False)
    if type(exclude) is not bool:
        raise PolicyError(f"{where}: exclude_author must be true or false")
    return Rule(index, tuple(paths), approvals, group, exclude)


def parse_policy(data: bytes) -> Policy:
    """policy.toml's bytes as a Policy, or PolicyError naming what is malformed."""
    if len(data) > MAX_POLICY_BYTES:
        raise PolicyError(f"{POLICY_PATH} is over {MAX_POLICY_BYTES // 1024} KiB")
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PolicyError(
            f"{POLICY_PATH} is not valid UTF-8 TOML ({exc}); fix it on the target branch"
        ) from None
    unknown = sorted(set(raw) - {"groups", "rules"})
    if unknown:
        raise PolicyError(f"{POLICY_PATH}: unknown key {unknown[0]!r}; known: groups, rules")
    groups_raw = raw.get("groups", {})
    if not isinstance(groups_raw, Mapping):
        raise PolicyError(f"{POLICY_PATH}: groups must be a table ([groups])")
    groups: dict[str, frozenset[str]] = {}
    for name, members in groups_raw.items():
        if not isinstance(members, list) or not all(isinstance(m, str) and m for m in members):
            raise PolicyError(f"{POLICY_PATH}: group {name!r} must be a list of principals")
        groups[name] = frozenset(members)
    rules_raw = raw.get("rules")
    if not isinstance(rules_raw, list) or not rules_raw:
        raise PolicyError(f'{POLICY_PATH}: no [[rules]]; add at least one (paths = ["**"], approvals = 1)')
    rules = tuple(_rule(i, r, groups) for i, r in enumerate(rules_raw, 1))
    return Policy(rules, groups)


@dataclass(frozen=True)
class Signer:
    """One allowed-signers line: the principals it names and the key (type and base64 blob)."""

    line: int
    principals: tuple[str, ...]
    key: str  # "ssh-ed25519 AAAA…" (what identifies the key; the comment dropped)


def _split_options(rest: str, line: int) -> tuple[str, str]:
    """(options, remainder) of the part after the principals: options end at the first blank outside quotes."""
    quoted = False
    for i, ch in enumerate(rest):
        if ch == '"':
            quoted = not quoted
        elif ch in " \t" and not quoted:
            return rest[:i], rest[i:].strip()
    if quoted:
        raise PolicyError(f"{SIGNERS_PATH} line {line}: an unterminated quote in its options")
    return rest, ""


def _key_start(text: str) -> bool:
    return text.startswith(("ssh-", "ecdsa-", "sk-"))


def parse_signers(data: bytes) -> tuple[Signer, ...]:
    """allowed_signers' bytes as Signers; PolicyError for what would let one key stand for several people."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PolicyError(f"{SIGNERS_PATH} is not UTF-8 text") from None
    signers: list[Signer] = []
    owner: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, _, rest = line.partition(" ")
        principals = tuple(p for p in head.split(",") if p)
        rest = rest.strip()
        options = ""
        if rest and not _key_start(rest):
            options, rest = _split_options(rest, number)
        words = rest.split()
        if len(words) < 2 or not _key_start(words[0]):
            raise PolicyError(
                f"{SIGNERS_PATH} line {number}: expected `principal [options] key-type base64-key`"
            )
        if "cert-authority" in options.lower():
            raise PolicyError(
                f"{SIGNERS_PATH} line {number}: cert-authority lines are not accepted; list each key"
            )
        for principal in principals:
            if any(ch in principal for ch in "*?!"):
                raise PolicyError(
                    f"{SIGNERS_PATH} line {number}: principal {principal!r} is a pattern; name each person"
                )
        key = f"{words[0]} {words[1]}"
        for principal in principals:
            if owner.setdefault(key, principal) != principal:
                raise PolicyError(
                    f"{SIGNERS_PATH} line {number}: this key is also listed for {owner[key]!r}; one key, one "
                    "person (otherwise one signature would count twice)"
                )
        signers.append(Signer(number, principals, key))
    if not signers:
        raise PolicyError(f"{SIGNERS_PATH} lists no key; add one (planview team init)")
    return tuple(signers)


def policy_digest(files: Mapping[str, bytes | None]) -> dict[str, str | None]:
    """What an approval binds of the team policy: each team file's SHA-256 (None: absent)."""
    return {
        name: None if files.get(name) is None else hashlib.sha256(files[name] or b"").hexdigest()
        for name in TEAM_FILES
    }
