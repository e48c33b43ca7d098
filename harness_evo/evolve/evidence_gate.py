"""The gate of `search.gate = "evidence"`: the evidence engine (`evolve/evidence/`) deciding on a move's candidates.

Per decision:
- the parent's pool is the node's scored train rollouts so far (the loop's state); trial 0 of every task is spent,
  since it is the curriculum's minibatch trial, whose failures chose the patterns and so the gate's tasks: it guides
  the task choice and is never the parent's side of a pair;
- each candidate's scope: `global` for an edit of the settings, a prompt template or the examples (it reaches every
  task), `targeted` otherwise: the tasks a tool it adds or rewrites supplies a missing program for (and their
  categories' other tasks), else the pattern's tasks; a move may set `Candidate.scope` instead. The tasks its examples
  came from are never measured;
- `measure` runs both sides through the scorer, so a key already recorded is not paid again (a resumed run reuses the
  rollouts of a gate a crash interrupted) and every rollout counts against the run's budget; both sides of a key run
  the same trial, so the same seed;
- one candidate is gated, several are raced (alpha split over them, at most one accepted);
- with `evidence.cost_alpha` above 0 the engine reads each side's tokens at a key from the scorer, so a child that
  ties on passes may be accepted as cheaper;
- an accepted edit whose gate rollouts show the agent reading the task less also needs a gain on dev, as in-turn;
- each verdict goes into the ledger with its level, its rollouts and the engine's evidence (keys and why);
- when the run's budget runs out mid-decision, each candidate's evidence so far goes into the ledger too, those the
  engine had not decided on still `proposed` (their gate's stop `interrupted`), and the run stops as it would have.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

from harness_evo.errors import first_line
from harness_evo.evolve.budget import BudgetExhausted
from harness_evo.evolve.conditioning import ConditioningCheck
from harness_evo.evolve.evidence import (
    PARENT,
    Engine,
    GateVerdict,
    Halt,
    Interrupted,
    Key,
    Measure,
    Measurement,
    ParentPool,
    Stop,
)
from harness_evo.evolve.evidence import Candidate as Measured
from harness_evo.evolve.evidence import Decision as Decided
from harness_evo.evolve.evidence.engine import Cost
from harness_evo.evolve.gate import Decision, Turn
from harness_evo.evolve.ledger import GLOBAL_MOVES, Candidate, Ledger
from harness_evo.evolve.plan import same_category
from harness_evo.evolve.scorer import Scorer
from harness_evo.harness import Harness
from harness_evo.standins import supplied_tasks
from harness_evo.store import GateEvidence, Rollout, Verdict
from harness_evo.store.rollout import scored_rewards
from harness_evo.taskset import Task

MINIBATCH_TRIAL = 0
"""The trial the curriculum's minibatch runs on every node (loop step 3)."""

GLOBAL_PATHS = ("harness.toml", "prompts/", "examples/")
"""Paths (or folders) of a harness whose edit reaches every task."""


class EvidenceGate:
    """The evidence engine as the loop's gate; `most` is the largest race the configuration was checked for (a move
    offering more candidates races the first `most`)."""

    def __init__(
        self,
        engine: Engine,
        check: ConditioningCheck,
        scorer: Scorer,
        ledger: Ledger,
        harness: Callable[[str], Harness],
        train: list[Task],
        most: int,
    ):
        self.engine, self.check, self.scorer, self.ledger, self.harness = engine, check, scorer, ledger, harness
        self.train = train
        engine.check(most)
        self.most = most

    def decide(self, turn: Turn, candidates: list[Candidate]) -> Decision:
        candidates = candidates[: self.most]
        if not candidates:
            return Decision()
        parent = self.harness(turn.node)
        by_id = {candidate.edit.id: candidate for candidate in candidates}
        measured = [evidence_scope(parent, candidate, self.train) for candidate in candidates]
        rows: dict[str, list[Rollout]] = defaultdict(list)
        measure = self.measure(turn.node, by_id, rows)
        pool = self.pool(turn.node)
        cost = self.cost(turn.node, by_id) if self.engine.config.cost_alpha > 0 else None
        try:
            if len(measured) == 1:
                decided = self.engine.gate(pool, measured[0], measure, turn.rng, cost)
            else:
                decided = self.engine.race(pool, measured, measure, turn.rng, cost)
        except Interrupted as interrupted:
            for verdict in interrupted.decision.verdicts:
                self.record(turn, by_id[verdict.candidate], verdict, interrupted.decision, rows)
            raise BudgetExhausted(str(interrupted)) from interrupted
        decision = Decision()
        for verdict in sorted(decided.verdicts, key=lambda verdict: not verdict.accepted):
            candidate = by_id[verdict.candidate]
            decision.gated.append((candidate, self.record(turn, candidate, verdict, decided, rows)))
        return decision

    def pool(self, node: str) -> ParentPool:
        """The node's scored train rewards by key, trial 0 of every train task spent."""
        outcomes = self.scorer.outcomes(node, "train")
        spent = {(task.id, MINIBATCH_TRIAL) for task in self.train}
        return ParentPool({key: float(passed) for key, passed in outcomes.items()}, spent)

    def measure(self, node: str, by_id: dict[str, Candidate], rows: dict[str, list[Rollout]]) -> Measure:
        """The engine's `measure`: each side's rewards at the keys, run through the scorer (rows kept per side)."""

        def measure(requests: Mapping[str, list[Key]]) -> Measurement:
            sides = {
                side: (node, None) if side == PARENT else (by_id[side].child.hash, by_id[side].child)
                for side in requests
            }
            try:
                ran, broken = self.scorer.run_each([(*sides[side], sorted(keys)) for side, keys in requests.items()])
            except BudgetExhausted as e:
                raise Halt(str(e)) from e
            got = Measurement()
            for side, side_rows in zip(requests, ran):
                rows[side].extend(side_rows)
                got.rewards[side] = scored_rewards(side_rows)
                if sides[side][0] in broken:
                    got.broken[side] = first_line(broken[sides[side][0]])
            return got

        return measure

    def cost(self, node: str, by_id: dict[str, Candidate]) -> Cost:
        """The engine's `cost`: the tokens of each side's scored train rollout at a key, from the scorer."""

        def cost(side: str, key: Key) -> float | None:
            return self.scorer.costs(node if side == PARENT else by_id[side].child.hash, "train").get(key)

        return cost

    def record(
        self, turn: Turn, candidate: Candidate, verdict: GateVerdict, decided: Decided, rows: dict[str, list[Rollout]]
    ) -> Verdict:
        """The verdict written into the ledger (an accept refused when the agent reads the task less without a dev
        gain), with its evidence."""
        result, drop = verdict.verdict(), None
        if verdict.accepted:
            keys = {(row.task_id, row.trial) for row in rows[verdict.candidate]}
            drop = self.check.compare(self.run(turn.node, keys), rows[verdict.candidate])  # the pool's: free
            if drop is not None and drop.fell:  # the agent reads the task less: is there a gain on dev?
                self.scorer.score_dev(candidate.child.hash)
                result = self.check.judge(result, drop, self.scorer.dev_difference(turn.node, candidate.child.hash))
        mine = set(verdict.tasks)
        evidence = GateEvidence(
            stop=verdict.stop.value,
            e_value=verdict.e_value,
            threshold=verdict.threshold,
            looks=verdict.looks,
            parent_rollouts=decided.spend.parent,
            raced=len(decided.verdicts),
            cheaper=verdict.cheaper,
            dearer=verdict.dearer,
            cost_e_value=verdict.cost_e_value,
            choices=[choice for choice in decided.choices if choice.task in mine],
        )
        self.ledger.gated(
            candidate,
            result,
            verdict.tasks,
            drop,
            alpha=verdict.level,
            rollouts=verdict.rollouts,
            evidence=evidence,
            decided=verdict.stop is not Stop.INTERRUPTED,
        )
        return result

    def run(self, node: str, keys: Iterable[Key]) -> list[Rollout]:
        """A node's rollouts at `keys`, through the scorer (a recorded key is fetched, not paid again)."""
        [rows], _ = self.scorer.run_each([(node, None, sorted(keys))])
        return rows


def reaches_every_task(parent: Harness, child: Harness) -> bool:
    """Whether the child changes the settings, a prompt template (the system prompt among them) or the examples of its
    parent: parts every task reads."""
    return any(path.startswith(GLOBAL_PATHS) for path in child.changed_paths(parent))


def evidence_scope(parent: Harness, candidate: Candidate, train: list[Task]) -> Measured:
    """What the engine measures a candidate of `parent` on (see the module's docstring)."""
    target, child = candidate.target, candidate.child
    exclude = sorted({*candidate.edit.sources, *(target.sources if target else [])})
    everywhere = candidate.edit.move in GLOBAL_MOVES or reaches_every_task(parent, child)
    scope = candidate.scope or ("global" if everywhere else "targeted")
    if scope == "global":
        return Measured(id=candidate.edit.id, scope="global", exclude=exclude)
    supplied = supplied_tasks(parent, child, target.missing_programs) if target else set()
    if supplied:
        related = same_category(supplied, train)
        return Measured(
            id=candidate.edit.id, scope="targeted", targets=sorted(supplied), related=sorted(related), exclude=exclude
        )
    targets = target.task_ids if target else []
    if not targets:  # nothing to aim at: measured as a global edit
        return Measured(id=candidate.edit.id, scope="global", exclude=exclude)
    return Measured(id=candidate.edit.id, scope="targeted", targets=targets, exclude=exclude)
