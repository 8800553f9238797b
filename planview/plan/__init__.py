"""planview.plan: the pure plan core: document model, steps, section diff, review comments, canonical hash.

Import from the submodule that holds a name (`planview.plan.document.parse_plan`,
`planview.plan.store.PlanStore`, ...): the package re-exports nothing, so importing the store
does not load markdown-it-py. Never imports textual.
"""
