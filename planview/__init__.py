"""planview: a plan-first terminal cockpit for coding agents."""

__version__ = "0.1.0"
