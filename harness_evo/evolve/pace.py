"""How fast evolution runs go on this machine: wall seconds per rollout of the whole loop (rollouts, analysis,
proposals, reviews), by solver model and rollout workers.

Each run session that paid for enough rollouts adds its measurement to `pace.json` in the user cache folder (with the
response cache); the pre-flight estimate of the next run reads the median of the recent ones. Before any run here it
uses DEFAULT_SECONDS.
"""

import fcntl
import json
import os
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, Field, ValidationError

from harness_evo.agent.executor import rollout_workers
from harness_evo.config import RunConfig
from harness_evo.llm.cache import cache_home

DEFAULT_SECONDS = 20.0
"""Wall seconds per rollout until this machine has measured its own: what fresh 2-core machines took with the embedded
1.5B solver on llama-server (3 workers) and nothing in the response cache. The Intel Xeon: 17.7 s (the 60-minute
evolve, 203 rollouts) and 19 s (the 15-minute main command, 47 rollouts); the AMD EPYC: 28 s (the main command, 32
rollouts) and 58 s (2 hours, 127 rollouts); all in docs/experiments.md."""
SPREAD = (18, 58)
"""The fewest and most seconds a rollout took on those machines, said beside the default."""
KEPT = 5
"""Recent sessions kept per solver and workers: the pace is the median of theirs."""
MAX_AGE_S = 30 * 24 * 3600.0
"""A session older than this says little about the machine now and is left out."""
MIN_ROLLOUTS = 4
"""A session that paid for fewer fresh rollouts says too little about the pace to be kept."""
MAX_REPLAYED = 0.5
"""A session that answered more than this share of its model calls from the response cache (a run started again on
the same keys replays its first rollouts) measured the cache more than the machine, and is not kept; one that replayed
less counts only its fresh rollouts."""
FILE = "pace.json"


class Measured(BaseModel):
    """One run session: the rollouts it paid for in its wall time, and the share of its model calls the response cache
    answered."""

    run: str
    rollouts: int
    seconds: float
    at: float = Field(default_factory=time.time)
    replayed: float = 0.0

    @property
    def fresh(self) -> float:
        """Its rollouts less the share answered from the response cache, which took next to no model time."""
        return self.rollouts * (1 - self.replayed)

    @property
    def seconds_per_rollout(self) -> float:
        return self.seconds / self.fresh


class Pace(BaseModel):
    """The wall seconds one rollout takes, and what that stands on."""

    seconds_per_rollout: float = DEFAULT_SECONDS
    rollouts: int = 0
    """The fresh rollouts it was measured over; 0 for the default."""
    runs: int = 0
    """The run sessions they came from."""

    def basis(self) -> str:
        if not self.rollouts:
            return (
                f"a default until a run here measures it (fresh 2-core machines took {SPREAD[0]} to {SPREAD[1]} s a "
                "rollout)"
            )
        if self.runs == 1:
            return f"measured here over {self.rollouts} rollouts of 1 earlier run"
        return f"the median of {self.runs} earlier runs here, over {self.rollouts} rollouts"


def key(config: RunConfig) -> str:
    """What a pace is measured for: the solver model and the rollouts run at once."""
    return f"{config.models.solver.model} x{rollout_workers(config)}"


def load(path: Path) -> dict[str, list[Measured]]:
    """The measurements of `path` by key; an unreadable file is as good as none (it is only a cache)."""
    try:
        data = json.loads(path.read_text())
        return {name: [Measured.model_validate(row) for row in rows] for name, rows in data.items()}
    except (OSError, ValueError, AttributeError, ValidationError):
        return {}


def pace(config: RunConfig, now: float | None = None) -> Pace:
    """The pace of runs like `config` on this machine: the median over its last KEPT sessions of the last MAX_AGE_S (one
    run slowed down by another job beside it moves it little), or the default."""
    now = time.time() if now is None else now
    sessions = [row for row in load(cache_home() / FILE).get(key(config), []) if now - row.at <= MAX_AGE_S][-KEPT:]
    if not sessions:
        return Pace()
    return Pace(
        seconds_per_rollout=round(statistics.median(row.seconds_per_rollout for row in sessions), 2),
        rollouts=round(sum(row.fresh for row in sessions)),
        runs=len(sessions),
    )


def replayed(before: tuple[int, int], after: tuple[int, int]) -> float:
    """The share of a session's model calls answered from the response cache, from the (calls, cache hits) counts at
    its start and end."""
    calls = after[0] - before[0]
    return (after[1] - before[1]) / calls if calls else 0.0


def record(config: RunConfig, run: str, rollouts: int, seconds: float, replayed_share: float = 0.0) -> None:
    """Keep a session's pace for the next estimates; not when it paid for too few fresh rollouts, or answered more than
    MAX_REPLAYED (`replayed_share`) of its model calls from the response cache. Sessions of several processes ending at
    once take turns (a lock beside the file), and the file is replaced whole, so a reader never sees half of it."""
    measured = Measured(run=run, rollouts=rollouts, seconds=round(seconds, 1), replayed=round(replayed_share, 3))
    if measured.fresh < MIN_ROLLOUTS or seconds <= 0 or replayed_share > MAX_REPLAYED:
        return
    path = cache_home() / FILE
    with path.with_name(f"{FILE}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        sessions = load(path)
        sessions[key(config)] = [*sessions.get(key(config), []), measured][-KEPT:]
        partial = path.with_name(f"{FILE}.{os.getpid()}")
        partial.write_text(
            json.dumps({name: [row.model_dump() for row in rows] for name, rows in sessions.items()}, indent=1)
        )
        partial.replace(path)


class Counts(Protocol):
    """What a session's pace is measured from (a `Budget`)."""

    @property
    def session_s(self) -> float: ...

    def rollouts(self) -> int: ...

    def model_calls(self) -> tuple[int, int]: ...


@contextmanager
def measured(config: RunConfig, run: str, budget: Counts) -> Iterator[None]:
    """Record the pace of the session the block runs (see `record`): the rollouts it paid for in its wall time, unless
    it mostly replayed model calls from the response cache."""
    rollouts, calls = budget.rollouts(), budget.model_calls()
    try:
        yield
    finally:
        record(
            config,
            run,
            budget.rollouts() - rollouts,
            budget.session_s,
            replayed_share=replayed(calls, budget.model_calls()),
        )
