"""Score a harness on a split of a suite: the library behind `harness-evo eval`."""

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

from harness_evo import stats
from harness_evo.agent.executor import ProgressCallback
from harness_evo.agent.reuse import reuse
from harness_evo.agent.session import RunSession, open_run
from harness_evo.config import RunConfig
from harness_evo.harness import Harness
from harness_evo.store import Rollout, RunStatus, RunStore
from harness_evo.store.info import EvalSummary
from harness_evo.taskset import load_suite, suite_digest


@dataclass
class TaskScore:
    """One task's rollouts, summed up."""

    task_id: str
    split: str
    rollouts: int = 0
    scored: int = 0
    passed: int = 0
    reward: float = 0.0
    exit_reasons: Counter = field(default_factory=Counter)
    tokens: int = 0
    wall_s: float = 0.0


@dataclass
class EvalResult:
    run: RunStore
    harness: Harness
    tasks: list[TaskScore]
    skipped: dict[str, str] = field(default_factory=dict)
    """Task folders of the suite that could not be loaded, and why."""
    reused: int = 0
    """Rollouts copied from earlier runs (`agent/reuse.py`), not paid again."""

    @property
    def scored(self) -> int:
        return sum(task.scored for task in self.tasks)

    @property
    def infra_failures(self) -> int:
        return sum(task.rollouts - task.scored for task in self.tasks)

    @property
    def rate(self) -> stats.Rate:
        """Scored rollouts (infrastructure failures left out) that passed, with the 95% interval."""
        return stats.rate(sum(task.passed for task in self.tasks), self.scored)

    @property
    def pass_at_1(self) -> float | None:
        """Share of scored rollouts (infrastructure failures left out) that passed."""
        return self.rate.value

    @property
    def mean_reward(self) -> float | None:
        return sum(task.reward for task in self.tasks) / self.scored if self.scored else None


def score_rollouts(rows: list[Rollout]) -> list[TaskScore]:
    scores: dict[str, TaskScore] = {}
    for row in rows:
        score = scores.setdefault(row.task_id, TaskScore(row.task_id, row.split))
        score.rollouts += 1
        score.exit_reasons[row.exit_reason] += 1
        score.tokens += row.tokens
        score.wall_s += row.duration_s
        if row.scored:
            score.scored += 1
            score.passed += row.passed
            score.reward += row.reward
    return list(scores.values())


def evaluate(run: RunSession) -> EvalResult:
    """Run every (task, trial) of the split with the harness of the run's configuration; record the run's summary
    (`EvalSummary`: pass@1 with its passed, n and 95% interval); return per-task scores."""
    config, store = run.config, run.store
    harness = Harness.load(config.harness)
    tasks = run.suite.split(config.split)
    digest, trials = suite_digest(run.suite), config.executor.trials
    store.update_info(
        harness=str(config.harness),
        harness_hash=harness.hash,
        tasks=str(config.tasks),
        split=config.split,
        trials=trials,
        agent=config.agent,
        skipped=run.suite.skipped,
        suite=digest,
    )
    # the keys earlier runs have are copied, not paid again (unless model calls are not to come from the cache either)
    reused = (
        reuse(store, config, harness.hash, tasks, trials, store.folder.parent, digest) if config.models.cache else 0
    )
    rows = run.executor.run(harness, tasks, trials)
    result = EvalResult(store, harness, score_rollouts(rows), run.suite.skipped, reused)
    summary = EvalSummary(
        **result.rate.facts().model_dump(),
        split=config.split,
        pass_at_1=result.rate.value,
        mean_reward=result.mean_reward,
        infra_failures=result.infra_failures,
        tokens_per_rollout=mean([row.tokens for row in rows]) if rows else 0,
        reused=reused,
    )
    store.set_status(RunStatus.FINISHED, finished=time.time(), best_node=harness.hash, summary=summary)
    return result


def planned(config: RunConfig) -> int:
    """Rollouts an eval run of `config` will make: the split's tasks x trials."""
    return len(load_suite(config.tasks, seed=config.seed).split(config.split)) * config.executor.trials


def run_eval(config: RunConfig, runs_dir: Path, on_progress: ProgressCallback | None = None) -> EvalResult:
    """A new eval run folder under `runs_dir`, run to its end (see `agent/session.py` for how a session ends); a
    harness that does not load is refused before the folder is made."""
    Harness.load(config.harness)
    with open_run("eval", config, runs_dir, on_progress) as run:
        return evaluate(run)
