"""Where a gate spends its next pairs: on tasks whose pairs can differ.

A pair tells only when it differs, and a pair of a task differs at most as often as 2 p (1 - p), where p is the task's
pass rate: tasks near 0 or 1 tie nearly always, tasks near the middle differ most. A task's pass rate is estimated
from what the gate may read (its guide keys and both sides of the pairs it already made, never a sealed key: see
pool.py) as a Beta posterior, shrunk toward the rate of everything seen; the choice takes the tasks with the largest
expected p (1 - p) under it. That is large for a rate near the middle and for an uncertain one (its posterior spreads
over the middle), and falls for a task that keeps tying. The targets of a targeted edit start from an uninformed prior:
the parent's record says little of a task the edit means to change.
"""

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Protocol

from harness_evo.evolve.evidence.pool import Passes
from harness_evo.evolve.evidence.scope import Plan

PROTECTED_SHARE = 0.25
"""Share of a look's keys kept for protected tasks that still lack their pairs."""


class TaskChoice(Protocol):
    """Chooses the tasks of a gate's next look."""

    def choose(
        self, plans: Sequence[Plan], seen: Mapping[str, Passes], taken: Counter[str], n: int, rng: random.Random
    ) -> list[tuple[str, str]]:
        """Up to `n` distinct tasks of the `plans` (each below its cap in `taken`, the pairs the gate took of it), each
        with why it was chosen; `seen` holds every outcome the gate may read per task (guide keys, and both sides of
        its pairs)."""
        ...


class Informative:
    """The tasks whose next pair is likeliest to differ, with protected tasks kept a share of each look until each has
    its pairs; ties are broken at random."""

    def __init__(self, prior_strength: float = 2.0):
        self.prior_strength = prior_strength

    def choose(
        self, plans: Sequence[Plan], seen: Mapping[str, Passes], taken: Counter[str], n: int, rng: random.Random
    ) -> list[tuple[str, str]]:
        cap: dict[str, int] = {}
        for plan in plans:
            for task, most in plan.cap.items():
                cap[task] = max(cap.get(task, 0), most)
        open_tasks = sorted(task for task, most in cap.items() if taken[task] < most)
        protected = {task for plan in plans for task in plan.protected}
        optimistic = {task for plan in plans for task in plan.optimistic}
        a0, b0 = self.prior(seen)
        differ = {
            task: self.differ(*((0.5, 0.5) if task in optimistic else (a0, b0)), seen.get(task, Passes()))
            for task in open_tasks
        }
        order = {task: (-share, rng.random()) for task, share in differ.items()}
        lacking = sorted(
            (task for task in open_tasks if task in protected), key=lambda task: (taken[task], order[task])
        )
        first = lacking[: max(1, math.ceil(n * PROTECTED_SHARE))]
        rest = sorted((task for task in open_tasks if task not in first), key=order.__getitem__)
        reasons = {task: why for plan in reversed(plans) for task, why in plan.tasks.items()}
        return [
            (task, self.reason(reasons[task], seen.get(task, Passes()), differ[task], task in first))
            for task in (first + rest)[:n]
        ]

    @staticmethod
    def differ(a: float, b: float, passes: Passes) -> float:
        """The expected 2 p (1 - p) of a rate with prior Beta(a, b) after `passes`:
        how often a pair of the task may differ."""
        a, b = a + passes.passed, b + passes.failed
        return 2 * a * b / ((a + b) * (a + b + 1))

    def prior(self, seen: Mapping[str, Passes]) -> tuple[float, float]:
        """Beta(a, b) of a task's pass rate before its own outcomes: the rate of everything seen,
        `prior_strength` strong."""
        passed = sum(passes.passed for passes in seen.values())
        n = sum(passes.n for passes in seen.values())
        mean = (passed + 0.5) / (n + 1)
        return self.prior_strength * mean, self.prior_strength * (1 - mean)

    def reason(self, why: str, passes: Passes, differ: float, protected: bool) -> str:
        seen = f"{passes.passed} passes in {passes.n} outcomes so far" if passes.n else "no outcome so far"
        return (
            f"{why}; "
            f"{'protected, still lacking its pairs' if protected else f'a pair may differ {differ:.0%} of the time'} "
            f"({seen})"
        )
