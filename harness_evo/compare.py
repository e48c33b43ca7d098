"""Several harnesses on identical (task, trial) keys, each against the first: the library behind `harness-evo compare`.

A harness is named by its folder or by a node of a run (`RUN` is its best node, `RUN:root`, `RUN:HASH`). Before any
rollout is paid, the rollouts of the same keys that any run under the runs folder already has are copied in
(`agent/reuse.py`), so the executor pays nothing for them.
"""

import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from harness_evo import stats
from harness_evo.agent.executor import ProgressCallback, Side
from harness_evo.agent.reuse import reuse
from harness_evo.agent.session import RunSession, open_run
from harness_evo.config import RunConfig
from harness_evo.errors import UserError
from harness_evo.evolve.nodes import harness_of, resolve_node
from harness_evo.harness import Harness
from harness_evo.store import Rollout, RunStatus, RunStore
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
    The rollouts run trial by trial, each trial's tasks contender after contender, so a comparison stopped partway has
    every contender's rollouts of the trials it finished (and a later contender finds in the response cache the model
    replies an earlier one paid for on the same key, once that rollout has finished). With `recorded`, nothing is run:
    the comparison is on the keys that runs already have for every contender."""
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
    reused = {c.letter: reuse(store, config, c.harness.hash, tasks, trials, runs_dir, digest, c.origin) for c in found}
    if recorded:
        for contender in found:
            contender.rows = store.records(Rollout, order_by="rowid", harness_hash=contender.harness.hash)
    else:
        sides = [Side(contender.harness, contender.harness.hash) for contender in found]
        work = [(side, [(task, trial) for task in tasks]) for trial in range(trials) for side in sides]
        ran, broken = run.executor.run_each(work)
        if broken:
            raise UserError(f"a harness cannot run: {next(iter(broken.values()))}")
        for i, contender in enumerate(found):
            contender.rows = [row for rows in ran[i :: len(found)] for row in rows]
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
    reward is a fail here, as in pass@1) and on tokens a rollout."""
    outcomes = {c.letter: {key: float(reward >= 1.0) for key, reward in scored_rewards(c.rows).items()} for c in found}
    harnesses = []
    for contender in found:
        mine = outcomes[contender.letter]
        scored = [row for row in contender.rows if row.scored]
        harnesses.append(
            HarnessResult(
                letter=contender.letter,
                spec=contender.spec,
                hash=contender.harness.hash,
                pass_at_1=stats.rate(int(sum(mine.values())), len(mine)).facts(),
                infra=len(contender.rows) - len(mine),
                reused=reused.get(contender.letter, 0),
                paid=sum(1 for row in contender.rows if not row.reused_from),
                tokens_per_rollout=statistics.fmean(row.tokens for row in scored) if scored else 0.0,
                seconds_per_rollout=statistics.fmean(row.duration_s for row in scored) if scored else 0.0,
                cached_share=cached_share(scored),
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
    costs = {c.letter: {(row.task_id, row.trial): float(row.tokens) for row in c.rows if row.scored} for c in found}
    comparisons = []
    for other in found[1:]:
        difference = stats.paired_on(outcomes[first.letter], outcomes[other.letter])
        cost = stats.cheaper_on(costs[first.letter], costs[other.letter])
        comparisons.append(
            Comparison(
                a=first.letter,
                b=other.letter,
                **Comparison.of(difference),
                significant=difference.significant(ALPHA),
                verdict=stats.verdict(first.label, other.label, difference, ALPHA),
                cost=f"{other.letter} against {first.letter}: {cost.sentence()}" if cost.n else "",
                b_cheaper=cost.b_cheaper,
                a_cheaper=cost.a_cheaper,
                cost_p=cost.p_value,
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


def cached_share(rows: list[Rollout]) -> float | None:
    """The share of `rows`' model calls answered from the response cache; None when none of them recorded its calls
    (rollouts from before the count was kept, or agents without a model)."""
    calls = sum(row.calls for row in rows)
    return sum(row.cached_calls for row in rows) / calls if calls else None


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
