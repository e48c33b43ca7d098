"""The gate: the whole decision on the candidates a move made from one parent (DESIGN.md, step 6).

For each candidate the gate asks its plan (`plan.py`) for the (task, trial) keys, runs the child and the parent on them
(rollouts already recorded are not paid again), lets the rule (`acceptance.py`) decide on the pairs, and checks the
input-conditioning of both sides (`conditioning.py`); each verdict goes into the ledger as it is reached. At most one
candidate of a decision is accepted. `Gate` is the protocol; `InTurn` is the gate of `search.gate = "in-turn"`, and
`evidence_gate.EvidenceGate` that of `"evidence"` (the evidence engine).
"""

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from harness_evo.errors import HarnessError
from harness_evo.evolve.acceptance import AcceptanceRule, pair_rollouts
from harness_evo.evolve.conditioning import ConditioningCheck
from harness_evo.evolve.ledger import Candidate, Ledger
from harness_evo.evolve.plan import Plan, Planner
from harness_evo.evolve.scorer import Scorer
from harness_evo.evolve.target import Target
from harness_evo.harness import Harness
from harness_evo.store import Rollout, Verdict


@dataclass(frozen=True)
class Turn:
    """One iteration's expansion of a node: what a move works from, and what the gate decides for."""

    iteration: int
    node: str
    """The node expanded: the parent of every candidate of the turn."""
    target: Target | None
    """The promoted failure pattern the iteration works on (None when there is none yet)."""
    rng: random.Random
    """The iteration's random choices (the same when it is redone after a crash)."""


@dataclass
class Decision:
    """The verdicts of a gate's decision, in the order they were reached (a candidate never gated has none)."""

    gated: list[tuple[Candidate, Verdict]] = field(default_factory=list)
    screened: list[Candidate] = field(default_factory=list)
    """Candidates the screen dropped before the gate (`evolve/screen.py`)."""

    @property
    def accepted(self) -> Candidate | None:
        """The candidate the gate accepted, if any (at most one is)."""
        return next((candidate for candidate, verdict in self.gated if verdict.accepted), None)

    @property
    def last(self) -> Verdict | None:
        """The verdict the iteration tells of: the accepted one, else the last reached."""
        accepted = [verdict for _, verdict in self.gated if verdict.accepted]
        return (accepted or [verdict for _, verdict in self.gated] or [None])[-1]

    def told(self) -> str:
        """The decision in a line for the user ("" when there was none)."""
        if not self.gated:
            return "; ".join(f"edit {c.edit.id} {c.edit.reasons[-1]}" for c in self.screened)
        candidate, verdict = next(((c, v) for c, v in self.gated if v.accepted), self.gated[-1])
        return (
            f"edit {candidate.edit.id} {'accepted' if verdict.accepted else 'rejected by the gate'}: {verdict.reason}"
        )


class Gate(Protocol):
    """Decides on the candidates a move made from the turn's node; records each verdict in the ledger as it is reached
    and accepts at most one candidate. How many it gates, in which order, on which keys and with how many rollouts is
    the gate's business."""

    def decide(self, turn: Turn, candidates: list[Candidate]) -> Decision: ...


class InTurn:
    """Each candidate in turn against the parent, on the keys the plan chooses (and a second look when the plan says
    so), until one is accepted; an accepted edit whose gate rollouts show the agent reading the task less also needs a
    gain on dev (the child is scored on dev for it)."""

    def __init__(
        self,
        plan: Planner,
        rule: AcceptanceRule,
        check: ConditioningCheck,
        scorer: Scorer,
        ledger: Ledger,
        harness: Callable[[str], Harness],
        alpha: float,
    ):
        self.plan, self.rule, self.check, self.scorer, self.ledger, self.harness = (
            plan,
            rule,
            check,
            scorer,
            ledger,
            harness,
        )
        self.alpha = alpha
        """The rule's level: the chance a gate accepts an edit that changes nothing (`acceptance.alpha`)."""

    def decide(self, turn: Turn, candidates: list[Candidate]) -> Decision:
        decision = Decision()
        for candidate in candidates:
            decision.gated.append((candidate, self.judge(turn, candidate)))
            if decision.gated[-1][1].accepted:
                break
        return decision

    def judge(self, turn: Turn, candidate: Candidate) -> Verdict:
        """One candidate's verdict, recorded in the ledger."""
        child = candidate.child
        plan = self.plan.plan(
            self.harness(turn.node),
            child,
            candidate.target,
            self.scorer.train_passes([turn.node]),
            self.scorer.train_passes(),
            turn.rng,
        )
        verdict, sides = self.look(turn.node, child, plan, plan.trials)
        if (trials := self.plan.second_look(verdict)) is not None:
            verdict, sides = self.look(turn.node, child, plan, trials)
        drop = self.check.compare(*sides)
        if (
            verdict.accepted and drop is not None and drop.fell
        ):  # the agent reads the task less: is there a gain on dev?
            self.scorer.score_dev(child.hash)
            verdict = self.check.judge(verdict, drop, self.scorer.dev_difference(turn.node, child.hash))
        rollouts = 2 * (verdict.fixed + verdict.broken + verdict.ties)
        self.ledger.gated(candidate, verdict, plan.tasks, drop, alpha=self.alpha, rollouts=rollouts)
        return verdict

    def look(
        self, node: str, child: Harness, plan: Plan, trials: list[int]
    ) -> tuple[Verdict, tuple[list[Rollout], list[Rollout]]]:
        """The rule's verdict on child and parent rollouts over the plan's tasks x `trials`, and those rollouts."""
        parent_rows = self.scorer.run(node, plan.tasks, trials)
        try:
            child_rows = self.scorer.run(child.hash, plan.tasks, trials, harness=child)
        except HarnessError as e:
            return Verdict(
                accepted=False, fixed=0, broken=0, ties=0, reason=f"the edited harness fails at run time: {e}"
            ), (parent_rows, [])
        return self.rule.decide(pair_rollouts(parent_rows, child_rows), protected=plan.protected), (
            parent_rows,
            child_rows,
        )
