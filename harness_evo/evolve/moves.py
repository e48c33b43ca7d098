"""Moves: how an iteration makes its candidate edit, and the policy that picks one (DESIGN.md, step 5).

The proposer move is the loop's own path (the proposer model against the targeted pattern, the critic sending edits
back); `Harvest` and `KnobMove` need no model. A `MoveChooser` picks among the moves that have something to do:
`FirstHarvest` harvests whenever it can; `MoveBandit` values each kind by the gain its accepted edits showed per gate
rollout, from the ledger (so a resumed run chooses as the interrupted one would have).
"""

import math
import random
from collections import defaultdict
from typing import Literal, Protocol

from harness_evo.agent.executor import Executor
from harness_evo.agent.trajectory import Trajectory
from harness_evo.evolve.acceptance import Verdict
from harness_evo.evolve.gate import across_categories
from harness_evo.evolve.harvest import harvest, retrieving_tasks, train_trajectories
from harness_evo.evolve.knobs import knob_edit, knob_steps
from harness_evo.evolve.proposer import Proposal
from harness_evo.evolve.target import Target
from harness_evo.store import Edit, EditStatus, RunStore

MoveKind = Literal["proposer", "harvest", "knob"]
SOLUTIONS = "solutions"
"""The run folder's store of reference-solution episodes."""
EXPLORATION = 0.05
"""Scale of `MoveBandit`'s exploration bonus, in gain per gate rollout (a move kind whose edit fixed one task more than
it broke in a 20-rollout gate has 0.05)."""


class MoveChooser(Protocol):
    def choose(self, available: list[MoveKind], history: list[Edit]) -> MoveKind:
        """The move of this iteration among `available` (in the order of `search.moves`); `history`: every edit of the run."""
        ...


class FirstHarvest:
    """Harvest when it is available, else the first available move."""

    def choose(self, available: list[MoveKind], history: list[Edit]) -> MoveKind:
        return "harvest" if "harvest" in available else available[0]


class MoveBandit:
    """UCB over move kinds: a kind not tried yet first, then the highest accepted gain (fixed minus broken of accepted
    edits) per gate rollout, plus `EXPLORATION` * sqrt(2 ln(tries) / tries of the kind); ties to the order of `moves`."""

    def choose(self, available: list[MoveKind], history: list[Edit]) -> MoveKind:
        tries, gain, rollouts = defaultdict(set), defaultdict(float), defaultdict(int)
        for edit in history:
            tries[edit.move].add(edit.iteration)
            if edit.gate:
                rollouts[edit.move] += 2 * edit.gate.pairs
                if edit.status is EditStatus.ACCEPTED:
                    gain[edit.move] += edit.gate.fixed - edit.gate.broken
        untried = [kind for kind in available if not tries[kind]]
        if untried:
            return untried[0]
        total = sum(len(tries[kind]) for kind in available)

        def value(kind: MoveKind) -> float:
            n = len(tries[kind])
            return gain[kind] / max(rollouts[kind], 1) + EXPLORATION * math.sqrt(2 * math.log(total) / n)
        return max(available, key=lambda kind: (value(kind), -available.index(kind)))


def move_chooser(policy: str) -> MoveChooser:
    return {"bandit": MoveBandit, "first-harvest": FirstHarvest}[policy]()


def gate_model_free(evolution, i: int, node: str, target: Target, proposal: Proposal,
                    rng: random.Random) -> tuple[Verdict | None, str]:
    """A move's edit (made without a model) through the critic and, if it passes, the gate against `target`."""
    parent = evolution.harness(node)
    candidate = evolution.ledger.propose(i, 0, 0, node, target.id, proposal)
    candidate = evolution.ledger.judged(candidate, evolution.critic.judge(parent, proposal.edit, target, evolution.config.seed,
                                                                          evolution.known(node)))
    if candidate.status is not EditStatus.PROPOSED:
        return None, f"{proposal.kind} edit {candidate.edit.id} refused: {'; '.join(candidate.edit.reasons)}"
    evolution.harnesses[candidate.child.hash] = candidate.child
    if proposal.kind == "harvest":
        target = target.model_copy(update={"task_ids": retrieving_tasks(parent, candidate.child, evolution.train, proposal.sources)})
    return evolution.try_candidate(i, node, target, candidate, rng)


class Harvest:
    """The harvesting move of `evolve/harvest.py`, run inside the loop `evolution` (an `Evolution`)."""

    def __init__(self, evolution):
        self.evolution = evolution
        self.read: dict[str, Trajectory] = {}
        """Trajectories read so far, by rollout id."""
        self.solved: list[Trajectory] | None = None
        """The reference solutions' episodes, once run."""

    def trajectories(self, node: str) -> list[Trajectory]:
        """The node's train rollouts in the order they were recorded, then (with `solutions` among
        `search.examples_from`) the episodes of the train tasks' reference solutions."""
        sources = self.evolution.config.search.examples_from
        rollouts = train_trajectories(self.evolution.store, node, self.read) if "rollouts" in sources else []
        return rollouts + (self.solutions() if "solutions" in sources else [])

    def solutions(self) -> list[Trajectory]:
        """The reference solutions of the train tasks run one command per step with the root harness: once per run,
        in the run folder's own `solutions/` store (its rows are no rollouts of the run's nodes or budget)."""
        if self.solved is not None:
            return self.solved
        loop = self.evolution
        folder = loop.store.folder / SOLUTIONS
        store = RunStore(folder) if (folder / "run.db").is_file() else RunStore.create(loop.store.folder, "eval", run_id=SOLUTIONS)
        root = loop.harness(loop.root)
        Executor(store, loop.backend, loop.suite, loop.llm, workers=2, agent="solution").run(root, loop.train, [0])
        self.solved = train_trajectories(store, root.hash)
        return self.solved

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
        train = {task.id: task for task in loop.train}
        half = max(1, len(train) // 2)  # the gate measures the others
        harvested = harvest(loop.harness(node), self.trajectories(node), train, set(train), self.taken(node),
                            limit=lambda tasks: across_categories(tasks, loop.train, half, rng),
                            max_chars=loop.config.search.max_harness_chars)
        if harvested is None:
            return None, "harvest: no passed train rollout to take an example from and no example that kept failing"
        proposal = Proposal(ops=[op.model_dump() for op in harvested.edit.ops], rationale=harvested.rationale,
                            prediction="tasks like the examples' sources pass more often", edit=harvested.edit,
                            kind="harvest", sources=harvested.sources)
        target = Target(description=harvested.rationale, support=len(harvested.sources), sources=harvested.sources)
        return gate_model_free(loop, i, node, target, proposal, rng)


class KnobMove:
    """The knob move of `evolve/knobs.py`: the first step of a setting that addresses the targeted pattern's category
    and makes a harness the node has not had as a child yet."""

    def __init__(self, evolution):
        self.evolution = evolution

    def step(self, node: str, pattern: Target):
        """The knob step this move would make from `node` against `pattern`, or None."""
        loop = self.evolution
        parent = loop.harness(node)
        known = loop.known(node)
        for step in knob_steps(parent, pattern.category or "", loop.config.models.solver):
            if parent.apply(knob_edit(parent, step, pattern.category)).hash not in known:
                return step
        return None

    def run(self, i: int, node: str, pattern: Target, rng: random.Random) -> tuple[Verdict | None, str]:
        step = self.step(node, pattern)
        if step is None:
            return None, f"knob: no knob step left against pattern {pattern.id} ({pattern.category})"
        edit = knob_edit(self.evolution.harness(node), step, pattern.category)
        proposal = Proposal(ops=[op.model_dump() for op in edit.ops], rationale=edit.rationale,
                            prediction=f"fewer failures of pattern {pattern.id}", edit=edit, kind="knob")
        return gate_model_free(self.evolution, i, node, pattern, proposal, rng)
