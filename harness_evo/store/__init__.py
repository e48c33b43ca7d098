"""The run folder and its SQLite event log."""

from harness_evo.store.run import PROJECTIONS, RunStore

__all__ = ["PROJECTIONS", "RunStore"]
