"""The kernel's half of plan mode: Landlock (plus seccomp and private namespaces) applied before exec.

`status` says what this machine enforces, `rules` holds the command profile, `launch` wraps an argv
in the lean entry point `exec` (run as `python -I -m planview.sandbox.exec`), which restricts itself
and then `execvp`s. `landlock`, `seccomp` and `namespaces` are the small ctypes modules it uses.
"""
