"""`planview plans` (the saved plans, newest first) and `planview steps PATH` (a plan's steps)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planview.plan.errors import PlanPathError
from planview.textsafe import say


def register(subparsers: argparse._SubParsersAction) -> None:
    plans = subparsers.add_parser(
        "plans",
        help="list the saved plans, newest first",
        description="List the plans in the plans folder (.planview/plans in a git repository), newest first, "
        "with their title and steps done/total; a plan that cannot be read (not UTF-8, over the size "
        "limit, a symlink, a FIFO or a folder named like a plan, which are never opened) is listed as "
        '"unreadable: why" ("unreadable" in --json, else null).',
    )
    plans.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    plans.add_argument(
        "--dir",
        metavar="FOLDER",
        type=Path,
        default=None,
        help="list the .md plans in FOLDER instead (e.g. the sample plans: --dir plans)",
    )
    plans.set_defaults(handler=run_plans)

    steps = subparsers.add_parser(
        "steps",
        help="show a plan's steps and which are done",
        description="Print the steps of a Markdown plan: the top-level items of its Steps section "
        "(or, without one, the document's shallowest list).",
    )
    steps.add_argument("path", metavar="PATH", help="a Markdown plan file (any path)")
    steps.add_argument(
        "--json",
        action="store_true",
        help='print [{"index", "text", "status", "completed", "notes"}, ...]; status is pending, '
        "in_progress or completed",
    )
    steps.set_defaults(handler=run_steps)


def _emit(lines: list[str]) -> int:
    """Print to stdout (a reader that stops early is handled once, in planview.cli)."""
    say("".join(line + "\n" for line in lines), end="")
    return 0


def _printable(text: str) -> str:
    """Plan text may carry escape sequences: the one terminal sanitiser removes them."""
    from planview.textsafe import sanitize_for_terminal

    return sanitize_for_terminal(text)


def _json(rows: list[dict]) -> str:
    from planview.textsafe import json_for_terminal

    return json_for_terminal(rows, indent=2)


def run_plans(args: argparse.Namespace) -> int:
    from planview.plan.store import PlanStore, list_plans

    if args.dir is not None:
        folder = args.dir
        if not folder.is_dir():
            what = "is a file, not a folder" if folder.exists() else "does not exist"
            raise PlanPathError(f"{_printable(str(folder))} {what}; pass a folder that holds .md plans")
        infos = list_plans(folder)
        label = str(folder)
        shown = [info.path.name for info in infos]
    else:
        store = PlanStore.for_cwd(create=False)
        infos = store.list()
        label = store.relative(store.plans_dir)
        if not infos:
            from planview.plan.store import check_plans_folder

            check_plans_folder(store.plans_dir, label)
        # Every plan is directly in the plans folder: its label once, then each name (store.relative
        # per plan was most of listing 10,000 plans, benchmarks/plans_scale.py).
        folder_label = store.relative(store.plans_dir)
        shown = [
            f"{folder_label}/{info.path.name}" for info in infos
        ]  # a list: hashing 10,000 Paths cost more
    if args.json:
        rows = [
            {
                "file": file,
                "path": str(info.path),
                "title": info.title,
                "steps_done": info.steps_done,
                "steps_total": info.steps_total,
                "mtime": info.mtime,
                "unreadable": info.unreadable,
            }
            for info, file in zip(infos, shown, strict=True)
        ]
        return _emit([_json(rows)])
    if not infos:
        say(f"no plans yet in {_printable(label)}", file=sys.stderr)
        return 0
    files = [_printable(file) for file in shown]
    titles = [_printable(info.title) for info in infos]
    file_width = max(map(len, files))
    title_width = min(max(map(len, titles)), 60)
    return _emit(
        [
            f"{file:<{file_width}}  {title:<{title_width}}  "
            + (
                f"{info.steps_done}/{info.steps_total}"
                if info.unreadable is None
                else f"unreadable: {_printable(info.unreadable)}"
            )
            for info, file, title in zip(infos, files, titles, strict=True)
        ]
    )


_STATUS_BOX = {"pending": " ", "in_progress": "~", "completed": "x"}


def run_steps(args: argparse.Namespace) -> int:
    from planview.plan.steps import extract_steps
    from planview.plan.store import plans_dir_for_cwd, read_plan_text, resolve_markdown_plan

    refusal = (
        f"planview steps reads Markdown plans (.md); {_printable(args.path)} is not one — pass a .md file"
    )
    path = resolve_markdown_plan(
        args.path, plans_dir_for_cwd(), refusal=refusal
    )  # a bare name: the plans folder
    text = read_plan_text(path)
    found = extract_steps(text)
    if args.json:
        rows = [
            {
                "index": step.index,
                "text": step.text,
                "status": step.status,
                "completed": step.completed,
                "notes": list(step.notes),
            }
            for step in found.steps
        ]
        return _emit([_json(rows)])
    if not found.steps:
        say(f"no steps in {_printable(args.path)}: it has no Steps section and no list", file=sys.stderr)
        return 0
    if found.source == "shallowest_list":
        say("(no Steps section: showing the document's shallowest list)", file=sys.stderr)
    return _emit(
        [f"[{_STATUS_BOX[step.status]}] {step.index}. {_printable(step.display)}" for step in found.steps]
    )
