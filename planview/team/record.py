"""The signed approval record: a canonical one-line JSON payload, its SSH signature and the plan text.

A note line is `{"payload": "<canonical JSON>", "plan_text": "…", "signature": "-----BEGIN SSH…", "v": 1}`.
The signature covers exactly the payload string's UTF-8 bytes; the payload must be canonical (sorted
keys, no blanks, ASCII) so that one approval has one spelling, and it binds:

    plan_canonical_sha256  what execution is pinned to (checkboxes ignored)
    plan_sha256            the exact bytes approved (plan_text must hash to it)
    plan_path              where the plan lived (informative)
    base                   HEAD when approved: only its descendants can be covered
    scope                  the paths the plan may change (its `scope:` front matter, else ["**"])
    principal              who signed (a name in allowed_signers)
    at, channel            when, and through which planview UI
    policy                 the SHA-256 of .planview/allowed_signers and policy.toml at the base
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from planview.team.policy import NAMESPACE, TEAM_FILES

VERSION = 1
_HEX64 = re.compile(r"[0-9a-f]{64}")
_COMMIT = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
MAX_RECORD_CHARS = 2 * 1024 * 1024

PAYLOAD_KEYS = {
    "v": int,
    "namespace": str,
    "plan_canonical_sha256": str,
    "plan_sha256": str,
    "plan_path": str,
    "base": str,
    "scope": list,
    "principal": str,
    "at": str,
    "channel": str,
    "policy": dict,
}


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


@dataclass(frozen=True)
class Payload:
    """What a signature binds (see the module docstring)."""

    plan_canonical_sha256: str
    plan_sha256: str
    plan_path: str
    base: str
    scope: tuple[str, ...]
    principal: str
    at: str
    channel: str
    policy: Mapping[str, str | None]

    def to_json(self) -> str:
        return canonical_json(
            {
                "v": VERSION,
                "namespace": NAMESPACE,
                "plan_canonical_sha256": self.plan_canonical_sha256,
                "plan_sha256": self.plan_sha256,
                "plan_path": self.plan_path,
                "base": self.base,
                "scope": list(self.scope),
                "principal": self.principal,
                "at": self.at,
                "channel": self.channel,
                "policy": dict(self.policy),
            }
        )


@dataclass(frozen=True)
class SignedRecord:
    """One note line: the payload exactly as signed, its signature, and the approved plan's text."""

    payload_json: str
    signature: str
    plan_text: str
    payload: Payload

    def to_line(self) -> str:
        return canonical_json(
            {
                "v": VERSION,
                "payload": self.payload_json,
                "signature": self.signature,
                "plan_text": self.plan_text,
            }
        )


class MalformedRecord(ValueError):
    """A note line that is not a well-formed record (the message says what is wrong)."""


def _check_payload(raw: Any) -> Payload:
    if not isinstance(raw, dict) or set(raw) != set(PAYLOAD_KEYS):
        raise MalformedRecord("its payload does not hold exactly the fields of a v1 approval")
    for key, kind in PAYLOAD_KEYS.items():
        if type(raw[key]) is not kind:
            raise MalformedRecord(f"payload field {key} has the wrong type")
    if raw["v"] != VERSION or raw["namespace"] != NAMESPACE:
        raise MalformedRecord(f"payload is not version {VERSION} in namespace {NAMESPACE}")
    for key in ("plan_canonical_sha256", "plan_sha256"):
        if not _HEX64.fullmatch(raw[key]):
            raise MalformedRecord(f"payload field {key} is not a SHA-256")
    if not _COMMIT.fullmatch(raw["base"]):
        raise MalformedRecord("payload field base is not a commit id")
    if not raw["scope"] or not all(isinstance(s, str) and s for s in raw["scope"]):
        raise MalformedRecord("payload field scope is not a list of patterns")
    policy = raw["policy"]
    if set(policy) != set(TEAM_FILES) or not all(
        v is None or (isinstance(v, str) and _HEX64.fullmatch(v)) for v in policy.values()
    ):
        raise MalformedRecord("payload field policy does not name the team files' SHA-256")
    return Payload(
        raw["plan_canonical_sha256"],
        raw["plan_sha256"],
        raw["plan_path"],
        raw["base"],
        tuple(raw["scope"]),
        raw["principal"],
        raw["at"],
        raw["channel"],
        dict(policy),
    )


def parse_line(line: str) -> SignedRecord:
    """A note line as a SignedRecord, or MalformedRecord (truncated, edited into another shape, ...)."""
    if len(line) > MAX_RECORD_CHARS:
        raise MalformedRecord("the line is too long to be a record")
    try:
        raw = json.loads(line)
    except ValueError:
        raise MalformedRecord("not JSON (truncated or edited)") from None
    if (
        not isinstance(raw, dict)
        or set(raw) != {"v", "payload", "signature", "plan_text"}
        or raw.get("v") != VERSION
    ):
        raise MalformedRecord("not a v1 approval record")
    if not all(isinstance(raw[k], str) for k in ("payload", "signature", "plan_text")):
        raise MalformedRecord("a record field is not text")
    try:
        payload_raw = json.loads(raw["payload"])
    except ValueError:
        raise MalformedRecord("its payload is not JSON") from None
    if canonical_json(payload_raw) != raw["payload"]:
        raise MalformedRecord("its payload is not in canonical form (it was re-encoded or edited)")
    return SignedRecord(raw["payload"], raw["signature"], raw["plan_text"], _check_payload(payload_raw))
