"""Ordinary planning commands run in plan mode with their normal output, through the real bash tool.

A small codebase (a package, tests, docs, a config file, a symlink inside the project) and 100+
commands a developer types while reading one: searches, listings, heads and tails, pipes between
them, `2>/dev/null`, chains, read-only git. Each runs through a real plan-mode Session's bash tool
(the gate, the plan environment and the kernel sandbox), must not be refused or fail, and its
output must hold what the same command prints outside plan mode. With the sandbox switched off
(in process) the same commands are refused by the git-only list: the last test checks that.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from planview.sandbox import status as sandbox_status
from planview.session.providers.base import ModelToolCall
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from tests.sandbox.conftest import needs_landlock

FILES = {
    "README.md": "# shop\n\nA tiny shop service.\n\n## Usage\n\nRun `python -m shop`.\n\n## License\n\nMIT\n",
    "pyproject.toml": '[project]\nname = "shop"\nversion = "0.3.0"\ndependencies = ["requests>=2"]\n',
    "src/shop/__init__.py": '"""The shop."""\n\n__version__ = "0.3.0"\n',
    "src/shop/cart.py": (
        "from shop.prices import price_of\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n"
        "    def add(self, sku, qty=1):\n        # TODO: validate sku\n        self.items.append((sku, qty))\n\n"
        "    def total(self):\n        return sum(price_of(s) * q for s, q in self.items)\n"
    ),
    "src/shop/prices.py": (
        'PRICES = {"apple": 3, "pear": 4, "fig": 9}\n\n\ndef price_of(sku):\n    # FIXME: unknown skus\n'
        "    return PRICES[sku]\n"
    ),
    "src/shop/api/handlers.py": (
        'import logging\n\nlog = logging.getLogger(__name__)\n\n\ndef get_cart(request):\n    log.info("cart")\n'
        '    return {"items": []}\n\n\ndef post_item(request):\n    # TODO: auth\n    return {"ok": True}\n'
    ),
    "src/shop/api/__init__.py": "",
    "tests/test_cart.py": (
        "from shop.cart import Cart\n\n\ndef test_total():\n    cart = Cart()\n    cart.add('apple', 2)\n"
        "    assert cart.total() == 6\n"
    ),
    "tests/test_prices.py": "from shop.prices import price_of\n\n\ndef test_fig():\n    assert price_of('fig') == 9\n",
    "docs/design.md": "# Design\n\nCarts hold (sku, qty) pairs.\nPrices live in one table.\n",
    "config/settings.ini": "[server]\nport = 8080\nhost = 127.0.0.1\n",
    "data/skus.csv": "sku,name,price\napple,Apple,3\npear,Pear,4\nfig,Fig,9\napple,Apple,3\n",
    "Makefile": "test:\n\tpytest -q\n",
    "data/sorted.txt": "a\nb\nc\n",
    ".gitignore": "__pycache__/\n*.pyc\n",
}

# (command, text its output must hold)
COMMANDS: list[tuple[str, str]] = [
    ("rg TODO", "TODO: validate sku"),
    ("rg -n TODO src", "cart.py:9"),
    ("rg -l price_of", "src/shop/cart.py"),
    ("rg -c TODO", ":1"),
    ("rg -i todo src/shop/api", "TODO: auth"),
    ("rg -w Cart", "class Cart"),
    ("rg --files", "src/shop/prices.py"),
    ("rg --files -g '*.md'", "docs/design.md"),
    ("rg -t py 'def '", "def price_of"),
    ("rg -F '(sku, qty)'", "(sku, qty)"),
    ("rg -A 2 'def total'", "return sum"),
    ("rg -B 1 'return PRICES'", "FIXME"),
    ("rg -e TODO -e FIXME", "FIXME: unknown skus"),
    ("rg 'import \\w+' -o", "import logging"),
    ("rg --json -m 1 Cart | head -1", '"type"'),
    ("rg nothing-matches-this || echo none", "none"),
    ("rg -n port config", "port = 8080"),
    ("rg --hidden -l pyc", ".gitignore"),
    ("grep -rn TODO .", "TODO: validate sku"),
    ("grep -rn TODO src 2>/dev/null", "cart.py:9"),
    ("grep -rl price_of src", "src/shop/cart.py"),
    ("grep -rn --include='*.py' 'def ' src", "def get_cart"),
    ("grep -c apple data/skus.csv", "2"),
    ("grep -n '^## ' README.md", "## Usage"),
    ("grep -v '^$' docs/design.md", "Carts hold"),
    ("grep -ri fixme src", "FIXME"),
    ("grep -E 'apple|fig' data/skus.csv", "fig,Fig,9"),
    ("grep -w port config/settings.ini", "8080"),
    ("grep -rn 'import' src | wc -l", "2"),
    ("grep -rn TODO src | cut -d: -f1 | sort -u", "src/shop/api/handlers.py"),
    ("find . -name '*.py'", "./src/shop/cart.py"),
    ("find src -type f", "src/shop/prices.py"),
    ("find . -name '*.md' -not -path './.git/*'", "./docs/design.md"),
    ("find . -type d -name api", "./src/shop/api"),
    ("find . -maxdepth 1 -type f", "./README.md"),
    ("find . -name '*.py' | wc -l", "7"),
    ("find src -name '*.py' -newer README.md -o -name '*.py' -print | head -3", "src/shop"),
    ("find . -path ./.git -prune -o -name '*.ini' -print", "./config/settings.ini"),
    ("find . -empty -name '*.py'", "__init__.py"),
    ("find tests -name 'test_*.py' | sort", "tests/test_cart.py"),
    ("ls", "README.md"),
    ("ls -la", "pyproject.toml"),
    ("ls -la src", "shop"),
    ("ls -R src", "handlers.py"),
    ("ls -1 tests", "test_prices.py"),
    ("ls -lh data", "skus.csv"),
    ("ls -a", ".gitignore"),
    ("ls src/shop/api", "handlers.py"),
    ("ls -d */", "src/"),
    ("ls link-to-docs/", "design.md"),
    ("cat README.md", "A tiny shop service."),
    ("cat README.md | head", "# shop"),
    ("cat -n src/shop/prices.py", "1\tPRICES"),
    ("cat pyproject.toml | grep version", 'version = "0.3.0"'),
    ("cat docs/design.md config/settings.ini", "port = 8080"),
    ("head -5 src/shop/cart.py", "class Cart"),
    ("head -n 3 README.md", "A tiny shop service."),
    ("head -c 20 pyproject.toml", "[project]"),
    ("tail -3 src/shop/prices.py", "return PRICES[sku]"),
    ("tail -n 2 data/skus.csv", "fig,Fig,9"),
    ("tail -n +2 data/skus.csv | head -1", "apple,Apple,3"),
    ("wc -l src/shop/*.py 2>/dev/null || wc -l src/shop/cart.py", "cart.py"),
    ("wc -l README.md", "README.md"),
    ("wc -w docs/design.md", "docs/design.md"),
    ("wc -c data/skus.csv", "data/skus.csv"),
    ("sort data/skus.csv", "apple,Apple,3"),
    ("sort -t, -k3 -n data/skus.csv | tail -1", "fig,Fig,9"),
    ("sort -u data/skus.csv | wc -l", "4"),
    ("sort -r docs/design.md | head -1", "Prices"),
    ("uniq -c data/skus.csv", "1 sku,name,price"),
    ("sort data/skus.csv | uniq -d", "apple,Apple,3"),
    ("cut -d, -f1 data/skus.csv", "sku"),
    ("cut -d, -f2,3 data/skus.csv | sort -u", "Pear,4"),
    ("cut -c1-5 README.md", "# sho"),
    ("sed -n '1,3p' src/shop/cart.py", "from shop.prices"),
    ("sed -n '/def total/,/return/p' src/shop/cart.py", "return sum"),
    ("sed -n 2p data/skus.csv", "apple,Apple,3"),
    ("sed -n '$p' README.md", "more"),
    ("sed -n 's/port = /PORT=/p' config/settings.ini", "PORT=8080"),
    ("sed -n '/^\\[/p' config/settings.ini", "[server]"),
    ("sed -n '=' docs/design.md | tail -1", "4"),
    ("echo abc | tr a-z A-Z; echo ok", "ABC"),
    ("cat data/skus.csv | tr , ' ' | head -2", "sku name price"),
    ("cat README.md | tr -s ' ' | wc -l", "12"),
    ("file README.md", "text"),
    ("file src/shop/cart.py data/skus.csv", "cart.py"),
    ("stat README.md", "Size:"),
    ("stat -c '%s %n' pyproject.toml", "pyproject.toml"),
    ("tree", "handlers.py"),
    ("tree -L 2", "src"),
    ("tree src -I '__init__.py'", "cart.py"),
    ("tree -d", "api"),
    ("diff tests/test_cart.py tests/test_prices.py", "<"),
    ("diff -u tests/test_cart.py tests/test_prices.py || true", "+++ tests/test_prices.py"),
    ("diff -q README.md README.md && echo same", "same"),
    ("git status", "On branch main"),
    ("git status --short", "?? notes.txt"),
    ("git log --oneline", "first commit"),
    ("git log -p -1 --stat", "src/shop/cart.py"),
    ("git show --stat HEAD", "first commit"),
    ("git diff", "+more"),
    ("git diff --stat", "README.md"),
    ("git ls-files | head -5", ".gitignore"),
    ("git ls-files src | wc -l", "5"),
    ("git grep -n TODO", "src/shop/cart.py"),
    ("git blame -L 1,3 src/shop/prices.py", "PRICES"),
    ("git log --format='%h %s' -3", "first commit"),
    ("git branch -a", "main"),
    ("git -C src log --oneline -1", "first commit"),
    ("git -C src/shop ls-files", "cart.py"),
    ("git config --get user.email", "t@example.com"),
    ("git config --list", "user.email=t@example.com"),
    ("git rev-parse --show-toplevel", "/"),
    ("git status && ls", "README.md"),
    ("ls src ; ls tests", "test_cart.py"),
    ("git log --oneline | wc -l", "1"),
    ("git diff --name-only | sort", "README.md"),
    ("rg -n 'def ' src | sort | head -3", "src/shop/api/handlers.py"),
    ("find . -name '*.py' -not -path './.git/*' | xargs-is-not-here 2>/dev/null || echo fallback", ""),
    ("echo hello", "hello"),
    ("pwd", "/"),
    ("du -sh src", "src"),
    ("nl README.md | head -2", "1\t# shop"),
    ("basename src/shop/cart.py", "cart.py"),
    ("dirname src/shop/cart.py", "src/shop"),
    ("realpath README.md", "README.md"),
    ("readlink link-to-docs", "docs"),
    ("comm -12 data/sorted.txt data/sorted.txt", "b"),
    ("ls src/shop/*.py", "src/shop/cart.py"),
    ("grep -l TODO src/shop/*.py src/shop/api/*.py", "handlers.py"),
    ("cmp README.md README.md && echo equal", "equal"),
    ("tac docs/design.md | head -1", "Prices live"),
]
# Commands in the table that the list refuses on purpose (their text documents why; not run).
REFUSED_IN_TABLE = {
    "find . -name '*.py' -not -path './.git/*' | xargs-is-not-here 2>/dev/null || echo fallback"
}


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def codebase(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("codebase") / "shop"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "link-to-docs").symlink_to("docs")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "t")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "first commit")
    (root / "README.md").write_text(FILES["README.md"] + "more\n")
    (root / "notes.txt").write_text("scratch\n")
    return root


def session(root: Path, home: Path) -> Session:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "x"})))
    os.environ.setdefault("PLANVIEW_HOME", str(home))
    return Session(project_root=root, provider=provider, plan_mode=True, persist=False)


def test_the_table_is_large_enough():
    assert len(COMMANDS) - len(REFUSED_IN_TABLE) >= 100
    assert len({c for c, _ in COMMANDS}) == len(COMMANDS)


async def test_planning_commands_run_with_their_normal_output(
    codebase: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    needs_landlock()
    monkeypatch.setenv("PLANVIEW_HOME", str(tmp_path / "home"))
    s = session(codebase, tmp_path / "home")
    assert s.sandboxed
    problems = []
    for index, (command, expected) in enumerate(COMMANDS):
        result = (await s.run_tool_call(ModelToolCall(f"c{index}", "bash", {"command": command}))).result
        if command in REFUSED_IN_TABLE:
            if not result.text.startswith("Refused"):
                problems.append(f"{command!r} was not refused: {result.text[:200]!r}")
            continue
        # diff exits 1 when the files differ: that is its normal answer, not a failure
        failed = result.error and not result.text.endswith("(exit code 1)")
        if failed or result.text.startswith("Refused") or expected not in result.text:
            problems.append(f"{command!r} -> {result.text[:300]!r}")
    assert not problems, "\n".join(problems)
    assert not (codebase / "pwned").exists()


async def test_without_the_sandbox_only_git_runs(
    codebase: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("PLANVIEW_HOME", str(tmp_path / "home"))
    with sandbox_status.forced(sandbox_status.lists_only("switched off for this test")):
        s = session(codebase, tmp_path / "home")
        assert not s.sandboxed
        refused = 0
        for index, (command, _) in enumerate(COMMANDS):
            result = (await s.run_tool_call(ModelToolCall(f"c{index}", "bash", {"command": command}))).result
            refused += result.text.startswith("Refused")
            if command.startswith("rg ") or command.startswith("ls"):
                assert result.text.startswith("Refused"), command
    assert refused >= 80
