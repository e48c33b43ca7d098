"""The analysis of failed rollouts: triage, explain, aggregate (`FailureAnalysis`, which the evolution loop calls after
rollouts), and `analyze_run`, the library behind `harness-evo analyze` (an eval run's failures)."""

from collections.abc import Callable, Iterable
from pathlib import Path

from harness_evo.agent.executor import rollout_workers
from harness_evo.config import FailuresConfig, RunConfig
from harness_evo.errors import UserError
from harness_evo.failures.aggregate import Aggregator
from harness_evo.failures.analyzer import Analyzer
from harness_evo.failures.queries import instruction_of, load_trajectory
from harness_evo.failures.triage import triage
from harness_evo.llm import LLM, ModelUnavailable
from harness_evo.store import Failure, Pattern, Rollout, RunStore
from harness_evo.taskset import Suite, load_suite


class FailureAnalysis:
    """Turns failed rollouts into failure rows and patterns in the run's store.

    Only failures of the `explain` splits (train) are explained and grouped into patterns; the others (dev, test)
    are counted: a failure row with its split and no analysis, so nothing about them reaches the proposer.
    A rollout already in `failures` is skipped, so a run resumed after a crash pays nothing twice.
    """

    def __init__(
        self,
        store: RunStore,
        llm: LLM,
        config: FailuresConfig,
        suite: Suite | None = None,
        explain: Iterable[str] = ("train",),
    ):
        self.store = store
        self.config = config
        self.suite = suite
        self.explain = set(explain)
        self.analyzer = Analyzer(llm, config.trace_token_budget)
        self.aggregator = Aggregator(store, llm, config)

    def process(self, rollouts: list[Rollout], on_rollout: Callable[[Rollout], None] | None = None) -> list[Pattern]:
        """Analyze the failed rollouts among `rollouts`; the patterns that changed."""
        changed = self.aggregator.settle()
        done = {row.rollout_id for row in self.store.records(Failure)}
        for rollout in rollouts:
            if not rollout.passed and rollout.id not in done and self.examine(rollout):
                changed |= self.aggregator.settle()
            done.add(rollout.id)
            if on_rollout:
                on_rollout(rollout)
        return self._patterns(changed)

    def resolve(self, node_ids: list[str], task_ids: list[str]) -> list[Pattern]:
        """After `task_ids` were re-run on `node_ids` (and processed): the patterns that did not recur, now resolved."""
        return self._patterns(self.aggregator.resolve(node_ids, task_ids) | self.aggregator.settle())

    def _patterns(self, ids: set[str]) -> list[Pattern]:
        return sorted((self.store.record(Pattern, pattern_id) for pattern_id in ids), key=lambda row: row.number)

    def examine(self, rollout: Rollout) -> Failure | None:
        """Write the failure row of one failed rollout (None when there is nothing to explain: it passed, or was
        interrupted)."""
        trajectory = load_trajectory(self.store, rollout)
        found = None if rollout.passed else triage(trajectory, self.config.loop_repeats)
        if found is None:
            return None
        split = rollout.split or (self.suite.split_of(rollout.task_id) if self.suite else "train")
        row = Failure(
            id=rollout.id,
            rollout_id=rollout.id,
            task_id=rollout.task_id,
            node_id=rollout.node_id,
            split=split,
            trial=rollout.trial,
            exit_reason=trajectory.exit_reason,
            infra=found.infra,
            ts=rollout.finished or rollout.started or 0.0,
        )
        if split in self.explain:
            if found.final:
                record, source, error = found.record, "triage", None
            else:
                task = self.suite.tasks.get(rollout.task_id) if self.suite else None
                instruction = task.instruction if task else instruction_of(trajectory)
                record, source, error = self.analyzer.explain(instruction, trajectory, found)
            row = row.model_copy(
                update={"source": source, **record.model_dump(), "signature": record.signature, "analyzer_error": error}
            )
        self.store.put(row)
        return row


def eval_rollouts(store: RunStore) -> list[Rollout]:
    """The rollouts of an eval run in the order they were recorded; any other kind of run is refused."""
    if store.info.kind != "eval":
        raise UserError(
            f"{store.id} is a {store.info.kind} run; `analyze` explains eval runs (evolve runs analyze their own)"
        )
    return store.records(Rollout, order_by="rowid")


def analyze_run(
    store: RunStore,
    rollouts: list[Rollout],
    model: str | None = None,
    all_splits: bool = False,
    on_rollout: Callable[[Rollout], None] | None = None,
) -> int:
    """Triage, explain and group `rollouts` of the eval run with its own settings (`model` names another analyzer);
    failures of dev and test tasks are only counted unless `all_splits`. Returns how many were only counted."""
    config_path = store.folder / "config.toml"
    config = (RunConfig.load(config_path) if config_path.is_file() else RunConfig()).with_options(
        {"models.analyzer.model": model}
    )
    suite = load_suite(config.tasks, seed=config.seed) if Path(config.tasks).is_dir() else None
    try:
        with LLM(config.run_models(rollout_workers(config)), store=store) as llm:
            FailureAnalysis(
                store, llm, config.failures, suite, explain=("train", "dev", "test") if all_splits else ("train",)
            ).process(rollouts, on_rollout=on_rollout)
    except ModelUnavailable as e:
        raise UserError(
            f"{e}; the failures analyzed so far are kept, `harness-evo analyze {store.id}` continues"
        ) from e
    return store.count(Failure, source="counted")
