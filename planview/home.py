"""Where planview keeps its state, and the name of every file in it (the ground floor: no planview imports
but `errors`, `atomic` and `fileguard`).

The home is `$PLANVIEW_HOME`, else `<git toplevel>/.planview`, else the per-user data folder; it is
created with a `.gitignore` of `*` so nothing in it ever shows as untracked - except the two team
policy files (`allowed_signers`, `policy.toml`), which a team tracks (planview.team). `HomeLayout` is the one
place that names what lives inside it.

Git stores symlinks, so a repository can ship `.planview` or `.planview/plans` as a link (to
`../../.ssh`, say). planview never follows one a repository ships (git tracks it) out: the project's
home must then lie inside the project (`default_home`), and no entry of a home may lead out of it
(`ensure_home`). Otherwise plan-mode readers, which may read the plans folder, would read what the
link points at, and planview's own writes (plans, ledger, sessions) would land there. A link the
user made (untracked: the home ignores itself) still works, to keep plans in another folder.
"""

from __future__ import annotations

import os
import stat
from collections import namedtuple
from pathlib import Path

from planview.atomic import atomic_write
from planview.errors import PlanviewError
from planview.fileguard import NotAFileError, TooLargeError, read_regular
from planview.lazy_regex import LazyPattern

__all__ = [
    "CONFIG_NAME",
    "HOME_ENV",
    "HOME_GITIGNORE",
    "HomeError",
    "HomeLayout",
    "blocking_file",
    "default_home",
    "ensure_home",
    "find_project_root",
    "planview_home",
    "track_team_policy",
]

HOME_ENV = "PLANVIEW_HOME"
CONFIG_NAME = "config.toml"  # the same name in the user config dir and in the home
# Everything in the home is ignored but the team policy (read from the base commit in CI).
TEAM_POLICY_FILES = ("allowed_signers", "policy.toml")
HOME_GITIGNORE = "*\n" + "".join(f"!/{name}\n" for name in TEAM_POLICY_FILES)
LEGACY_GITIGNORE = "*\n"  # what homes made before team policy hold (still self-ignoring)


class HomeError(PlanviewError):
    """The planview home cannot be created or used; the message names the folder and the fix."""


class HomeLayout(namedtuple("HomeLayout", "root")):
    """Every file and folder planview keeps under one home (`<repo>/.planview` or the user data dir)."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    root: Path

    @property
    def gitignore(self) -> Path:  # `*`: the home ignores itself
        return self.root / ".gitignore"

    @property
    def plans(self) -> Path:  # YYYY-MM-DD-HHmm-slug.md
        return self.root / "plans"

    @property
    def artifacts(self) -> Path:  # <uuid>.md sealed approved plans, <uuid>.packet.json evidence
        return self.root / "artifacts"

    @property
    def ledger(self) -> Path:  # append-only, hash-chained approval events
        return self.root / "ledger.jsonl"

    @property
    def plans_cache(self) -> Path:  # `planview plans`'s summaries by stat stamp (disposable)
        return self.root / "cache" / "plans.json"

    @property
    def reviews(self) -> Path:  # what each plan looked like at its last review
        return self.root / "reviews"

    @property
    def sessions(self) -> Path:  # <id>.jsonl conversation, mode, approval, todos
        return self.root / "sessions"

    @property
    def config(self) -> Path:  # project config (the user config lives in the platform config dir)
        return self.root / CONFIG_NAME

    def session(self, session_id: str) -> Path:
        return self.sessions / f"{session_id}.jsonl"

    @property
    def logs(self) -> Path:  # <session id>.agent.log: an ACP agent's stderr (planview.agents)
        return self.root / "logs"

    def agent_log(self, session_id: str) -> Path:
        return self.logs / f"{session_id}.agent.log"


def find_project_root(start: Path | None = None) -> Path | None:
    """The git toplevel containing `start` (default: the current folder), else None.

    The common case (a plain `.git` folder, or a `.git` file of a worktree or submodule, found by
    walking up) is read from the file system as git's own discovery reads it: `planview status`
    starts in tens of milliseconds and a git process alone costs several. Anything git would
    treat specially (its discovery variables, `core.worktree`, a bare repository, a folder
    owned by another user, an unreadable entry) is left to `git rev-parse --show-toplevel`.
    """
    here = Path(start) if start is not None else Path.cwd()
    here = here.absolute()
    while not here.is_dir() and here != here.parent:  # a file, or a path not created yet
        here = here.parent
    found = _walk_to_git(os.path.realpath(here))
    if found is not _ASK_GIT:
        return None if found is None else Path(found)
    return _git_toplevel(here)


_ASK_GIT = "ask git"  # a sentinel: the walk met something only git itself decides
# Variables that change where git looks for the repository (git help environment).
_DISCOVERY_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
)
# A config that moves the work tree or makes the repository bare: git decides the toplevel then.
_MOVES_WORK_TREE = (b"worktree", b"bare")
_HEX_HEAD = LazyPattern(rb"[0-9a-f]{40}|[0-9a-f]{64}")  # a detached HEAD (SHA-1 or SHA-256)


def _walk_to_git(folder: str) -> str | None:
    """The folder holding the nearest `.git`, None when git would find no repository, or _ASK_GIT."""
    if any(os.environ.get(name) for name in _DISCOVERY_ENV):
        return _ASK_GIT
    try:
        device = os.stat(folder).st_dev
    except OSError:
        return _ASK_GIT
    while True:
        dot = os.path.join(folder, ".git")
        try:
            entry = os.stat(dot)
        except FileNotFoundError:
            entry = None
        except OSError:
            return _ASK_GIT
        if entry is not None:
            try:
                return folder if _plain_repository(dot, entry) else _ASK_GIT
            except _Unusable:
                return None  # a FIFO or device where git reads a file: git would hang on it
            except TooLargeError:
                return _ASK_GIT  # a file this large is git's to read
        if os.path.isfile(os.path.join(folder, "HEAD")):  # inside a .git folder, or a bare repository
            return _ASK_GIT
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        try:
            if os.stat(parent).st_dev != device:
                return None  # git stops at a file-system boundary too
        except OSError:
            return _ASK_GIT
        folder = parent


_CAP = 1 << 20


class _Unusable(Exception):
    """A repository file that is not a regular file (a FIFO would block the reader forever)."""


def _small_file(path: str) -> bytes | None:
    """A regular file's bytes, read without blocking (fileguard); None when it is missing,
    _Unusable when it is no regular file or cannot be read, TooLargeError over 1 MiB."""
    try:
        return read_regular(path, _CAP, "git file")
    except FileNotFoundError:
        return None
    except (NotAFileError, OSError) as exc:
        raise _Unusable(path) from exc


def _plain_repository(dot: str, entry: os.stat_result) -> bool:
    """`.git` is a folder (or a `gitdir:` file) git would take as it stands, owned by this user."""
    if entry.st_uid != os.geteuid():  # git's safe.directory check applies: let git decide
        return False
    if stat.S_ISDIR(entry.st_mode):
        gitdir = dot
    elif stat.S_ISREG(entry.st_mode):
        line = (_small_file(dot) or b"").rstrip(b"\r\n")  # git strips line ends only, not spaces
        if not line.startswith(b"gitdir: ") or b"\n" in line or b"\r" in line:
            return False
        gitdir = os.path.join(os.path.dirname(dot), os.fsdecode(line[len(b"gitdir: ") :]))
    else:
        raise _Unusable(dot)
    if os.path.lexists(os.path.join(gitdir, "config.worktree")):  # per-worktree config may move it
        return False
    common = gitdir
    pointer = _small_file(os.path.join(gitdir, "commondir"))  # a linked worktree's shared folder
    if pointer is not None:
        common = os.path.join(gitdir, os.fsdecode(pointer.strip()))
    # What git's is_git_directory() asks: a HEAD that names a ref or a commit, objects and refs.
    head = (_small_file(os.path.join(gitdir, "HEAD")) or b"").strip()
    if not (head.startswith(b"ref: refs/") or _HEX_HEAD.fullmatch(head)):
        return False
    if not all(os.path.isdir(os.path.join(common, name)) for name in ("objects", "refs")):
        return False
    for config in {os.path.join(gitdir, "config"), os.path.join(common, "config")}:
        text = (_small_file(config) or b"").lower()
        if any(_sets(text, key) for key in _MOVES_WORK_TREE) or b"include" in text:
            return False
        if _sets(text, b"repositoryformatversion") or b"[extensions" in text:
            return False  # a format or extension this git may refuse (or that changes the layout)
    return True


def _sets(config: bytes, key: bytes) -> bool:
    """Whether a config line sets `key` to anything but false (`bare = false` is what git init writes)."""
    for line in config.splitlines():
        name, _, value = line.partition(b"=")
        if name.strip() == key and value.strip() not in (b"false", b"no", b"off", b"0"):
            return True
    return False


def _git_toplevel(here: Path) -> Path | None:
    import shutil
    import subprocess

    git = shutil.which("git")
    if git is None:  # no git binary: recognise a checkout by its .git entry
        for folder in (here, *here.parents):
            if (folder / ".git").exists():
                return folder
        return None
    try:
        done = subprocess.run(
            [git, "rev-parse", "--show-toplevel"],
            cwd=here,
            capture_output=True,
            timeout=15,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    top = os.fsdecode(done.stdout).rstrip("\r\n")
    if done.returncode != 0 or not top:
        return None
    return Path(top)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def default_home(root: Path | None) -> Path:
    override = os.environ.get(HOME_ENV, "").strip()
    if override:
        return Path(override).expanduser().absolute()
    if root is not None:
        home = root / ".planview"
        if os.path.islink(home):
            real = os.path.realpath(home)
            if not _inside(real, os.path.realpath(root)) and _shipped(os.fspath(home)):
                import shlex

                raise HomeError(
                    f"{home} is a link to {real}, outside the project {root}, and the repository ships it "
                    "(git tracks it); planview keeps a project's plans, approvals and sessions inside the "
                    "project and does not follow it. Replace the link with a folder: "
                    f"git -C {shlex.quote(os.fspath(root))} rm -q --cached -- .planview, then delete the link"
                )
        return home
    import platformdirs  # only needed outside a repository

    return Path(platformdirs.user_data_path("planview", appauthor=False)).absolute()


def _shipped(link: str) -> bool:
    """Whether git tracks `link` (a repository shipped it); True when git cannot say (fail closed)."""
    import shutil
    import subprocess

    git = shutil.which("git")
    if git is None:
        return True
    try:
        done = subprocess.run(
            [git, "-c", "core.fsmonitor=false", "ls-files", "--error-unmatch", "--", os.path.basename(link)],
            cwd=os.path.dirname(link),
            capture_output=True,
            timeout=15,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return True
    if done.returncode == 0:
        return True
    # 1: not tracked; 128 with "not a git repository": no repository ships it
    return done.returncode != 1 and b"not a git repository" not in done.stderr.lower()


def blocking_file(folder: Path) -> Path | None:
    """The file standing where `folder` or one of its parents should be a folder, if one does
    (then nothing can be created or listed there, and the fix is to move that file aside)."""
    for part in (folder, *folder.parents):
        if os.path.lexists(part):
            return None if part.is_dir() else part
    return None


def _link_out(home: Path) -> tuple[str, str] | None:
    """The first entry of `home` that is a link leading out of it, and where it leads; None if none."""
    try:
        entries = os.scandir(home)
    except OSError:  # missing (created next) or unreadable (the mkdir below says so)
        return None
    with entries:
        links = [entry.path for entry in entries if entry.is_symlink()]
    if not links:
        return None
    real_home = os.path.realpath(home)
    for link in sorted(links):
        target = os.path.realpath(link)
        if not _inside(target, real_home) and _shipped(link):
            return link, target
    return None


def ensure_home(home: Path) -> None:
    """Create the home with its self-ignoring .gitignore (left alone when it already exists).

    Refuses a home with an entry that is a link leading out of it (HomeError naming the link)."""
    blocker = blocking_file(home)
    if blocker is not None:
        raise HomeError(
            f"cannot create the planview folder {home}: {blocker} is not a folder; "
            f"move it aside, or set {HOME_ENV} to a writable folder"
        )
    escape = _link_out(home)
    if escape is not None:
        link, target = escape
        import shlex

        raise HomeError(
            f"{link} is a link to {target}, outside planview's folder {home}, and the repository ships it "
            "(git tracks it); planview does not read or write through it. Replace the link with a folder "
            f"or file of its own: git -C {shlex.quote(os.path.dirname(link))} rm -q --cached -- "
            f"{shlex.quote(os.path.basename(link))}, then delete the link"
        )
    try:
        home.mkdir(parents=True, exist_ok=True)
        ignore = HomeLayout(home).gitignore
        if not os.path.lexists(ignore):
            atomic_write(ignore, HOME_GITIGNORE)
    except OSError as exc:
        raise HomeError(
            f"cannot create the planview folder {home}: {exc.strerror or exc}; "
            f"make it writable or set {HOME_ENV} to a writable folder"
        ) from exc


def track_team_policy(home: Path) -> bool:
    """Let git see the team policy files in a home made before them (`*` alone); True when the
    .gitignore now lets them through, False when it is the user's own (left as it is)."""
    ignore = HomeLayout(home).gitignore
    try:
        current = ignore.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    if current == HOME_GITIGNORE:
        return True
    if current not in (None, LEGACY_GITIGNORE):
        return all(f"!/{name}" in current.splitlines() for name in TEAM_POLICY_FILES)
    atomic_write(ignore, HOME_GITIGNORE)
    return True


def planview_home(start: Path | None = None) -> Path:
    """$PLANVIEW_HOME, else <git toplevel>/.planview, else the user data dir; created with its .gitignore."""
    home = default_home(None if os.environ.get(HOME_ENV, "").strip() else find_project_root(start))
    ensure_home(home)
    return home
