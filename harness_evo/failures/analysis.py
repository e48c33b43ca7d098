"""The one entry the evolution loop and `harness-evo analyze` call after rollouts: triage, explain, aggregate."""

from collections.abc import Callable, Iterable
from typing import Any

from harness_evo.config import FailuresConfig
from harness_evo.failures.aggregate import Aggregator, pattern_number
from harness_evo.failures.analyzer import Analyzer
from harness_evo.failures.queries import instruction_of, load_trajectory
from harness_evo.failures.triage import triage
from harness_evo.llm import LLM
from harness_evo.store import RunStore
from harness_evo.taskset import Suite


class FailureAnalysis:
    """Turns failed rollouts into failure rows and patterns in the run's store.

    Only failures of the `explain` splits (train) are explained and grouped into patterns; the others (dev, test)
    are counted: a failure row with its split and no analysis, so nothing about them reaches the proposer.
    A rollout already in `failures` is skipped, so a run resumed after a crash pays nothing twice.
    """

    def __init__(self, store: RunStore, llm: LLM, config: FailuresConfig, suite: Suite | None = None,
                 explain: Iterable[str] = ("train",)):
        self.store = store
        self.config = config
        self.suite = suite
        self.explain = set(explain)
        self.analyzer = Analyzer(llm, config.trace_token_budget)
        self.aggregator = Aggregator(store, llm, config)

    def process(self, rollouts: list[dict[str, Any]], on_rollout: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
        """Analyze the failed rollouts among `rollouts`; the patterns that changed, as rows."""
        changed = self.aggregator.settle()
        done = {row["rollout_id"] for row in self.store.rows("failures")}
        for rollout in rollouts:
            if not rollout.get("passed") and rollout["id"] not in done and self.examine(rollout):
                changed |= self.aggregator.settle()
            done.add(rollout["id"])
            if on_rollout:
                on_rollout(rollout)
        return [self.store.get("patterns", pattern_id) for pattern_id in sorted(changed, key=pattern_number)]

    def resolve(self, node_ids: list[str], task_ids: list[str]) -> list[dict[str, Any]]:
        """After `task_ids` were re-run on `node_ids` (and processed): the patterns that did not recur, now resolved."""
        changed = self.aggregator.resolve(node_ids, task_ids) | self.aggregator.settle()
        return [self.store.get("patterns", pattern_id) for pattern_id in sorted(changed, key=pattern_number)]

    def examine(self, rollout: dict[str, Any]) -> dict[str, Any] | None:
        """Write the failure row of one failed rollout (None when there is nothing to explain, e.g. interrupted)."""
        trajectory = load_trajectory(self.store, rollout)
        found = triage(rollout, trajectory, self.config.loop_repeats)
        if found is None:
            return None
        task_id = rollout["task_id"]
        split = rollout.get("split") or (self.suite.split_of(task_id) if self.suite else "train")
        row = {"id": rollout["id"], "rollout_id": rollout["id"], "task_id": task_id, "node_id": rollout.get("node_id"),
               "split": split, "trial": rollout.get("trial"), "exit_reason": trajectory.exit_reason, "infra": found.infra,
               "ts": rollout.get("finished") or rollout.get("started") or 0.0}
        if split not in self.explain:
            row |= {"source": "counted", "category": None}
        else:
            if found.final:
                record, source, error = found.record, "triage", None
            else:
                task = self.suite.tasks.get(task_id) if self.suite else None
                instruction = task.instruction if task else instruction_of(trajectory)
                record, source, error = self.analyzer.explain(instruction, trajectory, found)
            row |= {"source": source, **record.model_dump(), "signature": record.signature, "analyzer_error": error}
        self.store.emit("failure", row)
        return row
