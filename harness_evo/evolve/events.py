"""Typed progress events of an evolution run; the CLI renders them, tests collect them.

A callback is any function taking one event. The loop never prints.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from harness_evo.evolve.budget import Estimate
from harness_evo.store import Edit, Node, Rollout
from harness_evo.store.info import EvolutionSummary


@dataclass(frozen=True)
class RunStarted:
    run_id: str
    estimate: Estimate
    """Of what is left, when the run had already done some work (`estimate.more`): it is resuming."""


@dataclass(frozen=True)
class IterationStarted:
    iteration: int
    arm: str
    node_id: str
    tasks: list[str]


@dataclass(frozen=True)
class RolloutProgress:
    kind: str
    """started, finished or cached."""
    row: Rollout


@dataclass(frozen=True)
class EditJudged:
    """An edit reached a verdict (or, still `proposed`, passed the critic)."""

    edit: Edit


@dataclass(frozen=True)
class NodeScored:
    node: Node
    best_id: str


@dataclass(frozen=True)
class IterationFinished:
    iteration: int
    outcome: str
    spend: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class RunFinished:
    summary: EvolutionSummary


Event = RunStarted | IterationStarted | RolloutProgress | EditJudged | NodeScored | IterationFinished | RunFinished
Callback = Callable[[Event], None]
