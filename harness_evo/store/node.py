"""A node of the search tree: one harness version (its content hash), how it was made and how it scores."""

from enum import StrEnum
from typing import ClassVar

from harness_evo.store.record import Record


class NodeStatus(StrEnum):
    ROOT = "root"  # the starting harness
    ACCEPTED = "accepted"  # the child of an edit the gate accepted


class Node(Record):
    """A row of `nodes`."""

    event: ClassVar[str] = "node"
    table: ClassVar[str] = "nodes"

    id: str
    """The harness's content hash."""
    parent_id: str | None = None
    edit_id: str | None = None
    """The accepted edit that made it from its parent."""
    iteration: int | None = None
    """The iteration that accepted it (-1 for the root)."""
    status: NodeStatus | None = None
    created: float | None = None
    expansions: int = 0
    """Times the search chose it to expand."""
    train_score: float | None = None
    """Pass rate of its scored train rollouts (None before any)."""
    train_n: int = 0
    dev_score: float | None = None
    """Pass rate of its scored dev rollouts (None before any)."""
    dev_n: int = 0
    tokens_per_rollout: float | None = None
