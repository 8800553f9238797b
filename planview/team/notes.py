"""Approval records in git notes: `refs/notes/planview/approvals`, one JSON line per record.

A record is attached to the commit it was approved on (its base) and appended, never replaced; two
members' notes on the same commit merge with `cat_sort_uniq`, which keeps every distinct line.
`sync` fetches the remote's notes into a tracking ref, merges, and pushes; a push rejected because a
teammate pushed first is fetched, merged and pushed again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from planview.team.errors import TeamError
from planview.team.git import git_text, run_git

NOTES_NAME = "planview/approvals"
NOTES_REF = f"refs/notes/{NOTES_NAME}"
MERGE_STRATEGY = "cat_sort_uniq"
PUSH_ATTEMPTS = 5


def tracking_ref(remote: str) -> str:
    return f"refs/notes/planview-remotes/{remote}/approvals"


def fetch_refspec(remote: str) -> str:
    return f"+{NOTES_REF}:{tracking_ref(remote)}"


PUSH_REFSPEC = f"{NOTES_REF}:{NOTES_REF}"


@dataclass(frozen=True)
class NoteLine:
    """One non-blank line of an approval note: the commit it is attached to and where in the note."""

    commit: str
    line: int
    text: str

    def where(self) -> str:
        return f"note on {self.commit[:12]} line {self.line}"


def has_notes(root: Path, ref: str = NOTES_REF) -> bool:
    return run_git(root, ["rev-parse", "--verify", "-q", ref], check=False).returncode == 0


def note_lines(root: Path, ref: str = NOTES_REF) -> tuple[NoteLine, ...]:
    """Every record line of every note under `ref` (empty when the ref does not exist)."""
    if not has_notes(root, ref):
        return ()
    listing = git_text(root, ["notes", f"--ref={ref}", "list"]).splitlines()
    pairs = [line.split() for line in listing if line.strip()]
    if not pairs:
        return ()
    batch = "".join(f"{blob}\n" for blob, _ in pairs).encode()
    out = run_git(root, ["cat-file", "--batch"], input=batch).stdout
    found: list[NoteLine] = []
    pos = 0
    for _, commit in pairs:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split()[2])
        body = out[header_end + 1 : header_end + 1 + size].decode("utf-8", "replace")
        pos = header_end + 1 + size + 1
        for number, text in enumerate(body.split("\n"), 1):
            if text.strip():
                found.append(NoteLine(commit, number, text))
    return tuple(found)


def append_record(root: Path, commit: str, line: str) -> None:
    """Append one record line to the note on `commit` (the note's other lines are kept)."""
    if "\n" in line:
        raise TeamError("a record must be one line")
    run_git(root, ["notes", f"--ref={NOTES_REF}", "append", "-F", "-", commit], input=line.encode() + b"\n")


def configure(root: Path, remote: str) -> tuple[str, ...]:
    """Set the notes merge strategy and the remote's fetch refspec (once); what was set, as lines."""
    said: list[str] = []
    key = f"notes.{NOTES_NAME}.mergeStrategy"
    if run_git(root, ["config", "--get", key], check=False).stdout.decode().strip() != MERGE_STRATEGY:
        run_git(root, ["config", key, MERGE_STRATEGY])
        said.append(f"git config {key} {MERGE_STRATEGY}")
    fetches = (
        run_git(root, ["config", "--get-all", f"remote.{remote}.fetch"], check=False).stdout.decode().split()
    )
    spec = fetch_refspec(remote)
    if spec not in fetches:
        run_git(root, ["config", "--add", f"remote.{remote}.fetch", spec])
        said.append(f"git config --add remote.{remote}.fetch {spec}")
    return tuple(said)


def _fetch_and_merge(root: Path, remote: str) -> bool:
    """Bring the remote's notes in and merge them; False when the remote has none yet."""
    listed = git_text(root, ["ls-remote", "--end-of-options", remote, NOTES_REF])
    if not listed:
        return False
    run_git(root, ["fetch", "-q", "--end-of-options", remote, fetch_refspec(remote)])
    theirs = tracking_ref(remote)
    if not has_notes(root):
        run_git(root, ["update-ref", NOTES_REF, theirs])
    else:
        run_git(root, ["notes", f"--ref={NOTES_REF}", "merge", "-q", "-s", MERGE_STRATEGY, theirs])
    return True


@dataclass(frozen=True)
class SyncReport:
    """What `planview sync` did: the refspecs it set up, whether it merged and pushed, how many tries."""

    remote: str
    configured: tuple[str, ...]
    fetched: bool
    pushed: bool
    attempts: int
    records: int


def sync(root: Path, remote: str) -> SyncReport:
    """Fetch, merge and push the approval notes; retry a push a teammate's push got in before."""
    if not remote or remote.startswith("-"):
        raise TeamError(f"{remote!r} is not a remote name; see `git remote -v`")
    if run_git(root, ["remote", "get-url", "--", remote], check=False).returncode != 0:
        raise TeamError(
            f"no git remote named {remote!r}; add one (git remote add {remote} URL) or name another"
        )
    configured = configure(root, remote)
    fetched = False
    for attempt in range(1, PUSH_ATTEMPTS + 1):
        fetched = _fetch_and_merge(root, remote) or fetched
        if not has_notes(root):
            return SyncReport(remote, configured, fetched, False, attempt, 0)
        done = run_git(root, ["push", "-q", "--end-of-options", remote, PUSH_REFSPEC], check=False)
        if done.returncode == 0:
            return SyncReport(remote, configured, fetched, True, attempt, len(note_lines(root)))
        said = done.stderr.decode("utf-8", "replace")
        if "rejected" not in said and "fetch first" not in said and "non-fast-forward" not in said:
            raise TeamError(f"git push {remote} {PUSH_REFSPEC} failed: {said.strip().splitlines()[-1:]}")
    raise TeamError(
        f"the approval notes on {remote} kept moving ({PUSH_ATTEMPTS} pushes rejected); run planview sync again"
    )
