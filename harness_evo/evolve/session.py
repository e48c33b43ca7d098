"""Start, resume and fork evolution runs: the run folder, its configuration and the pieces the loop needs.

A run's starting harness is kept as a snapshot (`harnesses/<hash>/`), so `resume` continues from exactly the
harness the run started with, whatever happened to the folder it came from.
"""

import errno
import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness_evo.agent.runners import reach
from harness_evo.config import RunConfig
from harness_evo.errors import UserError
from harness_evo.evolve import events as ev
from harness_evo.evolve.budget import estimate
from harness_evo.evolve.loop import Evolution, dev_tasks
from harness_evo.evolve.pace import pace
from harness_evo.harness import Harness
from harness_evo.llm import LLM
from harness_evo.sandbox import get_backend
from harness_evo.store import Node, Rollout, RunStatus, RunStore
from harness_evo.taskset import load_suite, suite_digest

OPTIMIZER_ROLES = ("analyzer", "proposer", "critic")
LOCK = "run.lock"


def configure(config: RunConfig, harness: Path | None = None, tasks: Path | None = None, model: str | None = None,
              optimizer_model: str | None = None, workers: int | None = None, sandbox: str | None = None, seed: int | None = None,
              budget_rollouts: int | None = None, budget_minutes: float | None = None, iterations: int | None = None,
              patience: int | None = None, executor: str | None = None, ray_address: str | None = None) -> RunConfig:
    """`config` as an evolution run with the given settings changed (None leaves a setting as it is)."""
    options = {"kind": "evolve", "harness": harness, "tasks": tasks, "seed": seed, "models.solver.model": model,
               "executor.workers": workers, "executor.backend": executor, "executor.address": ray_address,
               "sandbox.backend": sandbox, "budget.max_rollouts": budget_rollouts,
               "budget.max_iterations": iterations, "budget.patience": patience,
               "budget.max_wall_s": budget_minutes * 60 if budget_minutes is not None else None}
    options |= {f"models.{role}.model": optimizer_model for role in OPTIMIZER_ROLES}
    return config.with_options(options)


def start(config: RunConfig, runs_dir: Path, harness: Harness | None = None, forked_from: dict | None = None) -> RunStore:
    """A new evolution run folder with its configuration and starting harness; `run` then runs it. Budgets that cannot
    hold one gate at the pace of runs here are refused before the folder is made."""
    harness = harness or Harness.load(config.harness)
    suite = load_suite(config.tasks, seed=config.seed)
    if not suite.split("train"):
        raise UserError(f"{config.tasks}: no train tasks to evolve on; name some under [splits] train in its suite.toml")
    forecast = estimate(config, len(dev_tasks(suite, config)), harness.agent.step_limit, pace=pace(config),
                        n_train=len(suite.split("train")))
    if refusal := forecast.refusal():
        raise UserError(refusal)
    reach(config.executor)
    store = RunStore.create(runs_dir, "evolve")
    config.save_in_run(store.folder)
    harness.save(store.folder / "harnesses" / harness.hash)
    store.emit("run", id=store.id, config=config.model_dump(mode="json"), harness=str(config.harness), root=harness.hash,
               tasks=str(config.tasks), suite=suite_digest(suite), forked_from=forked_from)
    return store


def suite_changes(recorded: dict[str, str], now: dict[str, str]) -> str | None:
    """What differs between two suite digests (the tasks changed, added and removed), or None."""
    kinds = {"changed": [name for name in recorded.keys() & now.keys() if recorded[name] != now[name]],
             "added": list(now.keys() - recorded.keys()), "removed": list(recorded.keys() - now.keys())}
    return "; ".join(f"{kind}: {', '.join(sorted(names))}" for kind, names in kinds.items() if names) or None


def check_suite(store: RunStore, allow_changed: bool = False) -> str | None:
    """Refuse to continue a run whose task suite changed since it started (a run that recorded no digest is not
    checked), unless `allow_changed`: then the changed suite becomes the run's and what changed is returned."""
    recorded = store.info.get("suite")
    if not recorded:
        return None
    config = load_run_config(store)
    now = suite_digest(load_suite(config.tasks, seed=config.seed))
    changes = suite_changes(recorded, now)
    if changes is None:
        return None
    if not allow_changed:
        raise UserError(f"the task suite {config.tasks} changed since run {store.id} started ({changes}), so its scores "
                        f"so far would not compare with new ones; `harness-evo resume {store.id} --allow-changed-suite` "
                        f"resumes on it anyway")
    store.emit("run", id=store.id, suite=now)
    return changes


def load_run_config(store: RunStore) -> RunConfig:
    """The configuration an evolution run was started with."""
    if store.info.get("kind") != "evolve" or not store.info.get("root"):
        raise UserError(f"{store.id} is not an evolution run (it is a {store.info.get('kind')} run); start one with `harness-evo evolve`")
    return RunConfig.load(store.folder / "config.toml")


def raise_budget(store: RunStore, budget_rollouts: int | None = None, budget_minutes: float | None = None,
                 iterations: int | None = None, patience: int | None = None) -> None:
    """Give a run new budgets before it continues (None keeps one as it is): a run that finished on a budget goes on
    until the new one. Wall time counts the run's time so far."""
    budgets = dict(budget_rollouts=budget_rollouts, budget_minutes=budget_minutes, iterations=iterations, patience=patience)
    if all(value is None for value in budgets.values()):
        return
    config = configure(load_run_config(store), **budgets)
    config.save(store.folder / "config.toml")
    store.emit("run", id=store.id, config=config.model_dump(mode="json"))


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
            raise UserError(f"run {store.id} is already running (process {holder}); `harness-evo watch {store.id}` follows it, "
                            f"and stopping that process lets you resume it here") from None
        lock.truncate(0)
        lock.write(str(os.getpid()))
        lock.flush()
        yield


def run(store: RunStore, callbacks: list[ev.Callback] = ()) -> dict:
    """Run (or continue) the evolution of a run folder until a budget stops it; returns the summary."""
    config = load_run_config(store)
    harness = Harness.load(store.folder / "harnesses" / store.info["root"])
    suite = load_suite(config.tasks, seed=config.seed)
    store.set_status(RunStatus.RUNNING)
    try:
        with LLM(config.run_models(), store=store) as llm:
            evolution = Evolution(store, config, suite, harness, llm, get_backend(config.sandbox, run_id=store.id), callbacks)
            return evolution.run()
    except KeyboardInterrupt:
        ended(store, RunStatus.STOPPED)
        raise
    except OSError as e:
        ended(store, RunStatus.FAILED)
        if e.errno == errno.ENOSPC:
            raise UserError(f"no space left on the disk of {store.folder} (writing {e.filename or 'a file'}); what finished is "
                            f"kept: free some space, then `harness-evo resume {store.id}`") from e
        raise
    except BaseException:
        ended(store, RunStatus.FAILED)
        raise


def ended(store: RunStore, status: RunStatus) -> None:
    """Record how the session ended. On a full disk nothing can be recorded: the run stays `running`, which `resume`
    continues all the same."""
    try:
        store.set_status(status, finished=time.time())
    except UserError:
        pass


def find_run(run: str, runs_dir: Path) -> RunStore:
    """A run by its folder or its id (a unique prefix will do) under `runs_dir`."""
    return RunStore.find(run, runs_dir)


def fork(source: RunStore, node: str, runs_dir: Path, config: RunConfig | None = None) -> RunStore:
    """A new run that starts from a node of `source` (a hash prefix or `best`), with the source's configuration (or
    `config`); the node's rollouts come along, so they are not paid for again."""
    node = source.info.get("best_node") or "" if node == "best" else node
    ids = [row.id for row in source.records(Node) if node and row.id.startswith(node)]
    if len(ids) != 1:
        raise UserError(f"{'no node' if not ids else f'{len(ids)} nodes'} starting with {node!r} in run {source.id}; "
                        f"`harness-evo tree {source.id}` lists them")
    config = config or load_run_config(source)
    harness = Harness.load(source.folder / "harnesses" / ids[0])
    store = start(config, runs_dir, harness=harness, forked_from={"run": source.id, "node": ids[0]})
    for row in source.records(Rollout, "harness_hash = ?", [ids[0]]):
        if row.trajectory and (source.folder / row.trajectory).is_file():
            shutil.copyfile(source.folder / row.trajectory, store.path(row.trajectory))
        store.put(row.model_copy(update={"node_id": ids[0]}))
    return store
