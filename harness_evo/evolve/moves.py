"""Moves: the ways an iteration makes candidate edits (DESIGN.md, step 5).

A `Move` is given a narrow `Stage` (the critic and the ledger, the harness store, the gate) and never the loop. Each
kind is one class below and one entry of `MOVES`; `search.moves` names the kinds a run may make:
- `ProposerMove`: the proposer model writes edits against the targeted pattern, the stand-in step first (a tool for a
  program the pattern's failures missed, written by the toolsmith); the critic sends rejected edits back;
- `StandInMove`: the stand-in step alone;
- `HarvestMove`: solved episodes become `examples/` (no model);
- `KnobMove`: settings of `harness.toml` one step each (no model): those that address the targeted pattern first, then
  every other setting with a meaningful step;
- `PruneMove`: the harness without one of its parts (no model): a paragraph or sentence of a prompt, a tool, a skill,
  the examples, in an order the run learns (`evolve/prune.py`).

Knob and prune candidates change what every task sees (`ledger.GLOBAL_MOVES`): the evidence gate measures them across
the train split; the in-turn gate, with no pattern of theirs, on the train tasks the node failed plus its regression
sample of tasks the node passed. Both hand up to
`search.candidates` candidates of one parent to the gate at once.

Which of the moves ready for a turn an iteration makes is `evolve/move_policy.py`'s choice.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Protocol

from harness_evo.config import RunConfig
from harness_evo.errors import UserError
from harness_evo.evolve import prune
from harness_evo.evolve.harvest import Episodes, harvest, retrieving_tasks
from harness_evo.evolve.knobs import KnobStep, every_step, knob_edit, knob_steps
from harness_evo.evolve.ledger import paid
from harness_evo.evolve.plan import across_categories
from harness_evo.evolve.proposer import Proposal, Proposer
from harness_evo.evolve.stage import Made, Stage, Turn
from harness_evo.evolve.target import Target
from harness_evo.failures import Evidence
from harness_evo.harness import Edit as HarnessEdit
from harness_evo.harness import Harness
from harness_evo.store import Edit, EditStatus, MoveKind
from harness_evo.taskset import Task


class Move(Protocol):
    """A way to make candidate edits of the turn's node."""

    kind: ClassVar[MoveKind]
    fallback: ClassVar[bool]
    """Made when no move of the run is ready (a harvest may still remove examples that kept failing)."""

    def ready(self, turn: Turn) -> bool:
        """Whether the move has something to do on the turn's node."""
        ...

    def make(self, turn: Turn) -> Made:
        """Candidates that passed the critic (each recorded in the ledger), or why there are none."""
        ...


Drafts = Callable[[list[Edit], list[Edit], int], list[Proposal]]
"""(the ledger's edits against the pattern, the last round's rejected edits, seed) -> proposals."""


def critic_rounds(
    stage: Stage, turn: Turn, drafts: Drafts, revisions: int, seed: int, check: Callable[[], None], nothing: str = ""
) -> Made:
    """Proposals from `drafts` through the critic: the rejected ones go back with their reasons, up to `revisions` more
    rounds, until some pass; `check` stops on a spent budget before each round. `nothing`: why there is no candidate
    when `drafts` proposes nothing."""
    target = turn.target
    feedback: list[Edit] = []
    for revision in range(revisions + 1):
        check()
        round_seed = seed * 10_000 + turn.iteration * 10 + revision
        proposals = drafts(stage.ledger.tried(target.id, before=turn.iteration), feedback, round_seed)
        if not proposals:
            if revision == 0:
                return Made(reason=nothing)
            break
        reviewed = [
            stage.review(turn, proposal, target, round_seed, revision, k) for k, proposal in enumerate(proposals)
        ]
        passed = [candidate for candidate in reviewed if candidate.status is EditStatus.PROPOSED]
        if passed:
            return Made(passed)
        feedback = [candidate.edit for candidate in reviewed]
    return Made(reason=f"no edit against pattern {target.id} passed the critic")


def reviewed_once(stage: Stage, turn: Turn, proposal: Proposal, target: Target, seed: int) -> Made:
    """A model-free move's one proposal through the critic: the candidate, or why it was refused."""
    candidate = stage.review(turn, proposal, target, seed)
    if candidate.status is not EditStatus.PROPOSED:
        return Made(reason=f"{proposal.move} edit {candidate.edit.id} refused: {'; '.join(candidate.edit.reasons)}")
    return Made([candidate])


class ProposerMove:
    """The proposer model's edits against the targeted pattern (the stand-in step first, see `Proposer.propose`)."""

    kind, fallback = "proposer", False

    def __init__(
        self,
        stage: Stage,
        proposer: Proposer,
        evidence: Callable[[str], list[Evidence]],
        revisions: int,
        seed: int,
        check: Callable[[], None],
    ):
        self.stage, self.proposer, self.evidence, self.revisions, self.seed, self.check = (
            stage,
            proposer,
            evidence,
            revisions,
            seed,
            check,
        )

    def ready(self, turn: Turn) -> bool:
        return turn.target is not None

    def make(self, turn: Turn) -> Made:
        parent, evidence = self.stage.parent(turn), self.evidence(turn.target.id)
        return critic_rounds(
            self.stage,
            turn,
            lambda ledger, feedback, seed: self.proposer.propose(turn.target, evidence, parent, ledger, feedback, seed),
            self.revisions,
            self.seed,
            self.check,
        )


class StandInMove:
    """The stand-in step alone: a tool for the program the pattern's failures missed most, when one is due."""

    kind, fallback = "stand-in", False

    def __init__(self, stage: Stage, proposer: Proposer, revisions: int, seed: int, check: Callable[[], None]):
        self.stage, self.proposer, self.revisions, self.seed, self.check = stage, proposer, revisions, seed, check

    def ready(self, turn: Turn) -> bool:
        return turn.target is not None and bool(turn.target.missing_programs)

    def make(self, turn: Turn) -> Made:
        parent = self.stage.parent(turn)
        return critic_rounds(
            self.stage,
            turn,
            lambda ledger, feedback, seed: [
                proposal.model_copy(update={"move": self.kind})
                for proposal in self.proposer.offer(turn.target, parent, ledger, feedback, seed)
            ],
            self.revisions,
            self.seed,
            self.check,
            nothing=f"stand-in: no tool due against pattern {turn.target.id}",
        )


class HarvestMove:
    """Worked examples from the node's solved episodes (`evolve/harvest.py`): one per train task it has not harvested,
    at most half of the train tasks, so that its gate has others to measure; with none to add, the examples that only
    failed rollouts retrieved are removed."""

    kind, fallback = "harvest", True

    def __init__(self, stage: Stage, episodes: Episodes, train: list[Task], max_chars: int, seed: int):
        self.stage, self.episodes, self.train, self.max_chars, self.seed = stage, episodes, train, max_chars, seed

    def taken(self, turn: Turn) -> set[str]:
        """Tasks a harvest of the turn's node in an earlier iteration already took an episode of, whatever that edit's
        fate."""
        return {task for edit in self.stage.edits(turn) if edit.move == "harvest" for task in edit.sources}

    def ready(self, turn: Turn) -> bool:
        """The node has a passed train rollout of a task it has not harvested and holds no example of."""
        have = {example.task for example in self.stage.parent(turn).examples} | self.taken(turn)
        train = {task.id for task in self.train}
        return any(t.passed and t.task_id in train and t.task_id not in have for t in self.episodes.of(turn.node))

    def make(self, turn: Turn) -> Made:
        parent, train = self.stage.parent(turn), {task.id: task for task in self.train}
        half = max(1, len(train) // 2)
        harvested = harvest(
            parent,
            self.episodes.of(turn.node),
            train,
            set(train),
            self.taken(turn),
            limit=lambda tasks: across_categories(tasks, self.train, half, turn.rng),
            max_chars=self.max_chars,
        )
        if harvested is None:
            return Made(
                reason="harvest: no passed train rollout to take an example from and no example that kept failing"
            )
        proposal = Proposal(
            ops=[op.model_dump() for op in harvested.edit.ops],
            rationale=harvested.rationale,
            prediction="tasks like the examples' sources pass more often",
            edit=harvested.edit,
            move=self.kind,
            sources=harvested.sources,
        )
        target = Target(description=harvested.rationale, support=len(harvested.sources), sources=harvested.sources)
        made = reviewed_once(self.stage, turn, proposal, target, self.seed)
        for candidate in made.candidates:  # measured where the retrieved examples change
            candidate.target = target.model_copy(
                update={"task_ids": retrieving_tasks(parent, candidate.child, self.train, harvested.sources)}
            )
        return made


def global_target(description: str, passes: list[tuple[str, bool]]) -> Target:
    """What a candidate that changes every task is measured against: the train tasks the node failed in a scored
    rollout (the gate adds its regression sample of tasks the node passed)."""
    failed = sorted({task for task, passed in passes if not passed})
    return Target(description=description, support=len(failed), task_ids=failed)


def fresh(parent: Harness, edit: HarnessEdit, known: dict[str, str]) -> bool:
    """The edit makes a harness not proposed from `parent` yet, nor in the tree; one that does not load is fresh too
    (the critic says why, in the ledger)."""
    try:
        return parent.apply(edit).hash not in known
    except UserError:
        return True


def reviewed_until(stage: Stage, turn: Turn, offers: list[tuple[Proposal, Target]], n: int, seed: int) -> Made:
    """Model-free proposals through the critic in order, until `n` passed: those candidates, or why there are none."""
    passed, refused = [], []
    for k, (proposal, target) in enumerate(offers):
        candidate = stage.review(turn, proposal, target, seed, k=k)
        if candidate.status is EditStatus.PROPOSED:
            passed.append(candidate)
            if len(passed) == n:
                break
        else:
            refused.append(f"edit {candidate.edit.id} refused: {'; '.join(candidate.edit.reasons)}")
    return Made(passed, reason="; ".join(refused[-2:]))


class KnobMove:
    """Settings one step each (`evolve/knobs.py`), making harnesses the node has not had as children: the steps that
    address the targeted pattern's category first (measured against the pattern), then every other setting with a
    meaningful step (measured as a change to every task), the knobs whose steps the gate accepted more often first;
    up to `search.candidates` a turn."""

    kind, fallback = "knob", False

    def __init__(self, stage: Stage, config: RunConfig, passes: Callable[[str], list[tuple[str, bool]]]):
        self.stage, self.solver, self.seed, self.passes = stage, config.models.solver, config.seed, passes
        self.n = config.search.candidates

    def steps(self, turn: Turn) -> list[tuple[KnobStep, Target | None]]:
        """The knob steps not tried from the turn's node in earlier iterations, each with the pattern it addresses
        (None: every task); an iteration redone after a crash offers the steps it offered before."""
        parent, known = self.stage.parent(turn), self.stage.known(turn.node, before=turn.iteration)
        pattern = turn.target if turn.target and turn.target.id else None
        addressing = knob_steps(parent, pattern.category or "", self.solver) if pattern else []
        earlier = self.stage.ledger.history(before=turn.iteration)
        value = paid(earlier, self.kind, lambda edit: (edit.rationale or "").split(" ")[0])
        others = [step for step in every_step(parent, self.solver, value) if step not in addressing]
        tried = {(edit.rationale or "").split(",")[0] for edit in self.stage.edits(turn) if edit.move == self.kind}
        return [
            (step, target)
            for step, target in [(step, pattern) for step in addressing] + [(step, None) for step in others]
            if step.describe() not in tried
            and fresh(parent, knob_edit(parent, step, target.category if target else None), known)
        ]

    def step(self, turn: Turn) -> KnobStep | None:
        """The first knob step this move would make from the turn's node, or None."""
        return next((step for step, _ in self.steps(turn)), None)

    def ready(self, turn: Turn) -> bool:
        return self.step(turn) is not None

    def make(self, turn: Turn) -> Made:
        parent, offers = self.stage.parent(turn), []
        for step, pattern in self.steps(turn)[: 4 * self.n]:
            edit = knob_edit(parent, step, pattern.category if pattern else None)
            target = pattern or global_target(edit.rationale, self.passes(turn.node))
            prediction = f"fewer failures of pattern {pattern.id}" if pattern else "more train tasks pass"
            proposal = Proposal(
                ops=[op.model_dump() for op in edit.ops],
                rationale=edit.rationale,
                prediction=prediction,
                edit=edit,
                move=self.kind,
            )
            offers.append((proposal, target))
        if not offers:
            return Made(reason="knob: no setting has a step left from this node")
        return reviewed_until(self.stage, turn, offers, self.n, self.seed)


class PruneMove:
    """The node without one of its parts (`evolve/prune.py`), each part once per node, in the order the run learned
    (the groups whose removals the gate accepted first, then the part that leaves the shorter harness); up to
    `search.candidates` a turn, measured as a change to every task."""

    kind, fallback = "prune", False

    def __init__(self, stage: Stage, config: RunConfig, passes: Callable[[str], list[tuple[str, bool]]]):
        self.stage, self.seed, self.passes, self.n = stage, config.seed, passes, config.search.candidates

    def parts(self, turn: Turn) -> list[prune.Part]:
        """The parts of the turn's node not tried from it in earlier iterations, in the order to try them; an
        iteration redone after a crash offers the parts it offered before."""
        parent, known = self.stage.parent(turn), self.stage.known(turn.node, before=turn.iteration)
        tried = {edit.rationale for edit in self.stage.edits(turn) if edit.move == self.kind}
        left = [
            part for part in prune.parts(parent) if part.edit.rationale not in tried and fresh(parent, part.edit, known)
        ]
        return prune.order(parent, left, self.stage.ledger.history(before=turn.iteration))

    def ready(self, turn: Turn) -> bool:
        return bool(self.parts(turn))

    def make(self, turn: Turn) -> Made:
        offers = [
            (
                Proposal(
                    ops=[op.model_dump() for op in part.edit.ops],
                    rationale=part.edit.rationale,
                    prediction="as many train tasks pass, with a shorter prompt",
                    edit=part.edit,
                    move=self.kind,
                ),
                global_target(part.edit.rationale, self.passes(turn.node)),
            )
            for part in self.parts(turn)[: 4 * self.n]
        ]
        if not offers:
            return Made(reason="prune: every part of this node was tried")
        return reviewed_until(self.stage, turn, offers, self.n, self.seed)


@dataclass
class Kit:
    """What the moves of a run are built from."""

    stage: Stage
    config: RunConfig
    proposer: Proposer
    evidence: Callable[[str], list[Evidence]]
    """A pattern's evidence for the proposer (`Patterns.evidence`)."""
    episodes: Episodes
    train: list[Task]
    check: Callable[[], None]
    """Stops on a spent budget (`Budget.check`) before a model is asked."""
    passes: Callable[[str], list[tuple[str, bool]]]
    """A node's scored train rollouts as (task id, passed) (`Scorer.train_passes`)."""


MOVES: dict[MoveKind, Callable[[Kit], Move]] = {
    "proposer": lambda kit: ProposerMove(
        kit.stage, kit.proposer, kit.evidence, kit.config.search.revisions, kit.config.seed, kit.check
    ),
    "stand-in": lambda kit: StandInMove(
        kit.stage, kit.proposer, kit.config.search.revisions, kit.config.seed, kit.check
    ),
    "harvest": lambda kit: HarvestMove(
        kit.stage, kit.episodes, kit.train, kit.config.search.max_harness_chars, kit.config.seed
    ),
    "knob": lambda kit: KnobMove(kit.stage, kit.config, kit.passes),
    "prune": lambda kit: PruneMove(kit.stage, kit.config, kit.passes),
}
"""Move kind -> how to build it."""


def make_moves(kit: Kit) -> dict[MoveKind, Move]:
    """The moves `search.moves` names, in its order."""
    return {kind: MOVES[kind](kit) for kind in kit.config.search.moves}
