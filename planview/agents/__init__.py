"""planview.agents: external coding agents over the Agent Client Protocol (no textual here).

`profiles` says how to start each agent and what it can promise, `client` is the thin adapter the
`agent-client-protocol` SDK calls, `translate` turns the agent's stream into planview's session
events, `permissions` maps its requests onto the gate, `breach` watches the project while it plans,
`link` drives the agent process, its session and its mode, `cancel` stops its turn, `prompts` and
`files` say what it is told and how its file requests are answered, `requests` answers what it
asks, and `session.AcpSession` runs its turns behind planview's plan mode, review, ledger and pin.
"""
