"""Start, resume and fork evolution runs: the run folder, its configuration, the lock, and the run session
(`agent/session.py`) the loop runs in.

A run's starting harness is kept as a snapshot (`harnesses/<hash>/`), so `resume` continues from exactly the
harness the run started with, whatever happened to the folder it came from.
"""

import fcntl
import os
import random
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness_evo.agent.session import new_run, session
from harness_evo.config import RunConfig
from harness_evo.errors import UserError
from harness_evo.evolve import events as ev
from harness_evo.evolve.budget import estimate
from harness_evo.evolve.loop import Evolution
from harness_evo.evolve.pace import pace
from harness_evo.harness import Harness
from harness_evo.store import Node, Rollout, RunStore
from harness_evo.store.info import EvolutionSummary, Fork
from harness_evo.taskset import Suite, Task, load_suite, suite_digest

LOCK = "run.lock"


def dev_tasks(suite: Suite, config: RunConfig) -> list[Task]:
    """The dev tasks nodes are scored on: all of the dev split, or a sample of `search.dev_sample` drawn once from the
    run's seed."""
    dev = suite.split("dev")
    n = config.search.dev_sample
    if n is None or n >= len(dev):
        return dev
    return sorted(random.Random(f"{config.seed}:dev").sample(dev, n), key=lambda task: task.id)


def start(
    config: RunConfig, runs_dir: Path, harness: Harness | None = None, forked_from: Fork | None = None
) -> RunStore:
    """A new evolution run folder with its configuration and starting harness; `run` then runs it. Budgets that cannot
    hold one gate at the pace of runs here are refused before the folder is made."""
    harness = harness or Harness.load(config.harness)
    suite = load_suite(config.tasks, seed=config.seed)
    if not suite.split("train"):
        raise UserError(
            f"{config.tasks}: no train tasks to evolve on; name some under [splits] train in its suite.toml"
        )
    forecast = estimate(
        config,
        len(dev_tasks(suite, config)),
        harness.agent.step_limit,
        pace=pace(config),
        n_train=len(suite.split("train")),
    )
    if refusal := forecast.refusal():
        raise UserError(refusal)
    store = new_run("evolve", config, runs_dir)
    harness.save(store.folder / "harnesses" / harness.hash)
    store.update_info(
        config=config.model_dump(mode="json"),
        harness=str(config.harness),
        root=harness.hash,
        tasks=str(config.tasks),
        suite=suite_digest(suite),
        forked_from=forked_from,
    )
    return store


def suite_changes(recorded: dict[str, str], now: dict[str, str]) -> str | None:
    """What differs between two suite digests (the tasks changed, added and removed), or None."""
    kinds = {
        "changed": [name for name in recorded.keys() & now.keys() if recorded[name] != now[name]],
        "added": list(now.keys() - recorded.keys()),
        "removed": list(recorded.keys() - now.keys()),
    }
    return "; ".join(f"{kind}: {', '.join(sorted(names))}" for kind, names in kinds.items() if names) or None


def check_suite(store: RunStore, allow_changed: bool = False) -> str | None:
    """Refuse to continue a run whose task suite changed since it started (a run that recorded no digest is not
    checked), unless `allow_changed`: then the changed suite becomes the run's and what changed is returned."""
    recorded = store.info.suite
    if not recorded:
        return None
    config = load_run_config(store)
    now = suite_digest(load_suite(config.tasks, seed=config.seed))
    changes = suite_changes(recorded, now)
    if changes is None:
        return None
    if not allow_changed:
        raise UserError(
            f"the task suite {config.tasks} changed since run {store.id} started ({changes}), so its scores "
            f"so far would not compare with new ones; `harness-evo resume {store.id} --allow-changed-suite` "
            f"resumes on it anyway"
        )
    store.update_info(suite=now)
    return changes


def load_run_config(store: RunStore) -> RunConfig:
    """The configuration an evolution run was started with."""
    info = store.info
    if info.kind != "evolve" or not info.root:
        raise UserError(
            f"{store.id} is not an evolution run (it is a {info.kind} run); start one with `harness-evo evolve`"
        )
    return RunConfig.load(store.folder / "config.toml")


def raise_budget(store: RunStore, budgets: dict[str, object]) -> None:
    """Give a run new budgets before it continues (`budgets`: options over its configuration, a None value keeps one as
    it is): a run that finished on a budget goes on until the new one. Wall time counts the run's time so far."""
    if all(value is None for value in budgets.values()):
        return
    config = load_run_config(store).with_options(budgets)
    config.save(store.folder / "config.toml")
    store.update_info(config=config.model_dump(mode="json"))


@contextmanager
def owned(store: RunStore) -> Iterator[None]:
    """This process alone runs `store` (or changes its budgets) while the block runs: two processes evolving one run
    would interleave their iterations in its event log. The lock goes with the process, `kill -9` included."""
    with (store.folder / LOCK).open("a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            holder = lock.read().strip() or "another process"
            raise UserError(
                f"run {store.id} is already running (process {holder}); `harness-evo watch {store.id}` follows it, "
                f"and stopping that process lets you resume it here"
            ) from None
        lock.truncate(0)
        lock.write(str(os.getpid()))
        lock.flush()
        yield


def run(store: RunStore, callbacks: list[ev.Callback] = ()) -> EvolutionSummary:
    """Run (or continue) the evolution of a run folder until a budget stops it; returns the summary."""
    config = load_run_config(store)
    harness = Harness.load(store.folder / "harnesses" / store.info.root)

    def progress(kind: str, row: Rollout) -> None:
        for callback in callbacks:
            callback(ev.RolloutProgress(kind, row))

    with session(store, config, on_progress=progress) as opened:
        return Evolution(opened, harness, dev_tasks(opened.suite, config), callbacks).run()


def find_run(run: str, runs_dir: Path) -> RunStore:
    """A run by its folder or its id (a unique prefix will do) under `runs_dir`."""
    return RunStore.find(run, runs_dir)


def fork(source: RunStore, node: str, runs_dir: Path, config: RunConfig | None = None) -> RunStore:
    """A new run that starts from a node of `source` (a hash prefix or `best`), with the source's configuration (or
    `config`); the node's rollouts come along, so they are not paid for again."""
    node = source.info.best_node or "" if node == "best" else node
    ids = [row.id for row in source.records(Node) if node and row.id.startswith(node)]
    if len(ids) != 1:
        raise UserError(
            f"{'no node' if not ids else f'{len(ids)} nodes'} starting with {node!r} in run {source.id}; "
            f"`harness-evo tree {source.id}` lists them"
        )
    config = config or load_run_config(source)
    harness = Harness.load(source.folder / "harnesses" / ids[0])
    store = start(config, runs_dir, harness=harness, forked_from=Fork(run=source.id, node=ids[0]))
    for row in source.records(Rollout, harness_hash=ids[0]):
        if row.trajectory and (source.folder / row.trajectory).is_file():
            shutil.copyfile(source.folder / row.trajectory, store.path(row.trajectory))
        store.put(row.model_copy(update={"node_id": ids[0]}))
    return store
