"""The run folder and its SQLite event log."""

from harness_evo.store.calls import Iteration, LlmCall, Spend
from harness_evo.store.edit import Edit, EditStatus, MoveKind, ScreenResult
from harness_evo.store.failure import Failure
from harness_evo.store.gate import GateEvidence, GateResult, KeyChoice, Verdict
from harness_evo.store.info import RunInfo, RunStatus
from harness_evo.store.node import Node, NodeStatus
from harness_evo.store.pattern import Pattern, PatternMember, PatternStatus
from harness_evo.store.record import Record
from harness_evo.store.rollout import INFRA_REASONS, ExitReason, Rollout
from harness_evo.store.run import PROJECTIONS, RunStore, StoreError

__all__ = [
    "INFRA_REASONS",
    "PROJECTIONS",
    "Edit",
    "EditStatus",
    "ExitReason",
    "Failure",
    "GateEvidence",
    "GateResult",
    "Iteration",
    "KeyChoice",
    "LlmCall",
    "MoveKind",
    "Node",
    "NodeStatus",
    "Pattern",
    "PatternMember",
    "PatternStatus",
    "Record",
    "Rollout",
    "RunInfo",
    "RunStatus",
    "RunStore",
    "ScreenResult",
    "Spend",
    "StoreError",
    "Verdict",
]
