"""What a candidate may be measured on: its scope (global or targeted) turned into the tasks a gate may pair it on,
each with the reason it is there, and the tasks it must not lose."""

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pydantic import BaseModel, Field, model_validator
from pydantic_core import PydanticCustomError

from harness_evo.config import EvidenceConfig
from harness_evo.evolve.evidence.pool import Passes
from harness_evo.evolve.plan import across_categories


class TrainTask(Protocol):
    """What the engine reads of a train task (`taskset.Task` has both)."""

    @property
    def id(self) -> str: ...

    @property
    def category(self) -> str: ...


class Candidate(BaseModel):
    """An edit of the parent that faces the gate."""

    id: str
    """The side's name in `measure` calls (an edit id, or the child's hash)."""
    scope: Literal["global", "targeted"] = "global"
    """`global`: the edit reaches every task (system prompt, settings, examples), measured across the train split;
    `targeted`: it is for `targets` (a tool that supplies a missing program), measured on them, `related` and a
    protected regression sample."""
    targets: list[str] = Field(default_factory=list)
    """The tasks a targeted edit is for; they are measured even when the parent never passed them."""
    related: list[str] = Field(default_factory=list)
    """Tasks alike the targets (same category, same missing program), measured beside them."""
    exclude: list[str] = Field(default_factory=list)
    """Tasks never measured (those the edit's examples came from, whose answers it shows)."""

    @model_validator(mode="after")
    def targeted_has_targets(self) -> "Candidate":
        if self.scope == "targeted" and not self.targets:
            raise PydanticCustomError(
                "targets",
                "candidate {id}: a targeted edit lists the tasks it is for in targets; "
                "set targets, or scope = 'global' for an edit that reaches every task",
                {"id": self.id},
            )
        return self


@dataclass
class Plan:
    """The tasks a candidate may be paired on, why each is there, how many pairs each may take,
    and the protected ones."""

    tasks: dict[str, str]
    """Task -> why it is in the gate (for the ledger)."""
    cap: dict[str, int]
    """Most pairs per task."""
    protected: set[str] = field(default_factory=set)
    """Tasks the child must not lose (see `acceptance.lost_tasks`);
    each needs `protected_trials` pairs before an accept."""
    optimistic: set[str] = field(default_factory=set)
    """Tasks whose pass rate the edit means to change, so the parent's record says little of their pairs."""


def plan(
    candidate: Candidate,
    train: Sequence[TrainTask],
    guide: dict[str, Passes],
    config: EvidenceConfig,
    rng: random.Random,
) -> Plan:
    """The candidate's plan. A global edit: every train task but the excluded and those the parent failed on every one
    of at least `unsolved_after` guide keys (their pairs only tie unless the edit targets them). A targeted edit: its
    targets and related tasks, and a regression sample of `regression_sample` other tasks the parent passed on at least
    half of its guide keys, across categories, protected."""
    ids = [task.id for task in train if task.id not in set(candidate.exclude)]
    if candidate.scope == "global":
        tasks = {
            task: why_global(guide.get(task, Passes()))
            for task in ids
            if not unsolved(guide.get(task, Passes()), config.unsolved_after)
        }
        return Plan(tasks=tasks, cap=dict.fromkeys(tasks, config.max_trials))
    tasks = {task: "a target of the edit" for task in candidate.targets if task in ids}
    tasks |= {task: "alike a target of the edit" for task in candidate.related if task in ids and task not in tasks}
    passing = sorted(task for task in ids if task not in tasks and passes_half(guide.get(task, Passes())))
    regression = across_categories(passing, list(train), config.regression_sample, rng)
    cap = dict.fromkeys(tasks, config.target_trials) | dict.fromkeys(regression, config.protected_trials)
    tasks |= {
        task: f"regression: the parent passed {guide[task].passed} of {guide[task].n} guide keys" for task in regression
    }
    return Plan(tasks=tasks, cap=cap, protected=set(regression), optimistic={*candidate.targets, *candidate.related})


def why_global(passes: Passes) -> str:
    if not passes.n:
        return "a global edit reaches every task (no guide key)"
    return f"a global edit reaches every task (the parent passed {passes.passed} of {passes.n} guide keys)"


def unsolved(passes: Passes, after: int) -> bool:
    return passes.passed == 0 and passes.n >= after


def passes_half(passes: Passes) -> bool:
    return passes.n > 0 and passes.passed >= passes.n / 2
