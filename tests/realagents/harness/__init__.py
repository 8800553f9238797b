"""The real-agent test tier's harness: pinned agents from npm, scripted model servers on loopback,
and a private network namespace every agent run happens in (README.md beside this package)."""
