"""Team approvals: signed with the person's SSH key, carried in git notes, verified in CI.

Only git and ssh-keygen: `globs` (the tiny path-pattern language), `policy` (the tracked
`.planview/policy.toml` and `.planview/allowed_signers`), `scope` (a plan's `scope:` front matter),
`record` (the signed one-line payload), `sshsig` (ssh-keygen -Y), `notes` (refs/notes/planview/approvals
and sync), `signing` (what the approval flow calls), `verify` (the CI check), `hooks` (the
prepare-commit-msg trailer), `bootstrap` (`planview team init`), `export` (the PR description).
"""
