"""Rollouts another run already has, copied into a new run instead of paid again (`compare`, `eval`).

A rollout of the same key (harness hash, task, trial, solver model) made with the same solver settings and agent on the
same suite is the same rollout: it is copied into the run and marked `reused_from`, so the executor finds it and pays
nothing for it. "The same suite" is decided task by task, by the content hashes each run records when it starts, so a
suite named by another path (or a copy) is the same and a task edited since is paid again.
"""

import shutil
from pathlib import Path

from harness_evo.agent.executor import rollout_id
from harness_evo.config import ConfigError, RunConfig
from harness_evo.errors import UserError
from harness_evo.store import Rollout, RunStore, StoreError
from harness_evo.taskset import Task


def reuse(
    store: RunStore,
    config: RunConfig,
    harness: str,
    tasks: list[Task],
    trials: int,
    runs_dir: Path,
    digest: dict[str, str],
    origin: Path | None = None,
) -> int:
    """Copy into `store` the rollouts of the harness `harness` (its hash) on `tasks` x `trials` that another run under
    `runs_dir` (or the run folder `origin` it was named from) already has; returns how many. `digest` is this suite's
    (`suite_digest`): a rollout is reused only where its task's content is the same. Other runs are read without
    writing (another process may own them)."""
    model = config.models.solver.model if config.agent == "model" else config.agent
    wanted = {rollout_id(harness, task.id, trial, model): task.id for task in tasks for trial in range(trials)}
    for row in store.records(Rollout, id=list(wanted)):
        wanted.pop(row.id, None)
    folders = sorted({*RunStore.folders(runs_dir), *([origin] if origin else [])} - {store.folder})
    copied = 0
    for folder in folders:
        if not wanted:
            break
        for row in reusable_rollouts(folder, config, digest, wanted):
            if row.trajectory and (folder / row.trajectory).is_file():
                shutil.copyfile(folder / row.trajectory, store.path(row.trajectory))
            store.put(row.model_copy(update={"node_id": harness, "reused_from": folder.name}))
            del wanted[row.id]
            copied += 1
    return copied


def reusable_rollouts(folder: Path, config: RunConfig, digest: dict[str, str], wanted: dict[str, str]) -> list[Rollout]:
    """The scored rollouts of `wanted` (rollout id -> task) in the run of `folder` that were made as this run
    would make them (`reusable_tasks`); none when the run cannot be read."""
    try:
        other = RunStore(folder, readonly=True)
    except (StoreError, UserError):
        return []
    try:
        same = reusable_tasks(other, config, digest)
        return [
            row
            for row in other.records(Rollout, id=[key for key, task_id in wanted.items() if task_id in same])
            if row.scored
        ]
    except StoreError:
        return []
    finally:
        other.close()


def reusable_tasks(other: RunStore, config: RunConfig, digest: dict[str, str]) -> set[str]:
    """The tasks whose rollouts in the run `other` were made as this run would make them: with this solver and
    agent, on the same task content (by the suite digest the run recorded; for a run that recorded none, on the same
    suite folder)."""
    try:
        settings = RunConfig.load(other.folder / "config.toml")
    except ConfigError:
        return set()
    if (
        settings.models.solver.model_dump(exclude={"timeout_s"})
        != config.models.solver.model_dump(exclude={"timeout_s"})
        or settings.agent != config.agent
    ):
        return set()
    recorded = other.info.suite
    if recorded is None:
        return set(digest) if Path(settings.tasks).resolve() == Path(config.tasks).resolve() else set()
    return {task_id for task_id, content in digest.items() if recorded.get(task_id) == content}
