"""Every planview dataclass has a docstring of its own.

Without one, `dataclasses` builds `Class(field: type, ...)` from `inspect.signature(cls)` while it
creates the class, 0.3-1.3 ms a class at import, and many of them are on the session app's and the
review's start-up path, before the first frame (benchmarks/README.md). The source check walks every
class statement, nested ones included; the import check catches what the source check cannot name
(a dataclass made by a call or through an alias it does not follow).
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import planview

PACKAGE = Path(planview.__file__).resolve().parent
WHY = (
    "give each a one-line docstring saying what the value is for: without one, dataclasses builds "
    "'Class(field: type, ...)' from inspect.signature at class creation, 0.3-1.3 ms a class at "
    "import, much of it before the app's first frame (benchmarks/README.md)"
)


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _dataclass_names(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The names this module calls `dataclasses.dataclass` by, and those it calls the module by."""
    functions, modules = {"dataclass"}, {"dataclasses"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "dataclasses":
            functions |= {a.asname or a.name for a in node.names if a.name == "dataclass"}
        elif isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name == "dataclasses"}
    return functions, modules


def _is_dataclass_decorator(node: ast.expr, functions: set[str], modules: set[str]) -> bool:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id in functions
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "dataclass"
        and isinstance(node.value, ast.Name)
        and node.value.id in modules
    )


def _dataclass_statements(tree: ast.Module) -> Iterator[tuple[str, ast.ClassDef]]:
    """(qualified name, class statement) of every class decorated as a dataclass, at any depth."""
    functions, modules = _dataclass_names(tree)

    def visit(node: ast.AST, prefix: str) -> Iterator[tuple[str, ast.ClassDef]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                name = f"{prefix}{child.name}"
                if any(_is_dataclass_decorator(d, functions, modules) for d in child.decorator_list):
                    yield name, child
                yield from visit(child, f"{name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from visit(child, f"{prefix}{child.name}.<locals>.")
            else:
                yield from visit(child, prefix)

    return visit(tree, "")


def _source_dataclasses() -> dict[str, bool]:
    """`module.Qualname` of every dataclass statement in the package -> has its own docstring."""
    found: dict[str, bool] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        module = _module_name(path)
        for name, node in _dataclass_statements(tree):
            found[f"{module}.{name}"] = bool((ast.get_docstring(node) or "").strip())
    return found


def _imported_dataclasses() -> dict[str, type]:
    """Every dataclass a planview module defines and binds at module level or inside such a class."""
    found: dict[str, type] = {}

    def collect(namespace: dict[str, object], module: str) -> None:
        for value in namespace.values():
            if isinstance(value, type) and value.__module__ == module:
                key = f"{module}.{value.__qualname__}"
                if key in found:
                    continue
                if dataclasses.is_dataclass(value) and "__dataclass_fields__" in value.__dict__:
                    found[key] = value
                collect(dict(vars(value)), module)

    for info in pkgutil.walk_packages(planview.__path__, "planview."):
        if info.name.endswith("__main__"):  # importing planview/__main__.py runs the CLI
            continue
        module = importlib.import_module(info.name)
        collect(vars(module), module.__name__)
    return found


def test_every_dataclass_statement_has_a_docstring() -> None:
    found = _source_dataclasses()
    assert len(found) >= 100  # the walk sees the package (116 dataclasses when this test was written)
    missing = sorted(name for name, documented in found.items() if not documented)
    assert not missing, f"dataclasses without a docstring of their own: {', '.join(missing)}; {WHY}"


def test_every_imported_dataclass_has_its_own_docstring() -> None:
    found = _imported_dataclasses()
    assert len(found) >= 100
    missing = sorted(
        name
        for name, cls in found.items()
        # dataclasses stores the generated text in the class's own __dict__ too: tell it by its shape
        if not (cls.__doc__ or "").strip() or cls.__doc__.startswith(f"{cls.__name__}(")
    )
    assert not missing, f"dataclasses without a docstring of their own: {', '.join(missing)}; {WHY}"


def test_the_source_walk_sees_every_dataclass_an_import_finds() -> None:
    # Otherwise a decorator spelling the walk does not follow would hide a nested dataclass from it.
    unseen = sorted(set(_imported_dataclasses()) - set(_source_dataclasses()))
    assert not unseen, f"the source walk in this test misses {', '.join(unseen)}: teach it that spelling"


def test_the_checks_catch_a_dataclass_without_a_docstring() -> None:
    source = (
        "from dataclasses import dataclass as dc\nimport dataclasses as d\n"
        "def f():\n    @dc(frozen=True)\n    class Inner:\n        x: int\n"
        "class Outer:\n    @d.dataclass\n    class Nested:\n        '''Said.'''\n        y: int\n"
    )
    tree = ast.parse(source)
    decorated = {name: ast.get_docstring(node) for name, node in _dataclass_statements(tree)}
    assert decorated == {"f.<locals>.Inner": None, "Outer.Nested": "Said."}

    @dataclasses.dataclass(frozen=True)
    class Undocumented:
        x: int

    assert Undocumented.__doc__.startswith("Undocumented(")  # the shape the import check rejects
