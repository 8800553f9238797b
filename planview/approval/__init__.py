"""planview.approval: hash-chained ledger, sealed plan artifacts, evidence packets, channels, the approval flow, audit.

Import from the submodule that holds a name (`planview.approval.approvals.Approvals`,
`planview.approval.ledger.Ledger`, ...): this package re-exports nothing, so `planview status`
or the Claude hook loads only the modules it uses (start-up time). Never imports textual (a test
checks it in a subprocess).
"""
