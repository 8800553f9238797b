"""File tools: read, grep, find, ls (readers) and write, edit (mutators), rooted at the project.

In plan mode the readers stay inside the project (and planview's home, where plans live),
symlinks resolved, by the rule of planview.gate.read_scope. In execute mode they read anywhere,
as bash can anyway.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planview.errors import PlanviewError
from planview.fileguard import NotAFileError, OutsideError, open_regular, open_regular_within, read_regular
from planview.gate.read_scope import inside, read_roots, refusal
from planview.session.tools.base import (
    ToolContext,
    ToolDef,
    ToolError,
    ToolResult,
    display,
    integer_arg,
    resolve,
    schema,
    string_arg,
)

READ_LIMIT = 2000  # lines per read
LINE_CAP = 2000  # characters per line shown
OUTPUT_CAP = 30_000  # characters per tool result
MATCH_CAP = 200
LIST_CAP = 500
GREP_FILE_CAP = 5 * 1024 * 1024  # the Python fallback skips larger files
SKIP_DIRS = {
    ".git",
    ".planview",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
}


def _cap(text: str, hint: str) -> str:
    if len(text) <= OUTPUT_CAP:
        return text
    return text[:OUTPUT_CAP] + f"\n… output truncated at {OUTPUT_CAP:,} characters; {hint}"


# Bytes of one line kept for display: enough for LINE_CAP characters of up to 4 UTF-8 bytes and one
# more, so a cut line still shows as cut; the rest of the line is skipped in bounded reads.
_LINE_BYTES = 4 * LINE_CAP + 4
_SKIP_BYTES = 1 << 16


def _read_lines(
    path: Path, root: Path, offset: int, limit: int, roots: tuple[Path, ...] | None = None
) -> tuple[list[str], int]:
    """Lines offset..offset+limit-1 (numbered like grep: split at "\n") and the file's line count,
    without holding the whole file: a model may well ask for page 1 of a multi-gigabyte log, or of a
    bundle that is one 100 MB line (which used to be held whole, twice). With `roots` (plan mode),
    the file opened must lie in them: a link swapped in after the check is refused, not read."""
    if not path.exists():
        raise ToolError(f"{display(root, path)} does not exist; use ls or find to locate the file")
    if path.is_dir():
        raise ToolError(f"{display(root, path)} is a folder; use ls to list it")
    not_regular = f"{display(root, path)} is not a regular file; it cannot be read as text"
    if not path.is_file():  # a FIFO or a device would block or never end; not even opened
        raise ToolError(not_regular)
    try:
        # one swapped in after the check still never blocks, and never reads outside `roots`
        fd = open_regular(path) if roots is None else open_regular_within(path, roots)
    except NotAFileError:
        raise ToolError(not_regular) from None
    except OutsideError as exc:
        raise ToolError(str(exc)) from None
    except FileNotFoundError:
        raise ToolError(f"{display(root, path)} does not exist; use ls or find to locate the file") from None
    chunk: list[str] = []
    total = 0
    with os.fdopen(fd, "rb") as fh:
        if b"\0" in fh.read(8192):
            raise ToolError(f"{display(root, path)} is a binary file; it cannot be read as text")
        fh.seek(0)
        while raw := fh.readline(_LINE_BYTES):
            total += 1
            if not raw.endswith(b"\n"):
                while (rest := fh.readline(_SKIP_BYTES)) and not rest.endswith(b"\n"):
                    pass
            if offset <= total < offset + limit:
                chunk.append(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
    return chunk, total


def _read_roots(ctx: ToolContext) -> tuple[Path, ...] | None:
    """Where plan mode lets the readers look (resolved); None when they may read anywhere."""
    if ctx.host.mode != "plan":
        return None
    return read_roots(ctx.project_root, Path(ctx.host.home))


def _readable(ctx: ToolContext, value: Any) -> Path:
    # The gate refused this already when the path was outside; checked again here because a link
    # can change between the gate's decision and the open.
    path = resolve(ctx.project_root, value)
    if ctx.host.mode == "plan":
        problem = refusal(value, ctx.project_root, Path(ctx.host.home))
        if problem is not None:
            raise ToolError(problem)
    return path


# ---------------------------------------------------------------- read


async def read(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    path = _readable(ctx, args.get("path"))
    offset = int(args.get("offset") or 1)
    limit = int(args.get("limit") or READ_LIMIT)
    if offset < 1 or limit < 1:
        raise ToolError("`offset` and `limit` start at 1")
    chunk, total = await asyncio.to_thread(
        _read_lines, path, ctx.project_root, offset, limit, _read_roots(ctx)
    )
    if not total:
        return ToolResult(f"{display(ctx.project_root, path)} is empty")
    if offset > total:
        raise ToolError(f"offset {offset} is past the end ({total} lines)")
    width = len(str(offset + len(chunk) - 1))
    body = "\n".join(
        f"{n:>{width}}\t{line if len(line) <= LINE_CAP else line[:LINE_CAP] + '…'}"
        for n, line in enumerate(chunk, offset)
    )
    last = offset + len(chunk) - 1
    if last < total:
        body += f"\n(lines {offset}–{last} of {total}; pass offset={last + 1} to read on)"
    return ToolResult(_cap(body, "pass offset/limit to read a smaller range"))


# ---------------------------------------------------------------- grep


async def grep(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    pattern = args.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise ToolError("`pattern` must be a non-empty regular expression")
    where = _readable(ctx, args.get("path") or ".")
    glob = args.get("glob")
    if not where.exists():
        raise ToolError(f"{display(ctx.project_root, where)} does not exist")
    if not where.is_dir() and not where.is_file():  # rg opens a named FIFO and waits for a writer
        from planview.fileguard import kind_of

        raise ToolError(
            f"{display(ctx.project_root, where)} is {kind_of(where.stat().st_mode)}, not a file or folder; "
            "grep searches files and folders (give a folder, e.g. path '.')"
        )
    rg = shutil.which("rg")
    if rg:
        lines = await _grep_rg(rg, ctx.project_root, pattern, where, glob)
    else:
        lines = await asyncio.to_thread(
            _grep_python, ctx.project_root, pattern, where, glob, _read_roots(ctx)
        )
    if not lines:
        return ToolResult(f"no matches for {pattern!r}")
    more = ""
    if len(lines) > MATCH_CAP:
        more = f"\n… more than {MATCH_CAP} matches, the rest not shown; narrow the pattern, path or glob"
        lines = lines[:MATCH_CAP]
    return ToolResult(_cap("\n".join(lines) + more, "narrow the pattern, path or glob"))


async def _grep_rg(rg: str, root: Path, pattern: str, where: Path, glob: Any) -> list[str]:
    # --hidden: dotfiles (.github/, .env.example) are source too; .git and ignored files stay out.
    argv = [
        rg,
        "--line-number",
        "--no-heading",
        "--color",
        "never",
        "--max-columns",
        str(LINE_CAP),
        "--hidden",
        "--glob",
        "!.git/",
    ]
    if isinstance(glob, str) and glob:
        argv += ["--glob", glob]
    argv += ["-e", pattern, "--", os.path.relpath(where, root)]
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=root,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        stdin=asyncio.subprocess.DEVNULL,
        limit=1 << 20,
    )
    assert proc.stdout is not None and proc.stderr is not None
    errors = asyncio.ensure_future(proc.stderr.read())  # drained alongside, so rg never stalls on it
    lines: list[str] = []
    try:
        # Stop reading once the cap is passed: "." over a large tree is millions of lines.
        while len(lines) <= MATCH_CAP and (raw := await proc.stdout.readline()):
            lines.append(raw.decode(errors="replace").rstrip("\r\n").removeprefix("./"))
        if len(lines) > MATCH_CAP and proc.returncode is None:
            proc.kill()
        err = await errors
        await proc.wait()
    except BaseException:
        if proc.returncode is None:
            proc.kill()
        errors.cancel()
        raise
    if proc.returncode == 2 and not lines:
        raise ToolError(f"grep failed: {err.decode(errors='replace').strip()}")
    return lines


def _walk(where: Path):
    if where.is_file():
        yield where
        return
    for dirpath, dirnames, filenames in os.walk(where):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath) / name


def _grep_python(
    root: Path, pattern: str, where: Path, glob: Any, roots: tuple[Path, ...] | None = None
) -> list[str]:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"invalid regular expression {pattern!r}: {exc}") from exc
    out: list[str] = []
    for path in _walk(where):
        rel = display(root, path)
        if (
            isinstance(glob, str)
            and glob
            and not (fnmatch.fnmatch(rel, glob) or fnmatch.fnmatch(path.name, glob))
        ):
            continue
        if roots is not None and path.is_symlink() and not inside(path, roots):
            continue  # rg does not follow links either
        try:
            if not path.is_file():  # a FIFO or socket would block the search forever
                continue
            if path.stat().st_size > GREP_FILE_CAP:  # logs, dumps, bundles: not source to search
                continue
            # plan mode: only a file that lies in the read roots once opened (a link can change
            # between the walk and the open)
            data = path.read_bytes() if roots is None else read_regular(path, GREP_FILE_CAP, "file", roots)
        except (OSError, PlanviewError):
            continue
        if b"\0" in data[:8192]:
            continue
        for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if regex.search(line):
                out.append(f"{rel}:{n}:{line[:LINE_CAP]}")
                if len(out) > MATCH_CAP:
                    return out
    return out


# ---------------------------------------------------------------- find / ls


async def find(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    pattern = args.get("glob")
    if not isinstance(pattern, str) or not pattern:
        raise ToolError("`glob` must be a pattern such as '**/*.py'")
    base = _readable(ctx, args.get("path") or ".")
    if not base.is_dir():
        raise ToolError(f"{display(ctx.project_root, base)} is not a folder")

    roots = _read_roots(ctx)
    walk = _one_globstar(pattern)

    def run() -> list[str]:
        found = []
        for path in base.glob(walk):
            rel = path.relative_to(base).parts
            if any(part in SKIP_DIRS for part in rel):
                continue
            if roots is not None and not inside(path, roots):
                continue  # a glob with ".." climbs out of the project
            found.append(display(ctx.project_root, path) + ("/" if path.is_dir() else ""))
            if len(found) > LIST_CAP * 4:
                break
        return sorted(found)

    try:
        found = await asyncio.to_thread(run)
    except (ValueError, NotImplementedError) as exc:
        raise ToolError(f"invalid glob {pattern!r}: {exc}") from exc
    except RecursionError:
        raise ToolError(f"the glob {pattern[:80]!r} has too many parts; use fewer folders in it") from None
    if not found:
        return ToolResult(f"no files match {pattern!r}")
    more = f"\n… {len(found) - LIST_CAP} more; narrow the glob" if len(found) > LIST_CAP else ""
    return ToolResult("\n".join(found[:LIST_CAP]) + more)


def _one_globstar(pattern: str) -> str:
    """`**/**/x` matches what `**/x` matches, but pathlib walks the tree once more for every
    repeated `**` (a model's `**/` x 20 ran for minutes in a thread nothing can stop)."""
    parts: list[str] = []
    for part in pattern.split("/"):
        if not (part == "**" and parts and parts[-1] == "**"):
            parts.append(part)
    return "/".join(parts)


async def ls(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    path = _readable(ctx, args.get("path") or ".")
    if not path.exists():
        raise ToolError(f"{display(ctx.project_root, path)} does not exist")
    if not path.is_dir():
        return ToolResult(display(ctx.project_root, path))
    entries = sorted(path.iterdir(), key=lambda p: (not p.is_dir(), p.name))
    names = [p.name + ("/" if p.is_dir() else "") for p in entries if p.name != ".git"]
    if not names:
        return ToolResult(f"{display(ctx.project_root, path)} is empty")
    more = f"\n… {len(names) - LIST_CAP} more entries" if len(names) > LIST_CAP else ""
    return ToolResult("\n".join(names[:LIST_CAP]) + more)


# ---------------------------------------------------------------- write / edit


def _writable(ctx: ToolContext, value: Any) -> Path:
    root = ctx.project_root
    path = resolve(root, value)
    real = path.resolve()
    try:
        rel = real.relative_to(root.resolve())
    except ValueError:
        raise ToolError(f"{value} is outside the project folder {root}; write only inside it") from None
    if rel.parts and rel.parts[0] == ".git":
        raise ToolError("writing inside .git is refused; use git commands through bash")
    if real.is_relative_to(Path(ctx.host.home).resolve()):
        # The ledger, sessions and plans: an approval must not be one `write` away from the model.
        raise ToolError(
            f"{value} is planview's own state; plans change with write_plan in plan mode "
            "and their steps with set_plan_steps"
        )
    return path


async def write(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    path = _writable(ctx, args.get("path"))
    content = args.get("content")
    if not isinstance(content, str):
        raise ToolError("`content` must be the full text of the file")
    if path.is_dir():
        raise ToolError(f"{display(ctx.project_root, path)} is a folder")
    if path.exists() and not path.is_file():  # opening a FIFO for writing blocks until a reader comes
        raise ToolError(f"{display(ctx.project_root, path)} is not a regular file")
    existed = path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(content)
    size = len(content.encode("utf-8"))
    verb = "Overwrote" if existed else "Created"
    return ToolResult(f"{verb} {display(ctx.project_root, path)} ({size:,} bytes)")


async def edit(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    path = _writable(ctx, args.get("path"))
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not old:
        raise ToolError("`old_string` must be the exact, non-empty text to replace")
    if not isinstance(new, str):
        raise ToolError("`new_string` must be a string (empty to delete)")
    if old == new:
        raise ToolError("`old_string` and `new_string` are the same; nothing to change")
    rel = display(ctx.project_root, path)
    with open(_existing(path, rel), encoding="utf-8", newline="") as fh:
        text = fh.read()
    count = text.count(old)
    if count == 0:
        raise ToolError(
            f"old_string was not found in {rel}; read the file and copy the exact text, whitespace and indentation included"
        )
    if count > 1:
        lines, start = [], 0
        for _ in range(count):
            at = text.index(old, start)
            lines.append(str(text.count("\n", 0, at) + 1))
            start = at + 1
        raise ToolError(
            f"old_string appears {count} times in {rel} (lines {', '.join(lines[:10])}); "
            "include more surrounding text so it matches exactly once"
        )
    at = text.index(old)
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text[:at] + new + text[at + len(old) :])
    line = text.count("\n", 0, at) + 1
    return ToolResult(
        f"Edited {rel} at line {line} (-{old.count(chr(10)) + 1} +{new.count(chr(10)) + 1} lines)"
    )


def _existing(path: Path, rel: str) -> Path:
    if not path.is_file():
        raise ToolError(f"{rel} does not exist; create it with write")
    return path


def _arg(args: Mapping[str, Any], key: str, default: str = "") -> str:
    value = args.get(key, default)
    return value if isinstance(value, str) else default


FILE_PATH = "file path, relative to the project root"

TOOLS = (
    ToolDef(
        "read",
        "Read a text file in the project. Lines come numbered; use offset/limit for long files.",
        schema(
            {
                "path": string_arg(FILE_PATH),
                "offset": integer_arg("first line to read (1-based)"),
                "limit": integer_arg(f"how many lines (default {READ_LIMIT})"),
            },
            ("path",),
        ),
        read,
        lambda a: f"read {_arg(a, 'path')}",
    ),
    ToolDef(
        "grep",
        "Search file contents with a regular expression. Prints path:line:text for each match.",
        schema(
            {
                "pattern": string_arg("regular expression"),
                "path": string_arg("file or folder to search (default: project root)"),
                "glob": string_arg("only files matching this glob, e.g. '*.py'"),
            },
            ("pattern",),
        ),
        grep,
        lambda a: f"grep {_arg(a, 'pattern')}" + (f" in {_arg(a, 'path')}" if a.get("path") else ""),
    ),
    ToolDef(
        "find",
        "Find files by glob pattern, e.g. '**/*.py' or 'src/**/test_*.py'.",
        schema(
            {
                "glob": string_arg("glob pattern relative to path"),
                "path": string_arg("folder to search (default: project root)"),
            },
            ("glob",),
        ),
        find,
        lambda a: f"find {_arg(a, 'glob')}",
    ),
    ToolDef(
        "ls",
        "List a folder's entries (folders end with /).",
        schema({"path": string_arg("folder (default: project root)")}),
        ls,
        lambda a: f"ls {_arg(a, 'path', '.')}",
    ),
    ToolDef(
        "write",
        "Create or overwrite a file in the project with the given content.",
        schema(
            {
                "path": string_arg(FILE_PATH),
                "content": string_arg("the complete new content"),
            },
            ("path", "content"),
        ),
        write,
        lambda a: f"write {_arg(a, 'path')}",
        mutating=True,
    ),
    ToolDef(
        "edit",
        "Replace one exact, unique occurrence of old_string with new_string in a file. "
        "Copy old_string exactly from a read (whitespace included) and make it long enough to be unique.",
        schema(
            {
                "path": string_arg(FILE_PATH),
                "old_string": string_arg("exact text to replace; must occur exactly once"),
                "new_string": string_arg("replacement text"),
            },
            ("path", "old_string", "new_string"),
        ),
        edit,
        lambda a: f"edit {_arg(a, 'path')}",
        mutating=True,
    ),
)
