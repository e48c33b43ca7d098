"""The acceptance rule: accept a child harness over its parent from their rewards on identical (task, trial) keys (the
rule is the gate's test; the gate, gate.py, also chooses the keys and runs both sides).

Both sides ran the same tasks with the same trial seeds, so each key is a pair. A pair is *fixed* when the child
scored higher, *broken* when it scored lower, a *tie* otherwise; ties say nothing about which harness is better.

A gate may look twice: when the first look leaves the child ahead but undecided, both sides run more trials of the
same tasks and the rule decides on all pairs. Each look then tests at half the alpha (Bonferroni), so the chance of
accepting an edit that does nothing stays within alpha over both looks.

Pair on trials that did not choose the tasks: a pattern's tasks were chosen because the parent failed them and a
regression sample because it passed them, so reusing those very rollouts as the parent's side counts regression to
the mean as fixes (or breaks). `bench/curriculum_sim.py` shows the effect; run both sides on fresh trial keys.
"""

import math
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from typing import Protocol

from pydantic import BaseModel
from scipy.stats import binomtest

from harness_evo.config import AcceptanceConfig
from harness_evo.stats import Pair
from harness_evo.store import Rollout
from harness_evo.store.gate import Verdict
from harness_evo.store.rollout import scored_rewards


class AcceptanceRule(Protocol):
    """Decides whether a child harness replaces its parent."""

    def decide(self, pairs: list[Pair], protected: Collection[str] = ()) -> Verdict:
        """Judge the paired results; `protected` names tasks the child must not lose."""
        ...


def pair_rollouts(parent: Iterable[Rollout], child: Iterable[Rollout]) -> list[Pair]:
    """Pairs (`a` the parent, `b` the child) from two sides' rollouts on the keys both have; only scored rollouts
    (`Rollout.scored`) are paired."""
    parents, children = scored_rewards(parent), scored_rewards(child)
    return [
        Pair(task_id, trial, parents[task_id, trial], children[task_id, trial])
        for task_id, trial in sorted(parents.keys() & children.keys())
    ]


class Tally(BaseModel):
    """Fixed, broken and tied pairs."""

    fixed: int
    broken: int
    ties: int

    @classmethod
    def of(cls, pairs: list[Pair]) -> "Tally":
        fixed = sum(pair.b > pair.a for pair in pairs)
        broken = sum(pair.b < pair.a for pair in pairs)
        return cls(fixed=fixed, broken=broken, ties=len(pairs) - fixed - broken)

    def verdict(self, accepted: bool, reason: str, p_value: float | None = None, undecided: bool = False) -> Verdict:
        return Verdict(accepted=accepted, p_value=p_value, reason=reason, undecided=undecided, **self.model_dump())

    def __str__(self) -> str:
        return f"{self.fixed} fixed vs {self.broken} broken ({self.ties} ties)"


class SignTest:
    """Accept only when a one-sided sign test on fixed vs broken pairs rejects "no improvement" at `alpha` and no
    protected task was lost. A protected task is lost when the parent passed it on at least half of its trials and the
    child on none: one flaky trial is noise, losing the task is a regression. With `looks` > 1 each look tests at
    alpha / looks."""

    def __init__(self, alpha: float, looks: int = 1, second_look_p: float = 1.0):
        self.alpha = alpha / looks
        self.second_look_p = second_look_p
        self.min_discordant = math.ceil(math.log(self.alpha, 0.5) - 1e-9)
        """Fewest differing pairs with which even an all-fixed result can reach `alpha`."""

    def decide(self, pairs: list[Pair], protected: Collection[str] = ()) -> Verdict:
        tally = Tally.of(pairs)
        discordant = tally.fixed + tally.broken
        p_value = binomtest(tally.fixed, discordant, 0.5, alternative="greater").pvalue if discordant else None
        lost = lost_tasks(pairs, protected)
        if lost:
            return tally.verdict(
                False,
                f"the child lost protected task{'s' * (len(lost) > 1)} {', '.join(lost)} "
                "(the parent passed it on at least half of its trials, the child on none)",
                p_value,
            )
        if not pairs:
            return tally.verdict(False, "no paired results: the child and the parent share no scored (task, trial) key")
        if not discordant:
            return tally.verdict(False, f"all {tally.ties} pairs tie: the child does no better than its parent here")
        if tally.fixed <= tally.broken:
            return tally.verdict(False, f"the child broke as many pairs as it fixed, or more: {tally}", p_value)
        promising = p_value <= self.second_look_p
        if discordant < self.min_discordant:
            return tally.verdict(
                False,
                f"too few pairs differ to tell: {tally}; the sign test at alpha {self.alpha:g} "
                f"needs at least {self.min_discordant}",
                p_value,
                undecided=promising,
            )
        if p_value > self.alpha:
            return tally.verdict(
                False,
                f"not significant: {tally}, p = {p_value:.3f} > alpha {self.alpha:g}",
                p_value,
                undecided=promising,
            )
        return tally.verdict(True, f"{tally}, p = {p_value:.3f} <= alpha {self.alpha:g}", p_value)


class StrictSum:
    """GEPA's rule: accept when the child's total reward on the pairs is strictly greater than the parent's.
    It knows no protected tasks and no noise: a lucky trial is an improvement."""

    def decide(self, pairs: list[Pair], protected: Collection[str] = ()) -> Verdict:
        tally = Tally.of(pairs)
        parent, child = sum(pair.a for pair in pairs), sum(pair.b for pair in pairs)
        relation = ">" if child > parent else "<="
        return tally.verdict(
            child > parent, f"child total {child:g} {relation} parent total {parent:g} over {len(pairs)} pairs: {tally}"
        )


class AcceptAll:
    """Random search's rule: every edit that reaches the gate is accepted, whatever its pairs show."""

    def decide(self, pairs: list[Pair], protected: Collection[str] = ()) -> Verdict:
        return Tally.of(pairs).verdict(True, f"accepted without a test (acceptance rule none): {Tally.of(pairs)}")


def lost_tasks(pairs: list[Pair], protected: Collection[str]) -> list[str]:
    """Protected tasks the parent passed on at least half of their trials and the child on none. A task the parent
    passed once in three trials is failed in all three by an unchanged harness about a third of the time
    ((2/3)^3): losing it says nothing, and with a few such tasks it would veto nearly every edit."""
    parent, child = defaultdict(list), defaultdict(float)
    for pair in pairs:
        if pair.task_id in protected:
            parent[pair.task_id].append(pair.a)
            child[pair.task_id] = max(child[pair.task_id], pair.b)
    return sorted(
        task_id for task_id, rewards in parent.items() if sum(rewards) >= len(rewards) / 2 and child[task_id] == 0
    )


RULES: dict[str, Callable[[AcceptanceConfig], AcceptanceRule]] = {
    "sign-test": lambda config: SignTest(
        config.alpha, looks=2 if config.extra_trials else 1, second_look_p=config.second_look_p
    ),
    "strict-sum": lambda config: StrictSum(),
    "none": lambda config: AcceptAll(),
}
"""`AcceptanceConfig.rule` -> how to build it."""


def make_rule(config: AcceptanceConfig) -> AcceptanceRule:
    """The configured acceptance rule."""
    return RULES[config.rule](config)
