"""What the loop knows between iterations, saved as a `checkpoint` event after each one.

`resume` restores the last checkpoint and redoes the iteration that was cut off: with the same seeds, the
same cached rollouts and the same cached model replies it takes the same decisions.
"""

import time
from statistics import fmean

from pydantic import BaseModel, Field

from harness_evo.curriculum import CurriculumState
from harness_evo.evolve.tree import Best, name_best
from harness_evo.store import Node, Rollout, RunStore


class NodeStats(BaseModel):
    """The scored rollouts of one node, by rollout id (a cached rollout seen twice counts once)."""

    train: dict[str, bool] = Field(default_factory=dict)
    """Rollout id -> passed, of the train rollouts."""
    dev: dict[str, bool] = Field(default_factory=dict)
    """Rollout id -> passed, of the dev rollouts."""
    tokens: dict[str, int] = Field(default_factory=dict)
    keys: dict[str, tuple[str, int]] = Field(default_factory=dict)
    """Rollout id -> its (task, trial)."""

    def add(self, rows: list[Rollout], split: str) -> None:
        for row in rows:
            if row.scored and row.split == split:
                getattr(self, split)[row.id] = row.passed
                self.tokens[row.id] = row.tokens
                self.keys[row.id] = (row.task_id, row.trial)

    def outcomes(self, split: str) -> dict[tuple[str, int], bool]:
        """(task, trial) -> passed, of the split's rollouts."""
        return {self.keys[key]: passed for key, passed in getattr(self, split).items() if key in self.keys}

    def costs(self, split: str) -> dict[tuple[str, int], int]:
        """(task, trial) -> tokens, of the split's rollouts."""
        return {
            self.keys[key]: self.tokens[key] for key in getattr(self, split) if key in self.keys and key in self.tokens
        }

    def score(self, split: str) -> tuple[float | None, int]:
        outcomes = list(getattr(self, split).values())
        return (fmean(outcomes) if outcomes else None, len(outcomes))

    def fields(self) -> dict:
        """The score columns of the node's row."""
        train, train_n = self.score("train")
        dev, dev_n = self.score("dev")
        tokens = round(fmean(self.tokens.values()), 1) if self.tokens else None
        return {
            "train_score": train,
            "train_n": train_n,
            "dev_score": dev,
            "dev_n": dev_n,
            "tokens_per_rollout": tokens,
        }


class LoopState(BaseModel):
    """The loop's memory at the end of an iteration."""

    iteration: int = 0
    """The next iteration to run."""
    idle: int = 0
    """Iterations since the last accepted edit."""
    elapsed_s: float = 0.0
    """Wall time spent by the run so far, over all its sessions."""
    curriculum: CurriculumState | None = None
    nodes: dict[str, Node] = Field(default_factory=dict)
    stats: dict[str, NodeStats] = Field(default_factory=dict)

    def save(self, store: RunStore) -> None:
        store.emit("checkpoint", self.model_dump(mode="json"))

    @classmethod
    def last(cls, store: RunStore) -> "LoopState | None":
        found = None
        for event in store.events(["checkpoint"]):
            found = event
        if found is None:
            return None
        state = cls.model_validate(found["data"])
        state.fill_keys(store)
        return state

    def fill_keys(self, store: RunStore) -> None:
        """Give a checkpoint from before `NodeStats.keys` the (task, trial) of its rollouts."""
        missing = {key for stats in self.stats.values() for key in [*stats.train, *stats.dev] if key not in stats.keys}
        if not missing:
            return
        found = {row.id: (row.task_id, row.trial) for row in store.records(Rollout)}
        for stats in self.stats.values():
            stats.keys |= {key: found[key] for key in [*stats.train, *stats.dev] if key in found}

    def best(self, root: str, alpha: float, cost: bool = False) -> Best:
        """The run's best node: the root, unless a node beats it on the dev keys both ran by the paired test at `alpha`
        or, with `cost`, is no worse there and cheaper (see `name_best`)."""
        dev = {
            node: {key: float(passed) for key, passed in node_stats.outcomes("dev").items()}
            for node, node_stats in self.stats.items()
            if node in self.nodes
        }
        tokens = {node: row.tokens_per_rollout for node, row in self.nodes.items()}
        costs = {node: self.stats[node].costs("dev") for node in dev} if cost else None
        return name_best(root, dev, tokens, alpha, costs)

    def put_node(self, store: RunStore, node_id: str, **fields) -> Node:
        """Update a node (in memory and in the store) with `fields` and its current scores."""
        known = self.nodes.get(node_id) or Node(id=node_id, created=time.time())
        node = Node.model_validate(known.model_dump() | fields | self.stats.setdefault(node_id, NodeStats()).fields())
        self.nodes[node_id] = node
        store.put(node)
        return node
