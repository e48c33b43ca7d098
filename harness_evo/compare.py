"""Several harnesses on identical (task, trial) keys, each against the first: the library behind `harness-evo compare`.

A harness is named by its folder or by a node of a run (`RUN` is its best node, `RUN:root`, `RUN:HASH`). Before any
rollout is paid, every run folder under the runs folder is searched for rollouts of the same keys (harness hash,
task, trial, solver model) made with the same solver settings on the same suite: those are copied into the compare
run and marked `reused_from`, so the executor finds them and pays nothing for them. "The same suite" is decided task by
task, by the content hashes each run records when it starts, so a suite named by another path (or a copy) is the same
and a task edited since is paid again.
"""

import json
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness_evo import stats
from harness_evo.agent.executor import Executor, ProgressCallback, rollout_id
from harness_evo.config import ConfigError, RunConfig
from harness_evo.errors import HarnessError, UserError
from harness_evo.evolve.nodes import harness_of, resolve_node
from harness_evo.harness import Harness
from harness_evo.llm import LLM
from harness_evo.sandbox import get_backend
from harness_evo.store import Rollout, RunStatus, RunStore
from harness_evo.store.rollout import scored_rewards
from harness_evo.taskset import Suite, Task, load_suite, suite_digest

ALPHA = 0.05
"""Level of the paired test behind each verdict (the intervals are 95% too)."""
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass
class Contender:
    """One harness of a comparison: the argument that named it, and the run it came from (if any)."""

    letter: str
    spec: str
    harness: Harness
    origin: Path | None = None
    rows: list[Rollout] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.letter} ({self.spec})"


def resolve(spec: str, runs_dir: Path, letter: str = "A") -> Contender:
    """A harness folder, or a run's node: `RUN` (its best), `RUN:root`, `RUN:best` or `RUN:HASH` (a unique prefix)."""
    path = Path(spec)
    if path.is_dir() and (path / "harness.toml").is_file():
        return Contender(letter, spec, Harness.load(path))
    run, _, node = spec.partition(":") if not path.is_dir() else (spec, "", "")
    try:
        store = RunStore.find(run, runs_dir)
    except UserError:
        raise UserError(f"{spec!r} is neither a harness folder (with harness.toml) nor a run in {runs_dir}; pass a harness "
                        "folder, RUN (its best node), RUN:root or RUN:HASH") from None
    try:
        node_id = resolve_node(store, node or "best")
        return Contender(letter, spec, harness_of(store, node_id), origin=store.folder)
    finally:
        store.close()


def contenders(specs: list[str], runs_dir: Path) -> list[Contender]:
    """The harnesses named by `specs`, in order; two that are the same harness are refused."""
    if len(specs) < 2:
        raise UserError("compare needs at least two harnesses: harness-evo compare A B [C ...]")
    if len(specs) > len(LETTERS):
        raise UserError(f"compare takes at most {len(LETTERS)} harnesses at once")
    found = [resolve(spec, runs_dir, letter) for spec, letter in zip(specs, LETTERS)]
    seen: dict[str, Contender] = {}
    for contender in found:
        if contender.harness.hash in seen:
            other = seen[contender.harness.hash]
            raise UserError(f"{other.spec!r} and {contender.spec!r} are the same harness ({contender.harness.short_hash}); "
                            "pass harnesses that differ")
        seen[contender.harness.hash] = contender
    return found


def reuse(store: RunStore, config: RunConfig, contender: Contender, tasks: list[Task], trials: int, runs_dir: Path,
          digest: dict[str, str]) -> int:
    """Copy into `store` the rollouts of this contender's keys that another run already has; returns how many. `digest`
    is this suite's (`suite_digest`): a rollout is reused only where its task's content is the same."""
    model = config.models.solver.model if config.agent == "model" else config.agent
    wanted = {rollout_id(contender.harness.hash, task.id, trial, model): task.id for task in tasks for trial in range(trials)}
    for row in store.records(Rollout):
        wanted.pop(row.id, None)
    folders = sorted({*(path for path in Path(runs_dir).glob("*") if (path / "run.db").is_file()),
                      *([contender.origin] if contender.origin else [])} - {store.folder})
    copied = 0
    for folder in folders:
        if not wanted:
            break
        same = reusable_tasks(folder, config, digest)
        for row in read_rollouts(folder, {key for key, task_id in wanted.items() if task_id in same}):
            if row.trajectory and (folder / row.trajectory).is_file():
                shutil.copyfile(folder / row.trajectory, store.path(row.trajectory))
            store.put(row.model_copy(update={"node_id": contender.harness.hash, "reused_from": folder.name}))
            del wanted[row.id]
            copied += 1
    return copied


def reusable_tasks(folder: Path, config: RunConfig, digest: dict[str, str]) -> set[str]:
    """The tasks whose rollouts in the run of `folder` were made as this comparison would make them: with this solver
    and agent, on the same task content (by the suite digest the run recorded; for a run that recorded none, on the
    same suite folder)."""
    try:
        other = RunConfig.load(folder / "config.toml")
    except ConfigError:
        return set()
    if (other.models.solver.model_dump(exclude={"timeout_s"}) != config.models.solver.model_dump(exclude={"timeout_s"})
            or other.agent != config.agent):
        return set()
    recorded = recorded_suite(folder)
    if recorded is None:
        return set(digest) if Path(other.tasks).resolve() == Path(config.tasks).resolve() else set()
    return {task_id for task_id, content in digest.items() if recorded.get(task_id) == content}


def recorded_suite(folder: Path) -> dict[str, str] | None:
    """The suite digest the run in `folder` recorded when it started, read without writing; None when it has none."""
    try:
        connection = sqlite3.connect(f"file:{folder / 'run.db'}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return None
    try:
        [(found,)] = connection.execute("SELECT suite FROM run").fetchall() or [(None,)]
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    return json.loads(found) if found else None


def read_rollouts(folder: Path, ids: set[str]) -> list[Rollout]:
    """The scored rollouts of `ids` in the run.db of `folder`, read without writing to it (another process may own it)."""
    try:
        connection = sqlite3.connect(f"file:{folder / 'run.db'}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return []
    connection.row_factory = sqlite3.Row
    try:
        marks = ", ".join("?" for _ in ids)
        rows = [dict(row) for row in connection.execute(f"SELECT * FROM rollouts WHERE id IN ({marks})", list(ids))]
    except sqlite3.Error:
        return []
    finally:
        connection.close()
    return [rollout for rollout in map(Rollout.model_validate, rows) if rollout.scored]


def split_tasks(suite: Suite, split: str) -> list[Task]:
    """The tasks of `split`; a split without tasks is refused."""
    tasks = suite.split(split)
    if not tasks:
        raise UserError(f"{suite.folder}: the {split} split has no tasks; pass --split train, dev, test or all")
    return tasks


def compare(config: RunConfig, store: RunStore, found: list[Contender], runs_dir: Path, llm=None,
            on_progress: ProgressCallback | None = None, recorded: bool = False) -> dict[str, Any]:
    """Run every contender on the split's tasks x `executor.trials` (reusing what any run has); the facts of the result.
    With `recorded`, nothing is run: the comparison is on the keys that runs already have for every contender."""
    suite = load_suite(config.tasks, seed=config.seed)
    tasks = split_tasks(suite, config.split)
    trials = config.executor.trials
    digest = suite_digest(suite)
    store.emit("run", id=store.id, tasks=str(config.tasks), split=config.split, trials=trials, agent=config.agent,
               harnesses=[{"letter": c.letter, "spec": c.spec, "hash": c.harness.hash} for c in found], suite=digest)
    reused = {c.letter: reuse(store, config, c, tasks, trials, runs_dir, digest) for c in found}
    backend = get_backend(config.sandbox, run_id=store.id)
    executor = Executor(store, backend, suite, llm=llm, workers=config.rollout_workers(), agent=config.agent, on_progress=on_progress,
                        cluster=config.executor)
    for contender in found:
        if recorded:
            contender.rows = store.records(Rollout, "harness_hash = ?", [contender.harness.hash], order_by="rowid")
            continue
        try:
            contender.rows = executor.run(contender.harness, tasks, trials, node_id=contender.harness.hash)
        except HarnessError as e:
            raise UserError(f"{contender.spec}: {e}") from e
    if recorded:
        common = set.intersection(*({(row.task_id, row.trial) for row in c.rows if row.scored} for c in found))
        for contender in found:
            contender.rows = [row for row in contender.rows if (row.task_id, row.trial) in common]
    facts = summarize(store, found, tasks, trials, reused) | {"recorded": recorded}
    store.set_status(RunStatus.FINISHED, finished=time.time(), summary={key: facts[key] for key in ("split", "trials", "harnesses", "comparisons")})
    return facts


def summarize(store: RunStore, found: list[Contender], tasks: list[Task], trials: int, reused: dict[str, int]) -> dict[str, Any]:
    """Per-task passes, pass@1 of each with its interval, and each harness against the first, on passes (a partial
    reward is a fail here, as in pass@1)."""
    outcomes = {c.letter: {key: float(reward >= 1.0) for key, reward in scored_rewards(c.rows).items()} for c in found}
    harnesses = []
    for contender in found:
        mine = outcomes[contender.letter]
        passed = int(sum(mine.values()))
        rate = stats.rate(passed, len(mine))
        harnesses.append({
            "letter": contender.letter, "spec": contender.spec, "hash": contender.harness.hash,
            "pass_at_1": rate.facts(),
            "infra": len(contender.rows) - len(mine), "reused": reused.get(contender.letter, 0),
            "paid": sum(1 for row in contender.rows if not row.reused_from),
        })
    per_task = []
    for task in tasks:
        cells = []
        for contender in found:
            mine = [passed for (task_id, _), passed in outcomes[contender.letter].items() if task_id == task.id]
            cells.append({"passed": int(sum(mine)), "scored": len(mine)})
        shares = {cell["passed"] / cell["scored"] for cell in cells if cell["scored"]}
        per_task.append({"task_id": task.id, "category": task.category, "cells": cells, "differs": len(shares) > 1})
    per_task.sort(key=lambda row: (not row["differs"], row["task_id"]))
    first = found[0]
    comparisons = []
    for other in found[1:]:
        difference = stats.paired_on(outcomes[first.letter], outcomes[other.letter])
        comparisons.append({
            "a": first.letter, "b": other.letter, "n": difference.n, "tasks": difference.tasks, "diff": difference.diff,
            "low": difference.low, "high": difference.high, "b_better": difference.b_better, "a_better": difference.a_better,
            "p_value": difference.p_value, "significant": difference.significant(ALPHA),
            "verdict": stats.verdict(first.label, other.label, difference, ALPHA),
        })
    return {"run": store.id, "folder": str(store.folder), "split": store.info.get("split"), "trials": trials,
            "tasks": len(tasks), "harnesses": harnesses, "per_task": per_task, "comparisons": comparisons}



def planned(config: RunConfig, found: list[Contender]) -> int:
    """Rollouts a comparison of `found` will make (reused ones included): the split's tasks x trials x harnesses."""
    return len(split_tasks(load_suite(config.tasks, seed=config.seed), config.split)) * config.executor.trials * len(found)


def run_compare(config: RunConfig, found: list[Contender], runs_dir: Path,
                on_progress: ProgressCallback | None = None, recorded: bool = False) -> dict[str, Any]:
    """A new compare run folder under `runs_dir`, run to its end; Ctrl-C marks it stopped and keeps what finished."""
    store = RunStore.create(runs_dir, "compare")
    config.save_in_run(store.folder)
    with LLM(config.run_models(), store=store) as llm, store.stopped_on_interrupt():
        return compare(config, store, found, runs_dir, llm=llm, on_progress=on_progress, recorded=recorded)
