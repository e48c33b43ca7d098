"""Arms, their state, and the bookkeeping every curriculum shares: arms follow the promoted patterns, pulls draw
minibatches and are rewarded with what they taught.

A curriculum is pure: no I/O, no clock, no global random state. Its whole state is `CurriculumState` (a pydantic
model the evolution loop persists as an event), and every random choice takes the `random.Random` it is given, so a
resumed run that restores the state and its generator reaches the same decisions.
"""

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from statistics import fmean
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from harness_evo.config import CurriculumConfig
from harness_evo.store import PatternStatus

EXPLORE = "explore"
"""The id of the arm that draws unseen train tasks."""

Similar = Callable[[str], Iterable[str]]
"""task id -> ids of tasks like it (same category, shared tags); see `similar_by_metadata`."""


class PatternView(BaseModel):
    """What the curriculum needs of a failure pattern; a row of the `patterns` table validates into it."""

    model_config = ConfigDict(extra="ignore")

    id: str
    status: PatternStatus
    tasks: list[str]
    """Distinct train tasks with a member failure."""
    severity: float = Field(ge=0, le=1)
    """How badly the failure hurts the tasks it occurs on."""
    fixability: float = Field(ge=0, le=1)
    """How likely a harness edit can fix it (rather than it being the model's own limit)."""
    breadth: float = Field(ge=0, le=1)
    """How many tasks it reaches, relative to the suite."""
    side_effect_risk: float = Field(ge=0, le=1)
    """How likely an edit against it breaks something else."""

    @property
    def phi(self) -> float:
        """The prior worth of working on this pattern, before any edit against it has been measured."""
        return fmean([self.severity, self.fixability, self.breadth, 1 - self.side_effect_risk])


class Arm(BaseModel):
    """One arm of the curriculum: a promoted pattern, or the explore arm. Its row goes to the `arms` table."""

    id: str
    """The pattern's id, or `explore`."""
    kind: Literal["pattern", "explore"]
    tasks: list[str] = Field(default_factory=list)
    """The pattern's member train tasks (empty for the explore arm)."""
    prior: float
    """phi of the pattern, or the configured prior of the explore arm."""
    active: bool = True
    """False once its pattern is no longer promoted (resolved or retired); kept for its history."""
    pulls: int = 0
    last_pulled: int = -1
    """The draw number of its latest minibatch (-1: never pulled)."""
    progress: float = 0.0
    """Discounted sum of the learning progress observed after its pulls."""
    evidence: float = 0.0
    """Discounted number of those observations."""


class CurriculumState(BaseModel):
    """Everything a curriculum knows; restoring it (with the same random generator) restores its decisions."""

    arms: dict[str, Arm] = Field(default_factory=dict)
    """By id, in order of creation (the explore arm first)."""
    drawn: dict[str, int] = Field(default_factory=dict)
    """Train task id -> the draw number that last put it in a minibatch; a task not here is unseen."""
    draws: int = 0
    """Minibatches drawn so far."""


class Pull(BaseModel):
    """What one evolution iteration's pull of an arm came to: the makings of the curriculum's reward."""

    arm: str
    """The arm pulled."""
    pattern: str | None = None
    """The promoted pattern the iteration proposed edits against (None: there was none)."""
    found: float = Field(0.0, ge=0, le=1)
    """Share of the minibatch's tasks whose failures joined a promoted pattern."""
    accepted: bool = False
    """The last edit gated against `pattern` passed the gate."""
    fixed: int = 0
    """Pairs the last edit's gate found fixed."""
    broken: int = 0
    """Pairs it found broken."""
    ties: int = 0
    """Pairs it found tied."""


def rewards(pull: Pull) -> dict[str, float]:
    """Arm id -> the learning progress `pull` reports for it. The explore arm, when pulled, gets `found` (what exploring
    found to work on). The arm of the pattern worked on (or the pulled pattern arm, when there was no pattern to work
    on) gets the accepted edit's change in pass rate on all the pairs of its gate, the pattern's tasks and the
    regression sample alike: (fixed - broken) / pairs; 0 when no edit was accepted."""
    progress = {EXPLORE: pull.found} if pull.arm == EXPLORE else {}
    worked_on = pull.arm if pull.pattern is None else pull.pattern
    if worked_on != EXPLORE:
        progress[worked_on] = (
            (pull.fixed - pull.broken) / max(1, pull.fixed + pull.broken + pull.ties) if pull.accepted else 0.0
        )
    return progress


class Curriculum(Protocol):
    """Which arm the next evolution iteration works on, and on which train tasks."""

    state: CurriculumState

    def sync_arms(self, patterns: Iterable[PatternView]) -> list[Arm]:
        """Make the arms follow the patterns: a promoted pattern has an active arm, any other pattern's arm is retired.

        Returns the arms that were created, retired, revived or changed, for the caller to record."""
        ...

    def probabilities(self) -> dict[str, float]:
        """Active arm id -> the probability that `choose` picks it now."""
        ...

    def choose(self, rng: random.Random) -> Arm:
        """Pick the arm of the next iteration."""
        ...

    def minibatch(self, arm: Arm, rng: random.Random, size: int | None = None) -> list[str]:
        """Pull `arm`: the train task ids of this iteration (a pattern's members plus similar unseen tasks; unseen ones
        for explore)."""
        ...

    def observe(self, arm_id: str, progress: float) -> None:
        """Record what a pull taught arm `arm_id`, in [-1, 1]."""
        ...

    def reward(self, pull: Pull) -> None:
        """Observe what `pull` taught each arm it reports on (see `rewards`);
        arms the curriculum does not have are skipped."""
        ...


class ArmCurriculum(ABC):
    """Arm and task bookkeeping shared by every strategy; a strategy only says how likely each arm is."""

    def __init__(
        self,
        config: CurriculumConfig,
        train: Sequence[str],
        similar: Similar | None = None,
        state: CurriculumState | None = None,
    ):
        self.config = config
        self.train = sorted(train)
        self._train = set(self.train)
        self.similar = similar or (lambda task_id: ())
        self.state = state or CurriculumState(
            arms={EXPLORE: Arm(id=EXPLORE, kind="explore", prior=config.explore_prior)}
        )

    @property
    def active(self) -> list[Arm]:
        return [arm for arm in self.state.arms.values() if arm.active]

    @abstractmethod
    def probabilities(self) -> dict[str, float]: ...

    def sync_arms(self, patterns: Iterable[PatternView]) -> list[Arm]:
        promoted = {pattern.id: pattern for pattern in patterns if pattern.status is PatternStatus.PROMOTED}
        changed = []
        for arm in self.state.arms.values():
            if arm.kind == "pattern" and arm.active and arm.id not in promoted:
                arm.active = False
                changed.append(arm)
        for pattern in promoted.values():
            tasks = sorted(set(pattern.tasks) & self._train)
            arm = self.state.arms.get(pattern.id)
            if arm is None:
                arm = self.state.arms[pattern.id] = Arm(id=pattern.id, kind="pattern", tasks=tasks, prior=pattern.phi)
            elif (arm.active, arm.tasks, arm.prior) == (True, tasks, pattern.phi):
                continue
            arm.active, arm.tasks, arm.prior = True, tasks, pattern.phi
            changed.append(arm)
        return changed

    def choose(self, rng: random.Random) -> Arm:
        probabilities = self.probabilities()
        arm_id = rng.choices(list(probabilities), weights=list(probabilities.values()))[0]
        return self.state.arms[arm_id]

    def minibatch(self, arm: Arm, rng: random.Random, size: int | None = None) -> list[str]:
        size = size or self.config.minibatch
        if arm.kind == "explore":
            batch = self._unseen_then_oldest(rng)[:size]
        else:
            members = shuffled(arm.tasks, rng)
            near = {similar for task_id in arm.tasks for similar in self.similar(task_id)}
            unseen = shuffled((near & self._train) - set(arm.tasks) - self.state.drawn.keys(), rng)
            n_unseen = min(len(unseen), max(1, size - len(members)))
            batch = members[: size - n_unseen] + unseen[:n_unseen]
        self.state.draws += 1
        for task_id in batch:
            self.state.drawn[task_id] = self.state.draws
        arm = self.state.arms[arm.id]
        arm.pulls += 1
        arm.last_pulled = self.state.draws
        return batch

    def _unseen_then_oldest(self, rng: random.Random) -> list[str]:
        """Unseen train tasks in random order, then the seen ones, those drawn longest ago first."""
        unseen = shuffled(self._train - self.state.drawn.keys(), rng)
        seen = sorted(shuffled(self.state.drawn.keys() & self._train, rng), key=self.state.drawn.__getitem__)
        return unseen + seen

    def observe(self, arm_id: str, progress: float) -> None:
        arm = self.state.arms[arm_id]
        arm.progress = self.config.discount * arm.progress + progress
        arm.evidence = self.config.discount * arm.evidence + 1.0

    def reward(self, pull: Pull) -> None:
        for arm_id, progress in rewards(pull).items():
            if arm_id in self.state.arms:
                self.observe(arm_id, progress)


def shuffled(items: Iterable[str], rng: random.Random) -> list[str]:
    """A random order that depends only on the items and `rng` (sets are sorted first: their order varies by
    process)."""
    ordered = sorted(items)
    rng.shuffle(ordered)
    return ordered
