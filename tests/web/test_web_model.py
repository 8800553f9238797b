"""The page model: what the browser is given to render (text, token classes, block line ranges)."""

from __future__ import annotations

from pathlib import Path

from planview.plan.feedback import ReviewComment, apply_feedback
from planview.web.highlight import highlight
from planview.web.model import build_page


def model(text: str, baseline: str | None = None) -> dict:
    return build_page(Path("/x/2026-01-01-1200-plan.md"), text.encode(), approve=True, baseline=baseline).data


def blocks(nodes: list) -> list[dict]:
    found = []
    for node in nodes:
        if isinstance(node, dict):
            if "b" in node:
                found.append(node)
            if node.get("k") in ("ul", "ol", "li", "quote"):
                found.extend(blocks(node["c"]))
    return sorted(found, key=lambda n: n["b"])


def test_every_commentable_block_ends_on_its_last_source_line():
    text = "# T\n\nPara one\nstill one.\n\n- a\n  more a\n  - nested\n- b\n\n```sh\nls\n```\n\n> quote\n> - not a block\n"
    found = blocks(model(text)["nodes"])
    assert [(n["k"], n["start"], n["end"]) for n in found] == [
        ("h", 1, 1),
        ("p", 3, 4),
        ("li", 6, 8),
        ("li", 8, 8),
        ("li", 9, 9),
        ("code", 11, 13),
        ("quote", 15, 16),  # items inside a quote belong to the quote
    ]
    # Anchoring a comment at each block's end is where the codec writes it: no block is split.
    for node in found:
        saved = apply_feedback(text, [ReviewComment(node["end"], "c")]).split("\n")
        assert saved[node["end"]] == "> [!REVIEW] c"


def test_a_stored_comment_inside_a_block_belongs_to_that_block():
    text = "# T\n\nline one\n> [!REVIEW] mid-paragraph\nline two\n"
    data = model(text)
    para = next(n for n in blocks(data["nodes"]) if n["k"] == "p")
    assert data["comments"] == [{"anchor_line": 3, "text": "mid-paragraph", "b": para["b"]}]


def test_links_are_only_http_mailto_or_fragments_and_images_are_never_loaded():
    data = model(
        "[a](javascript:alert(1)) [b](https://example.com) [c](data:text/html,x) ![i](http://t/p.png)\n"
    )
    runs = data["nodes"][0]["c"]
    links = [r for r in runs if isinstance(r, dict) and r["k"] == "a"]
    # markdown-it refuses javascript: and data: links (they stay text); our filter would drop them too.
    assert [link["href"] for link in links] == ["https://example.com"]
    assert any(isinstance(r, str) and "javascript:alert(1)" in r for r in runs)
    image = next(r for r in runs if isinstance(r, dict) and r["k"] == "img")
    assert image["alt"] == "i"


def test_bare_urls_become_links_without_trailing_punctuation():
    runs = model("See https://example.com/a_b. And www.example.org!\n")["nodes"][0]["c"]
    links = [r for r in runs if isinstance(r, dict)]
    assert [(link["href"], link["c"]) for link in links] == [
        ("https://example.com/a_b", ["https://example.com/a_b"]),
        ("https://www.example.org", ["www.example.org"]),
    ]


def test_tables_keep_alignment_and_tasks_their_state():
    data = model("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n\n- [ ] todo\n- [~] doing\n- [x] done\n")
    table = data["nodes"][0]
    assert table["align"] == ["left", "center", "right"] and table["rows"] == [[["1"], ["2"], ["3"]]]
    items = data["nodes"][1]["c"]
    assert [i["task"] for i in items] == ["todo", "doing", "done"]
    assert items[0]["c"][0]["c"] == ["todo"]


def test_code_is_tokenized_server_side_into_classes():
    lines = highlight('def f():\n    return "x"  # done\n', "python")
    assert ["k", "def"] in lines[0] and ["f", "f"] in lines[0]
    assert ["s", '"x"'] in lines[1] and ["c", "# done"] in lines[1]
    assert highlight("<b>not markup</b>\n", "nosuchlang") == [[["", "<b>not markup</b>"]]]


def test_changed_sections_follow_the_baseline_and_steps_count():
    before = "# P\n\n## Goal\n\nold\n\n## Steps\n\n- [x] one\n- [ ] two\n"
    now = before.replace("old", "new")
    data = model(now, baseline=before)
    assert [s["title"] for s in data["sections"] if s["changed"]] == ["Goal"]
    assert data["steps"] == {"done": 1, "total": 2}
    assert model(now)["changed"] == 0  # no earlier review: no dots
    assert model(before, baseline=before)["changed"] == 0


def test_title_falls_back_to_the_file_name():
    assert model("no heading here\n")["title"] == "2026-01-01-1200-plan"


def test_our_href_filter_holds_even_if_the_parser_let_a_script_url_through():
    from markdown_it import MarkdownIt

    from planview.web.model import _inline

    permissive = MarkdownIt("commonmark")
    permissive.validateLink = lambda url: True
    inline = permissive.parse("[a](javascript:alert(1)) [b](JAVASCRIPT:x) [c](vbscript:x) [d](https://ok)")[1]
    hrefs = [r["href"] for r in _inline(inline.children) if isinstance(r, dict)]
    assert hrefs == [None, None, None, "https://ok"]


def test_the_page_carries_the_word_diffs_of_the_changed_sections():
    before = "# P\n\n## Goal\n\nShip to staging.\n\n## Steps\n\n- [ ] one\n\n## Old\n\ngone\n"
    now = before.replace("staging", "production").replace("## Old\n\ngone\n", "## New\n\nhere\n")
    diffs = model(now, baseline=before)["diffs"]
    assert [(d["title"], d["status"]) for d in diffs] == [
        ("Goal", "changed"),
        ("New", "added"),
        ("Old", "removed"),
    ]
    assert ["delete", "staging"] in diffs[0]["pieces"] and ["insert", "production"] in diffs[0]["pieces"]
    assert diffs[2]["i"] is None
    assert model(now)["diffs"] == [] and model(before, baseline=before)["diffs"] == []


def test_the_steps_counter_counts_only_the_steps_sections_checkboxes():
    # Issue 29: a plan without checkboxes showed `0/317` (every bullet counted).
    assert model("# P\n\n## Steps\n\n- one\n- two\n- three\n")["steps"] == {"done": 0, "total": 0}
    # No Steps section: the fallback's lists are not steps to count on the page.
    assert model("# P\n\n## Notes\n\n- [x] a\n- [ ] b\n")["steps"] == {"done": 0, "total": 0}
    mixed = "# P\n\n- [x] not a step\n\n## Steps\n\n- [x] one\n- plain\n- [ ] three\n  - [x] a note\n"
    assert model(mixed)["steps"] == {"done": 1, "total": 2}


def test_front_matter_is_one_node_that_knows_its_line_count():
    front = "---\n" + "".join(f"key{i}: v\n" for i in range(61)) + "---\n\n# Title\n"
    first = model(front)["nodes"][0]
    assert first["k"] == "raw" and first["front"] is True and first["n"] == 61  # the lines between the fences
    assert model(front)["title"] == "Title"


def test_only_a_caller_handing_comments_to_a_model_says_so():
    text = "# P\n\nbody\n"
    assert model(text)["to_model"] is False
    page = build_page(Path("/x/p.md"), text.encode(), approve=False, baseline=None, to_model=True)
    assert page.data["to_model"] is True
