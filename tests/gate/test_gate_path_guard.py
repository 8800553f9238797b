"""The path backstop: path-taking keys, path-shaped values, nesting, and what is not a path."""

from __future__ import annotations

from typing import Any

import pytest

from planview.gate.path_guard import MAX_DEPTH, MAX_NODES, is_path_key, is_path_value, takes_path

PATH_KEYS = [
    "path",
    "Path",
    "PATH",
    "paths",
    "file",
    "files",
    "filePath",
    "filePaths",
    "file_path",
    "FILE_PATHS",
    "filename",
    "fileName",
    "dir",
    "dirs",
    "directory",
    "directories",
    "output_dir",
    "outputDir",
    "workdir",
    "working-directory",
    "folder",
    "folders",
    "srcFolder",
    "root",
    "rootDir",
    "projectRoot",
    "webroot",
    "cwd",
    "CWD",
    "glob",
    "globs",
    "globPattern",
    "dest",
    "destination",
    "dst",
    "source",
    "sources",
    "src",
    "target",
    "targets",
    "include",
    "includes",
    "includePatterns",
    "exclude",
    "excludes",
    "exclude_globs",
    "logfile",
    "subfolder",
    "basePath",
    "output",
    "out",
    "pathname",
    "dirname",
]
NOT_PATH_KEYS = [
    "query",
    "q",
    "url",
    "uri",
    "repo",
    "owner",
    "state",
    "limit",
    "direction",
    "profile",
    "userProfile",
    "filter",
    "timeout",
    "content",
    "text",
    "title",
    "name",
    "id",
    "dirty",
    "pattern",
    "sort",
    "format",
    "description",
    "outline",
    "rooted",
]


@pytest.mark.parametrize("key", PATH_KEYS)
def test_path_keys(key: str) -> None:
    assert is_path_key(key)
    assert takes_path({key: "anything"}) is not None


@pytest.mark.parametrize("key", NOT_PATH_KEYS)
def test_keys_that_are_not_paths(key: str) -> None:
    assert not is_path_key(key)
    assert takes_path({key: "plain words"}) is None


PATH_VALUES = [
    ".",
    "..",
    "./x",
    "../x",
    "../../etc/passwd",
    ".\\x",
    "..\\x",
    "~",
    "~/x",
    "~/.ssh/id_rsa",
    "~root/x",
    "/",
    "/etc",
    "/etc/passwd",
    "/tmp/",
    "C:\\x",
    "C:\\Program Files\\x",
    "c:/Users",
    "\\\\server\\share",
    "a/b.ext",
    "src/app.py",
    "docs/guide/intro.md",
    "a\\b.ext",
    "file:///etc/passwd",
    "FILE:///etc/passwd",
    "file:relative.txt",
]
# Issue 11: each of these slipped past the guard of a hinted tool.
PATH_VALUES += [
    "//etc/passwd",
    "///etc/passwd",
    "etc/passwd",
    ".env",
    ".ssh",
    "$HOME/.ssh/id_rsa",
    "${HOME}/.ssh/id_rsa",
    "%2Fetc%2Fpasswd",
    "%252Fetc%252Fpasswd",
    "..%2F..%2Fetc",
    "\uff0fetc\uff0fpasswd",
    "\u2215etc\u2215passwd",
    "\u200b/etc/passwd",
    "\ufeff~/.ssh",
    "line one\n/etc/passwd",
    "cat /etc/passwd",
    'SELECT load_file("/etc/passwd")',
    '{"path": "/etc/passwd"}',
    "x=../secret",
    "octo/hello",
    "text/html",
    "and/or",
    "/* comment */",
    "/plan review",
    "a b/c.txt",
    "git@github.com:owner/repo.git",
    "line one\n./x",
    "x" * 5000,
]
NOT_PATH_VALUES = [
    "",
    "hello",
    "plain words here",
    "https://example.com/a/b.html",
    "http://x/y.js",
    "ftp://host/file.txt",
    "v1.2",
    "README",
    "0.5",
    "textual line api",
    "SELECT name FROM users WHERE id = 5",
    "100% done",
    "Q: what is it?",
]


@pytest.mark.parametrize("value", PATH_VALUES)
def test_path_shaped_values(value: str) -> None:
    assert is_path_value(value)
    found = takes_path({"q": value})
    assert found is not None and ("path-shaped value" in found or "too long to check" in found)


@pytest.mark.parametrize("value", NOT_PATH_VALUES)
def test_values_that_are_not_paths(value: str) -> None:
    assert not is_path_value(value)
    assert takes_path({"q": value}) is None


def test_nested_objects_and_arrays_are_scanned() -> None:
    found = takes_path({"query": "x", "options": {"filters": [{"kind": "a"}, {"where": "./src"}]}})
    assert found is not None and "options.filters[1].where" in found
    found = takes_path({"a": [[[{"b": {"outputDir": None}}]]]})
    assert found is not None and '"outputDir"' in found and "a[0][0][0].b.outputDir" in found


def test_first_path_is_reported_in_document_order() -> None:
    assert '"path"' in (takes_path({"path": 1, "dir": 2}) or "")


def test_clean_nested_input_passes() -> None:
    value: dict[str, Any] = {"query": "gate", "limit": 5, "flags": [True, None, 1.5], "opts": {"lang": "py"}}
    assert takes_path(value) is None
    assert takes_path({}) is None


def test_non_string_keys_are_checked_by_their_text() -> None:
    assert takes_path({"x": {7: "a", "y": 1}}) is None
    assert takes_path({("file",): 1}) is not None  # a tuple key's text "('file',)" has the word "file"
    assert takes_path({"x": {"file": 1}}) is not None


def test_too_deep_counts_as_path_taking() -> None:
    value: Any = "leaf"
    for _ in range(MAX_DEPTH + 2):
        value = {"k": value}
    found = takes_path(value)
    assert found is not None and "too deep" in found
    shallow: Any = "leaf"
    for _ in range(MAX_DEPTH - 1):
        shallow = [shallow]
    assert takes_path({"k": shallow}) is None


def test_too_large_counts_as_path_taking() -> None:
    found = takes_path({"ids": list(range(MAX_NODES + 10))})
    assert found is not None and "too large" in found


def test_self_referencing_input_terminates() -> None:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    found = takes_path(loop)
    assert found is not None and "too deep" in found


@pytest.mark.parametrize(
    "value", [" /etc/passwd", "\t~/.ssh/id_rsa", "\u00a0../x", " C:\\x", "\u3000file:///etc", "/etc/passwd\n"]
)
def test_leading_whitespace_does_not_hide_a_path(value: str) -> None:
    assert is_path_value(value)
    assert takes_path({"query": value}) is not None
