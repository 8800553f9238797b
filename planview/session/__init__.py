"""planview.session: the agent runtime (events, tools, providers, the plan-mode lifecycle, persistence).

No textual here: a UI consumes events and answers review / confirmation requests. Import from the
module that holds a name (`planview.session.session.Session`, `planview.session.events.ToolFinished`,
...): the package re-exports nothing, so `from planview.session import events` does not load the
whole runtime.
"""
