"""A simulated train split for the engine's tests and bench/gate_calibration.py: each task's true pass rate for the
parent, an edited child's rates, the outcome of a rollout at a key, and today's gate driven in it.

A rollout's outcome at (task, trial) is a uniform draw below the side's rate. With chance `replay` a side takes the
key's shared draw instead of its own, as an agent whose prompt changed only partly replays the episode its seed gave
another harness: parent and child then often tie. Outcomes are a function of (seed, side, key), so two gates asking
for the same rollout get the same answer.

An effect of +d on a global edit moves every task's rate on the logit scale, by the one shift that raises the mean
rate over the train split by exactly d: tasks near 0 or 1 barely move, tasks near the middle move most. A targeted
edit adds d to each target's rate (capped to [0, 1]): a tool that supplies a missing program can make a task the parent
never passes solvable, which no shift of its logit would.
"""

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scipy.optimize import brentq
from scipy.special import expit, logit

from harness_evo import stats
from harness_evo.config import AcceptanceConfig
from harness_evo.evolve.acceptance import make_rule
from harness_evo.evolve.evidence.engine import PARENT, Measure, Measurement
from harness_evo.evolve.evidence.pool import Key
from harness_evo.evolve.plan import make_planner
from harness_evo.evolve.target import Target
from harness_evo.harness import Harness
from harness_evo.stats import Pair
from harness_evo.store.gate import Verdict

EDGE = 1e-6
"""Rates are kept this far from 0 and 1, where a logit is infinite."""


@dataclass(frozen=True)
class SimTask:
    """A train task as the engine reads it."""

    id: str
    category: str
    difficulty: str = "medium"


@dataclass(frozen=True)
class Effect:
    """What an edit does to the child's true pass rates."""

    delta: float = 0.0
    """The change of the mean pass rate over the tasks it reaches: +0.10 is +10 pp, 0 an inert edit."""
    targets: frozenset[str] | None = None
    """The tasks a targeted edit reaches; None for a global edit."""

    def rates(self, parent: Mapping[str, float]) -> dict[str, float]:
        """The child's rates."""
        if not self.delta:
            return dict(parent)
        if self.targets is not None:
            return {
                task: min(1.0, max(0.0, p + self.delta)) if task in self.targets else p for task, p in parent.items()
            }
        logits = logit([min(1 - EDGE, max(EDGE, p)) for p in parent.values()])
        goal = sum(parent.values()) / len(parent) + self.delta
        if not 0 < goal < 1:
            raise ValueError(f"a mean pass rate of {goal:.2f} is out of reach")
        shift = brentq(lambda s: float(expit(logits + s).mean()) - goal, -50, 50)
        return dict(zip(parent, map(float, expit(logits + shift))))


class World:
    """True pass rates per side and seeded outcomes per key."""

    def __init__(self, rates: Mapping[str, float], seed: int, replay: float = 0.5):
        self.rates = dict(rates)
        self.seed = seed
        self.replay = replay

    def reward(self, side: str, rates: Mapping[str, float], key: Key) -> float:
        task, trial = key
        own = random.Random(f"{self.seed}:{side}:{task}:{trial}")
        draw = random.Random(f"{self.seed}:{task}:{trial}").random() if own.random() < self.replay else own.random()
        return 1.0 if draw < rates[task] else 0.0

    def measure(self, sides: Mapping[str, Mapping[str, float]]) -> Measure:
        """A `measure` callback over named sides' rates (the parent's under `PARENT`)."""

        def measure(requests: Mapping[str, list[Key]]) -> Measurement:
            rewards = {
                side: {key: self.reward(side, sides[side], key) for key in keys} for side, keys in requests.items()
            }
            return Measurement(rewards=rewards)

        return measure


def draw_rates(
    counts: Mapping[str, tuple[int, int]], rng: random.Random, prior: tuple[float, float] | None = None
) -> dict[str, float]:
    """True pass rates of one world: each task's drawn from its Beta posterior, given its (passed, n) and the Beta prior
    of rates over tasks fitted to all counts (`stats.beta_binomial_fit`, unless `prior` is given)."""
    a, b = prior or stats.beta_binomial_fit(list(counts.values()))
    return {task: rng.betavariate(a + passed, b + n - passed) for task, (passed, n) in counts.items()}


def guide_patterns(guide: Mapping[Key, float], tasks: Sequence[SimTask], support: int = 2) -> list[list[str]]:
    """Failure patterns as a run's minibatch finds them: per category, the tasks the parent failed on its guide keys,
    where at least `support` did (else one pattern of every failed task)."""
    failed = {task for (task, _), reward in guide.items() if reward < 1}
    by_category: dict[str, list[str]] = {}
    for task in tasks:
        if task.id in failed:
            by_category.setdefault(task.category, []).append(task.id)
    patterns = [sorted(ids) for _, ids in sorted(by_category.items()) if len(ids) >= support]
    return patterns or ([sorted(failed)] if failed else [])


@dataclass(frozen=True)
class TodayDecision:
    """Today's gate's verdict on one child, and what it cost."""

    verdict: Verdict
    rollouts: int
    """The child's rollouts and the parent's not yet cached."""
    pairs: int


class TodayGate:
    """Today's gate in a world, as `Evolution.try_candidate` drives it: `plan.py`'s planner chooses the tasks and trials
    (reading the parent's and the run's train outcomes, as the loop passes them), `acceptance.py`'s rule decides, with
    a second look when the plan asks for one; the parent's rollouts are cached by key for the run, as the executor
    caches them. The simulated edits supply no program, so `harness` stands for both sides in the plan."""

    def __init__(
        self,
        world: World,
        tasks: Sequence[SimTask],
        guide: Mapping[Key, float],
        harness: Harness,
        config: AcceptanceConfig | None = None,
    ):
        self.world, self.harness = world, harness
        self.config = config or AcceptanceConfig()
        self.plan = make_planner(self.config, list(tasks))
        self.rule = make_rule(self.config)
        self.parent = dict(guide)
        self.run = [(task, reward >= 1) for (task, _), reward in guide.items()]

    def decide(self, side: str, rates: Mapping[str, float], pattern: list[str], rng: random.Random) -> TodayDecision:
        """The verdict on the child `side` (its true `rates`), an edit against `pattern`."""
        target = Target(description="a simulated failure pattern", task_ids=pattern)
        parent_outcomes = [(task, reward >= 1) for (task, _), reward in self.parent.items()]
        gating = self.plan.plan(self.harness, self.harness, target, parent_outcomes, self.run, rng)
        child: dict[Key, float] = {}
        paid = 0

        def reward(rewards: dict[Key, float], name: str, rates: Mapping[str, float], key: Key) -> float:
            nonlocal paid
            if key not in rewards:
                rewards[key] = self.world.reward(name, rates, key)
                self.run.append((key[0], rewards[key] >= 1))
                paid += 1
            return rewards[key]

        def look(trials: list[int]) -> tuple[Verdict, int]:
            pairs = [
                Pair(
                    task_id=task,
                    trial=trial,
                    a=reward(self.parent, PARENT, self.world.rates, (task, trial)),
                    b=reward(child, side, rates, (task, trial)),
                )
                for task in gating.tasks
                for trial in trials
            ]
            return self.rule.decide(pairs, gating.protected), len(pairs)

        verdict, pairs = look(gating.trials)
        if (trials := self.plan.second_look(verdict)) is not None:
            verdict, pairs = look(trials)
        return TodayDecision(verdict, paid, pairs)
