"""The offline demo: a small sample project and a scripted agent that works in it.

`sample_project` copies `project/` to a fresh temporary git repository; `agent` replays
`script.jsonl` (with one scripted revision after a refinement); `guide` is what the demo tells the
user on the way in and out.
"""
