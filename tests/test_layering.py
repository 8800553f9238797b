"""Layering: the pure layers never import textual, not even indirectly.

Each check runs in a fresh interpreter, imports every module of the packages (whichever exist)
with importlib, and reports the first module after whose import "textual" appeared in
sys.modules.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

PROBE = r"""
import importlib, json, pkgutil, sys, traceback
packages = sys.argv[1:]
imported, errors, culprit = [], {}, None
for name in packages:
    try:
        package = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            continue  # this package does not exist (yet)
        errors[name] = traceback.format_exc(limit=3)
        continue
    except Exception:
        errors[name] = traceback.format_exc(limit=3)
        continue
    names = [name]
    if hasattr(package, "__path__"):
        names += sorted(m.name for m in pkgutil.walk_packages(package.__path__, name + "."))
    for module in names:
        try:
            importlib.import_module(module)
        except Exception:
            errors[module] = traceback.format_exc(limit=3)
            continue
        imported.append(module)
        if culprit is None and "textual" in sys.modules:
            culprit = module
print(json.dumps({"imported": imported, "errors": errors, "culprit": culprit,
                  "textual": "textual" in sys.modules}))
"""


def probe(*packages: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *packages],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "package",
    [
        "planview.plan",
        "planview.gate",
        "planview.approval",
        "planview.session",
        "planview.claude",
        "planview.web",
        "planview.agents",
        "planview.sandbox",
        "planview.team",
    ],
)
def test_pure_layer_never_imports_textual(package):
    report = probe(package)
    assert not report["errors"], f"modules failed to import: {report['errors']}"
    assert not report["textual"], f"{report['culprit']} imports textual (only planview.tui may)"


def test_plan_package_imports_all_its_modules():
    report = probe("planview.plan")
    expected = {
        "planview.plan",
        "planview.plan.document",
        "planview.plan.steps",
        "planview.plan.diff",
        "planview.plan.feedback",
        "planview.plan.canonical",
        "planview.plan.decision",
        "planview.plan.markup",
    }
    assert expected <= set(report["imported"])


def test_all_pure_layers_together_stay_textual_free():
    report = probe(
        "planview.errors", "planview.plan", "planview.gate", "planview.approval", "planview.session"
    )
    assert not report["textual"], f"{report['culprit']} imports textual"


# Packages whose modules callers import one by one: the package itself loads none of them.
EMPTY_PACKAGES = (
    "planview.plan",
    "planview.gate",
    "planview.approval",
    "planview.session",
    "planview.session.tools",
    "planview.session.providers",
    "planview.session.mcp",
    "planview.tui.review",
    "planview.demo",
    "planview.sandbox",
    "planview.team",
)


def test_the_packages_reexport_nothing():
    """Importing a package loads none of its modules: `planview status` pays only for what it uses."""
    code = (
        "import importlib, json, sys\n"
        f"packages = {list(EMPTY_PACKAGES)!r}\n"
        "for name in packages:\n"
        "    importlib.import_module(name)\n"
        "loaded = [m for m in sys.modules if m.startswith(tuple(p + '.' for p in packages))"
        " and m not in packages]\n"
        "print(json.dumps({'loaded': loaded, 'textual': 'textual' in sys.modules}))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report == {"loaded": [], "textual": False}, report


def test_every_package_init_holds_only_its_docstring():
    """No package re-exports a name (no shim to keep in step, no import paid for by every submodule):
    callers import from the module that holds it. The root package holds only __version__."""
    import ast

    offenders = []
    for path in sorted(PACKAGE.rglob("__init__.py")):
        if path.parent == PACKAGE or PACKAGE / "demo" / "project" in path.parents:
            continue  # planview/__init__.py (the version); the demo's sample project is data
        body = ast.parse(path.read_text(encoding="utf-8")).body
        doc = (
            body[:1]
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            else []
        )
        if body[len(doc) :]:
            offenders.append(str(path.relative_to(REPO)))
    assert not offenders, f"these __init__.py files hold more than a docstring: {offenders}"
    assert set(EMPTY_PACKAGES) <= {module_name(p) for p in PACKAGE.rglob("__init__.py")}


# ------------------------------------------------------------------ static: imports point down, no cycle

PACKAGE = REPO / "planview"

# Lowest first. A module may import its own layer or any layer below it, never one above.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "ground",
        (
            "planview",  # the package itself holds only __version__
            "planview.errors",
            "planview.lazy_regex",
            "planview.bytecode",
            "planview.atomic",
            "planview.textsafe",
            "planview.home",
            "planview.fileguard",
            "planview.nesting",
            "planview.invocation",
            "planview.keymap",
        ),
    ),
    ("sandbox", ("planview.sandbox",)),
    # Low, because every approval reads `[approval]` (sign with SSH?) through the one approval flow.
    ("config", ("planview.config", "planview.mcp_config")),
    ("plan", ("planview.plan",)),
    ("gate", ("planview.gate",)),
    # Below approval: the one approval flow signs through it (git and ssh-keygen only, no UI).
    ("team", ("planview.team",)),
    ("approval", ("planview.approval",)),
    ("session", ("planview.session",)),
    ("rooms", ("planview.web", "planview.agents", "planview.claude", "planview.mcp")),
    ("tui", ("planview.tui",)),
    ("entry", ("planview.demo", "planview.commands", "planview.cli", "planview.__main__")),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """Every planview module `path` imports: top level, inside functions and under TYPE_CHECKING."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from pkg import mod` imports the submodule; `from mod import name` the module itself
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:  # `import planview.plan.store as x` and friends
                target = target.rpartition(".")[0]
            if target.startswith("planview") and target != name:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(path, name, modules) for name, path in modules.items()}


def layer_of(module: str) -> int:
    best, rank = -1, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            exact_only = prefix == "planview"  # the root package; its subpackages are placed one by one
            if (module == prefix or (not exact_only and module.startswith(prefix + "."))) and len(
                prefix
            ) > best:
                best, rank = len(prefix), index
    return rank


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (as a path that ends where it starts), or None. Iterative DFS."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    for start in sorted(graph):
        if state.get(start):
            continue
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        path = [start]
        state[start] = 1
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            nxt = todo.pop()
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if not state.get(nxt) and nxt in graph:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, sorted(graph[nxt])))
    return None


def test_every_module_has_a_layer() -> None:
    unplaced = sorted(m for m in all_modules() if layer_of(m) < 0)
    assert not unplaced, f"add these modules to a layer in LAYERS: {unplaced}"


def test_imports_point_down_the_layers() -> None:
    graph = import_graph()
    upward = sorted(
        f"{src} ({LAYERS[layer_of(src)][0]}) imports {dst} ({LAYERS[layer_of(dst)][0]})"
        for src, targets in graph.items()
        for dst in targets
        if layer_of(dst) > layer_of(src)
    )
    assert not upward, "imports must point down the layers:\n" + "\n".join(upward)


def test_only_the_tui_imports_textual() -> None:
    import ast

    offenders = []
    for name, path in all_modules().items():
        if name.startswith("planview.tui"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mods = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(m == "textual" or m.startswith("textual.") for m in mods):
                offenders.append(name)
    assert not offenders, f"only planview.tui imports textual: {sorted(set(offenders))}"


def test_the_import_graph_has_no_cycle() -> None:
    # Every import counts, also those inside functions and under TYPE_CHECKING: a cycle hidden in a
    # lazy import is still two modules that cannot be understood (or moved) one without the other.
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_the_checker_finds_a_cycle_and_an_upward_import() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    assert (
        layer_of("planview.plan.store") < layer_of("planview.session.session") < layer_of("planview.tui.app")
    )


if __name__ == "__main__":  # python tests/test_layering.py: the graph's size, and any cycle
    graph = import_graph()
    edges = sum(len(t) for t in graph.values())
    print(f"{len(graph)} modules, {edges} planview-internal imports (lazy and TYPE_CHECKING included)")
    print("cycle:", " -> ".join(find_cycle(graph) or ()) or "none")
