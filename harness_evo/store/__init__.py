"""The run folder and its SQLite event log."""

from harness_evo.store.calls import Iteration, LlmCall
from harness_evo.store.edit import Edit, EditStatus
from harness_evo.store.node import Node, NodeStatus
from harness_evo.store.record import Record
from harness_evo.store.rollout import INFRA_REASONS, ExitReason, Rollout
from harness_evo.store.run import PROJECTIONS, RunStore

__all__ = ["INFRA_REASONS", "PROJECTIONS", "Edit", "EditStatus", "ExitReason", "Iteration", "LlmCall", "Node", "NodeStatus", "Record", "Rollout", "RunStore"]
