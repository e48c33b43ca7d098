"""Moves: how an iteration makes its candidate edits, and the policy that picks one (DESIGN.md, step 5).

The proposer move is the loop's own path (the proposer model against the targeted pattern, the critic sending edits
back); `Harvest` needs no model. `FirstHarvest` picks harvesting while the expanded node has passed train rollouts of
tasks it has not harvested, the proposer otherwise.
"""

import random
from typing import Literal, Protocol

from harness_evo.agent.trajectory import Trajectory
from harness_evo.evolve.acceptance import Verdict
from harness_evo.evolve.harvest import harvest, retrieving_tasks, train_trajectories
from harness_evo.evolve.proposer import Proposal
from harness_evo.store import Edit, EditStatus

MoveKind = Literal["proposer", "harvest"]


class MoveChooser(Protocol):
    def choose(self, harvestable: bool, targeted: bool) -> MoveKind:
        """The move of this iteration; `harvestable`: the node has passed train rollouts of tasks not harvested yet;
        `targeted`: there is a promoted pattern for the proposer to work on."""
        ...


class FirstHarvest:
    """Harvest (when among `moves`) if there is something to harvest, or nothing for the proposer (a harvest may still
    remove examples that kept failing, or say it found nothing); else the proposer."""

    def __init__(self, moves: list[MoveKind]):
        self.moves = moves

    def choose(self, harvestable: bool, targeted: bool) -> MoveKind:
        if "harvest" in self.moves and (harvestable or not targeted or "proposer" not in self.moves):
            return "harvest"
        return "proposer"


class Harvest:
    """The harvesting move of `evolve/harvest.py`, run inside the loop `evolution` (an `Evolution`)."""

    def __init__(self, evolution):
        self.evolution = evolution

    def trajectories(self, node: str) -> list[Trajectory]:
        """The node's train rollouts, in the order they were recorded."""
        return train_trajectories(self.evolution.store, node)

    def taken(self, node: str) -> set[str]:
        """Tasks an earlier harvest of `node` already took an episode of, whatever that edit's fate."""
        edits = self.evolution.store.records(Edit, "parent_id = ?", [node])
        return {task for edit in edits if edit.move == "harvest" for task in edit.sources}

    def harvestable(self, node: str) -> bool:
        """The node has a passed train rollout of a task it has not harvested and holds no example of."""
        have = {example.task for example in self.evolution.harness(node).examples} | self.taken(node)
        train = {task.id for task in self.evolution.train}
        return any(t.passed and t.task_id in train and t.task_id not in have for t in self.trajectories(node))

    def run(self, i: int, node: str, rng: random.Random) -> tuple[Verdict | None, str]:
        """One harvest of `node`: the edit through the critic and the gate, or why there was none."""
        loop = self.evolution
        parent = loop.harness(node)
        train = {task.id: task for task in loop.train}
        harvested = harvest(parent, self.trajectories(node), train, set(train), self.taken(node))
        if harvested is None:
            return None, "harvest: no passed train rollout to take an example from and no example that kept failing"
        proposal = Proposal(ops=[op.model_dump() for op in harvested.edit.ops], rationale=harvested.rationale,
                            prediction="tasks like the examples' sources pass more often", edit=harvested.edit,
                            kind="harvest", sources=harvested.sources)
        candidate = loop.ledger.propose(i, 0, 0, node, None, proposal)
        known = loop.ledger.children(node) | {hash: "already a node of the tree" for hash in loop.state.nodes}
        target = {"id": None, "description": harvested.rationale, "support": len(harvested.sources), "missing_programs": {},
                  "sources": harvested.sources}
        candidate = loop.ledger.judged(candidate, loop.critic.judge(parent, harvested.edit, target, loop.config.seed, known))
        if candidate.status is not EditStatus.PROPOSED:
            return None, f"harvest edit {candidate.edit.id} refused: {'; '.join(candidate.edit.reasons)}"
        loop.harnesses[candidate.child.hash] = candidate.child
        target["task_ids"] = retrieving_tasks(parent, candidate.child, loop.train, harvested.sources)
        return loop.try_candidate(i, node, target, candidate, rng)
