"""docs/ARCHITECTURE.md's package map is true to the code: it names every package and top-level module
of planview, names nothing that does not exist, and lists the layers in the order the layering test
enforces (imports point down the map)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_layering import layer_of

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "ARCHITECTURE.md"


def map_entries() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```\n(planview/cli\.py.*?)```", text, re.S)
    assert block, "docs/ARCHITECTURE.md has no package map starting with planview/cli.py"
    return [line.split()[0] for line in block.group(1).splitlines() if line.strip()]


def code_entries() -> set[str]:
    package = REPO / "planview"
    found = {f"planview/{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()}
    found |= {f"planview/{p.name}" for p in package.glob("*.py")}
    return found


def test_the_map_names_every_package_and_module_and_nothing_else() -> None:
    listed = {entry for entry in map_entries() if entry.startswith("planview/")}
    code = code_entries()
    assert not code - listed, f"add to docs/ARCHITECTURE.md's map: {sorted(code - listed)}"
    assert not listed - code, f"docs/ARCHITECTURE.md's map names what does not exist: {sorted(listed - code)}"
    for entry in map_entries():
        if not entry.startswith("planview/"):
            assert (REPO / entry).exists(), entry


def _layer(entry: str) -> int:
    name = entry.rstrip("/").removesuffix(".py").replace("/", ".")
    rank = layer_of("planview" if name == "planview.__init__" else name)
    assert rank >= 0, f"{entry} is in no layer of tests/test_layering.py's LAYERS"
    return rank


def test_the_map_lists_the_layers_top_down() -> None:
    entries = [e for e in map_entries() if e.startswith("planview/")]
    for above, below in zip(entries, entries[1:], strict=False):
        assert _layer(above) >= _layer(below), f"{below} is listed below {above} but sits in a higher layer"
