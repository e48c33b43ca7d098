"""The run folder and its SQLite event log."""

from harness_evo.store.calls import Iteration, LlmCall
from harness_evo.store.edit import Edit, EditStatus
from harness_evo.store.failure import Failure
from harness_evo.store.gate import Gate, Verdict
from harness_evo.store.node import Node, NodeStatus
from harness_evo.store.pattern import Pattern, PatternMember, PatternStatus
from harness_evo.store.record import Record
from harness_evo.store.rollout import INFRA_REASONS, ExitReason, Rollout
from harness_evo.store.run import PROJECTIONS, RunStatus, RunStore

__all__ = ["INFRA_REASONS", "PROJECTIONS", "Edit", "EditStatus", "ExitReason", "Failure", "Gate", "Iteration", "LlmCall", "Node", "NodeStatus", "Pattern", "PatternMember", "PatternStatus", "Record", "Rollout", "RunStatus", "RunStore", "Verdict"]
