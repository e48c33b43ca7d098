"""The gate's plan: the (task, trial) keys a child and its parent are paired on, and when a verdict earns a second look.
The rule (`acceptance.py`) decides on the pairs; the gate (`gate.py`) runs both and records the verdict."""

import random
from collections import Counter
from collections.abc import Callable, Collection
from typing import Protocol

from pydantic import BaseModel

from harness_evo.config import AcceptanceConfig
from harness_evo.evolve.acceptance import Verdict
from harness_evo.evolve.target import Target
from harness_evo.harness import Harness
from harness_evo.standins import supplied_tasks
from harness_evo.taskset import Task

DIFFICULTY_RANK = {"easy": 0, "medium": 1, "hard": 2}
"""Gate order of a task's difficulty; one without a known difficulty counts as medium."""

TaskPass = tuple[str, bool]
"""(task id, passed) of one scored train rollout."""


class Plan(BaseModel):
    """The tasks and trials of a child's first look at the gate."""

    tasks: list[str]
    """Every task gated on: the pattern's sample, then the regression sample."""
    protected: list[str]
    """The regression sample: tasks the parent passes, which the child must not lose."""
    trials: list[int]
    """The first look's trial numbers."""


class Planner(Protocol):
    """Which (task, trial) keys a child and its parent are paired on."""

    def plan(
        self,
        parent: Harness,
        child: Harness,
        pattern: Target,
        parent_passes: list[TaskPass],
        run_passes: list[TaskPass],
        rng: random.Random,
    ) -> Plan:
        """The first look at `child`, an edit of `parent` against `pattern`, from the scored train rollouts of the
        parent and of the whole run; random choices take the iteration's `rng`."""
        ...

    def second_look(self, verdict: Verdict) -> list[int] | None:
        """The trials of a second look on the same tasks after the first look's `verdict`, or None when it stands."""
        ...


class PatternAndRegression:
    """The pattern's tasks plus a regression sample of tasks the parent passes, on trials 1 to `trials` (trial 0 chose
    the tasks: see acceptance.py); an undecided verdict is looked at again with `extra_trials` more."""

    def __init__(self, config: AcceptanceConfig, train: list[Task]):
        self.config = config
        self.train = train

    def plan(
        self,
        parent: Harness,
        child: Harness,
        pattern: Target,
        parent_passes: list[TaskPass],
        run_passes: list[TaskPass],
        rng: random.Random,
    ) -> Plan:
        sources = set(pattern.sources)  # an example's own task would see its answer
        targeted, related = (tasks - sources for tasks in self.supplied_tasks(parent, child, pattern))
        regression = self.regression_sample(parent_passes, pattern, rng, exclude=targeted | related | sources)
        train = [task for task in self.train if task.id not in sources]
        sample = pattern_sample(
            pattern, train, self.config.pattern_tasks, rng, self.unsolved_tasks(run_passes), targeted, related
        )
        return Plan(tasks=sample + regression, protected=regression, trials=list(range(1, 1 + self.config.trials)))

    def second_look(self, verdict: Verdict) -> list[int] | None:
        if not (verdict.undecided and self.config.extra_trials):
            return None
        return list(range(1, 1 + self.config.trials + self.config.extra_trials))

    def regression_sample(
        self, parent_passes: list[TaskPass], pattern: Target, rng: random.Random, exclude: Collection[str] = ()
    ) -> list[str]:
        """Up to `regression_sample` tasks the parent passed, none of the pattern's or `exclude`, across categories."""
        passed = {task for task, ok in parent_passes if ok}
        candidates = sorted(passed - set(pattern.task_ids) - set(exclude))
        return across_categories(candidates, self.train, self.config.regression_sample, rng)

    def supplied_tasks(self, parent: Harness, child: Harness, pattern: Target) -> tuple[set[str], set[str]]:
        """The tasks a tool the child adds or rewrites is for (see `standins.supplied_tasks`), and the other train tasks
        of their categories, which call for the same programs (a `sqlite3` tool is for every sqlite task, not only the
        one whose minibatch rollout happened to miss it)."""
        targeted = supplied_tasks(parent, child, pattern.missing_programs)
        return targeted, same_category(targeted, self.train)

    def unsolved_tasks(self, run_passes: list[TaskPass]) -> set[str]:
        """Train tasks that failed in at least `unsolved_after` of the run's scored rollouts and never passed."""
        failures = Counter(task for task, passed in run_passes if not passed)
        solved = {task for task, passed in run_passes if passed}
        return {task for task, n in failures.items() if n >= self.config.unsolved_after} - solved


PLANNERS: dict[str, Callable[[AcceptanceConfig, list[Task]], Planner]] = {
    "pattern-and-regression": PatternAndRegression
}
"""Planners by name -> how to build one."""


def make_planner(config: AcceptanceConfig, train: list[Task], name: str = "pattern-and-regression") -> Planner:
    """The planner `name` over these train tasks."""
    return PLANNERS[name](config, train)


def pattern_sample(
    pattern: Target,
    train: list[Task],
    n: int,
    rng: random.Random,
    unsolved: Collection[str] = frozenset(),
    targeted: Collection[str] = frozenset(),
    related: Collection[str] = frozenset(),
) -> list[str]:
    """The pattern's train tasks a child is gated on: all of them, or the `n` easiest, drawn with the iteration's
    `rng` within a difficulty. A gate learns only from pairs that differ, and a task the solver fails on either side
    is a tie whatever the edit does: `unsolved` tasks are left out, but for the easiest one when no other is left.
    Leaving out tasks the parent always failed drops only pairs the child could have won, so the gate stays sound.
    `targeted` tasks are the ones the edit is for (it supplies the program they missed): they come first and are
    never left out, since the edit is what could make them solvable; `related` tasks (alike the targeted ones, though
    not the pattern's) come next. Choosing them by the edit, not by any outcome of the trials compared, keeps the gate
    sound too."""
    members = {*pattern.task_ids, *targeted, *related}
    failing = sorted((task for task in train if task.id in members), key=lambda task: task.id)
    rng.shuffle(failing)
    failing.sort(
        key=lambda task: (task.id not in targeted, task.id not in related, DIFFICULTY_RANK.get(task.difficulty, 1))
    )  # stable: the draw decides within a difficulty
    solvable = [task for task in failing if task.id in targeted or task.id in related or task.id not in unsolved]
    return sorted(task.id for task in solvable[:n] or failing[:1])


def same_category(task_ids: Collection[str], tasks: list[Task]) -> set[str]:
    """The other `tasks` of the categories of `task_ids`."""
    categories = {task.category for task in tasks if task.id in task_ids}
    return {task.id for task in tasks if task.category in categories} - set(task_ids)


def across_categories(task_ids: list[str], tasks: list[Task], n: int, rng: random.Random) -> list[str]:
    """`n` of `task_ids` at random, from as many categories as they span: an edit reaches every task, not only the
    categories a random draw happens to hit."""
    category = {task.id: task.category for task in tasks}
    by_category: dict[str, list[str]] = {}
    for task_id in task_ids:
        by_category.setdefault(category.get(task_id, ""), []).append(task_id)
    groups = [rng.sample(ids, len(ids)) for _, ids in sorted(by_category.items())]
    rng.shuffle(groups)
    spread = [ids[k] for k in range(max(map(len, groups), default=0)) for ids in groups if k < len(ids)]
    return sorted(spread[:n])
