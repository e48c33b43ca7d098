"""Several harnesses on identical (task, trial) keys, each against the first: the library behind `harness-evo compare`.

A harness is named by its folder or by a node of a run (`RUN` is its best node, `RUN:root`, `RUN:HASH`). Before any
rollout is paid, every run folder under the runs folder is searched for rollouts of the same keys (harness hash,
task, trial, solver model) made with the same solver settings on the same suite: those are copied into the compare
run and marked `reused_from`, so the executor finds them and pays nothing for them. "The same suite" is decided task by
task, by the content hashes each run records when it starts, so a suite named by another path (or a copy) is the same
and a task edited since is paid again.
"""

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from harness_evo import stats
from harness_evo.agent.executor import ProgressCallback, rollout_id
from harness_evo.agent.session import RunSession, open_run
from harness_evo.config import ConfigError, RunConfig
from harness_evo.errors import HarnessError, UserError
from harness_evo.evolve.nodes import harness_of, resolve_node
from harness_evo.harness import Harness
from harness_evo.store import Rollout, RunStatus, RunStore, StoreError
from harness_evo.store.info import CompareSummary, Comparison, HarnessResult, NamedHarness
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
        raise UserError(
            f"{spec!r} is neither a harness folder (with harness.toml) nor a run in {runs_dir}; pass a harness "
            "folder, RUN (its best node), RUN:root or RUN:HASH"
        ) from None
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
            raise UserError(
                f"{other.spec!r} and {contender.spec!r} are the same harness ({contender.harness.short_hash}); "
                "pass harnesses that differ"
            )
        seen[contender.harness.hash] = contender
    return found


def reuse(
    store: RunStore,
    config: RunConfig,
    contender: Contender,
    tasks: list[Task],
    trials: int,
    runs_dir: Path,
    digest: dict[str, str],
) -> int:
    """Copy into `store` the rollouts of this contender's keys that another run already has; returns how many. `digest`
    is this suite's (`suite_digest`): a rollout is reused only where its task's content is the same. Other runs are
    read without writing (another process may own them)."""
    model = config.models.solver.model if config.agent == "model" else config.agent
    wanted = {
        rollout_id(contender.harness.hash, task.id, trial, model): task.id for task in tasks for trial in range(trials)
    }
    for row in store.records(Rollout, id=list(wanted)):
        wanted.pop(row.id, None)
    folders = sorted({*RunStore.folders(runs_dir), *([contender.origin] if contender.origin else [])} - {store.folder})
    copied = 0
    for folder in folders:
        if not wanted:
            break
        for row in reusable_rollouts(folder, config, digest, wanted):
            if row.trajectory and (folder / row.trajectory).is_file():
                shutil.copyfile(folder / row.trajectory, store.path(row.trajectory))
            store.put(row.model_copy(update={"node_id": contender.harness.hash, "reused_from": folder.name}))
            del wanted[row.id]
            copied += 1
    return copied


def reusable_rollouts(folder: Path, config: RunConfig, digest: dict[str, str], wanted: dict[str, str]) -> list[Rollout]:
    """The scored rollouts of `wanted` (rollout id -> task) in the run of `folder` that were made as this comparison
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
    """The tasks whose rollouts in the run `other` were made as this comparison would make them: with this solver and
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


def split_tasks(suite: Suite, split: str) -> list[Task]:
    """The tasks of `split`; a split without tasks is refused."""
    tasks = suite.split(split)
    if not tasks:
        raise UserError(f"{suite.folder}: the {split} split has no tasks; pass --split train, dev, test or all")
    return tasks


class Cell(BaseModel):
    """One harness's passes of one task."""

    passed: int = 0
    scored: int = 0


class TaskRow(BaseModel):
    """One task: each harness's passes (in the order of the harnesses), and whether they differ."""

    task_id: str
    category: str
    cells: list[Cell]
    differs: bool


class CompareFacts(CompareSummary):
    """What `compare` shows (`--json` prints them): its summary, and the tasks one by one."""

    run: str
    folder: str
    tasks: int
    per_task: list[TaskRow] = Field(default_factory=list)
    recorded: bool = False
    """Nothing was run: the comparison is on the keys runs already had for every harness."""


def compare(run: RunSession, found: list[Contender], runs_dir: Path, recorded: bool = False) -> CompareFacts:
    """Run every contender on the split's tasks x `executor.trials` (reusing what any run has); the facts of the result.
    With `recorded`, nothing is run: the comparison is on the keys that runs already have for every contender."""
    config, store = run.config, run.store
    tasks = split_tasks(run.suite, config.split)
    trials = config.executor.trials
    digest = suite_digest(run.suite)
    store.update_info(
        tasks=str(config.tasks),
        split=config.split,
        trials=trials,
        agent=config.agent,
        suite=digest,
        harnesses=[NamedHarness(letter=c.letter, spec=c.spec, hash=c.harness.hash) for c in found],
    )
    reused = {c.letter: reuse(store, config, c, tasks, trials, runs_dir, digest) for c in found}
    for contender in found:
        if recorded:
            contender.rows = store.records(Rollout, order_by="rowid", harness_hash=contender.harness.hash)
            continue
        try:
            contender.rows = run.executor.run(contender.harness, tasks, trials, node_id=contender.harness.hash)
        except HarnessError as e:
            raise UserError(f"{contender.spec}: {e}") from e
    if recorded:
        common = set.intersection(*({(row.task_id, row.trial) for row in c.rows if row.scored} for c in found))
        for contender in found:
            contender.rows = [row for row in contender.rows if (row.task_id, row.trial) in common]
    facts = summarize(store, found, tasks, trials, reused).model_copy(update={"recorded": recorded})
    store.set_status(
        RunStatus.FINISHED, finished=time.time(), summary=CompareSummary.model_validate(facts.model_dump())
    )
    return facts


def summarize(
    store: RunStore, found: list[Contender], tasks: list[Task], trials: int, reused: dict[str, int]
) -> CompareFacts:
    """Per-task passes, pass@1 of each with its interval, and each harness against the first, on passes (a partial
    reward is a fail here, as in pass@1)."""
    outcomes = {c.letter: {key: float(reward >= 1.0) for key, reward in scored_rewards(c.rows).items()} for c in found}
    harnesses = []
    for contender in found:
        mine = outcomes[contender.letter]
        harnesses.append(
            HarnessResult(
                letter=contender.letter,
                spec=contender.spec,
                hash=contender.harness.hash,
                pass_at_1=stats.rate(int(sum(mine.values())), len(mine)).facts(),
                infra=len(contender.rows) - len(mine),
                reused=reused.get(contender.letter, 0),
                paid=sum(1 for row in contender.rows if not row.reused_from),
            )
        )
    per_task = []
    for task in tasks:
        cells = []
        for contender in found:
            mine = [passed for (task_id, _), passed in outcomes[contender.letter].items() if task_id == task.id]
            cells.append(Cell(passed=int(sum(mine)), scored=len(mine)))
        shares = {cell.passed / cell.scored for cell in cells if cell.scored}
        per_task.append(TaskRow(task_id=task.id, category=task.category, cells=cells, differs=len(shares) > 1))
    per_task.sort(key=lambda row: (not row.differs, row.task_id))
    first = found[0]
    comparisons = []
    for other in found[1:]:
        difference = stats.paired_on(outcomes[first.letter], outcomes[other.letter])
        comparisons.append(
            Comparison(
                a=first.letter,
                b=other.letter,
                **Comparison.of(difference),
                significant=difference.significant(ALPHA),
                verdict=stats.verdict(first.label, other.label, difference, ALPHA),
            )
        )
    return CompareFacts(
        run=store.id,
        folder=str(store.folder),
        split=store.info.split,
        trials=trials,
        tasks=len(tasks),
        harnesses=harnesses,
        per_task=per_task,
        comparisons=comparisons,
    )


def planned(config: RunConfig, found: list[Contender]) -> int:
    """Rollouts a comparison of `found` will make (reused ones included): the split's tasks x trials x harnesses."""
    return (
        len(split_tasks(load_suite(config.tasks, seed=config.seed), config.split)) * config.executor.trials * len(found)
    )


def run_compare(
    config: RunConfig,
    found: list[Contender],
    runs_dir: Path,
    on_progress: ProgressCallback | None = None,
    recorded: bool = False,
) -> CompareFacts:
    """A new compare run folder under `runs_dir`, run to its end (see `agent/session.py` for how a session ends)."""
    with open_run("compare", config, runs_dir, on_progress) as run:
        return compare(run, found, runs_dir, recorded)
