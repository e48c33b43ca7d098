"""The loop's rollouts: runs a node's harness on tasks and trials through the executor (a key already recorded is not
paid again) and keeps each node's scores in the loop's state, which the search, the gate and the best node read."""

from collections.abc import Iterable, Sequence

from harness_evo import stats
from harness_evo.agent.executor import Executor, Side
from harness_evo.errors import HarnessError
from harness_evo.evolve.budget import Budget, BudgetExhausted
from harness_evo.evolve.nodes import Harnesses
from harness_evo.evolve.state import LoopState, NodeStats
from harness_evo.harness import Harness
from harness_evo.store import Rollout, RunStore
from harness_evo.taskset import Suite, Task


class Scorer:
    """Rollouts of the run's nodes and their scores; `dev` are the tasks nodes are scored on, `dev_trials` times."""

    def __init__(
        self,
        store: RunStore,
        executor: Executor,
        suite: Suite,
        state: LoopState,
        harnesses: Harnesses,
        budget: Budget,
        dev: list[Task],
        dev_trials: int,
    ):
        self.store, self.executor, self.suite, self.state, self.harnesses = store, executor, suite, state, harnesses
        self.budget, self.dev, self.dev_trials = budget, dev, dev_trials

    def run(
        self,
        node: str,
        tasks: Iterable[Task | str],
        trials: list[int],
        harness: Harness | None = None,
        split: str = "train",
    ) -> list[Rollout]:
        """Run (or fetch from the run's records) rollouts of a node and add them to its scores; BudgetExhausted when a
        budget is spent, before or (wall time) during them; a harness that fails at run time raises its HarnessError."""
        keys = [(task if isinstance(task, str) else task.id, trial) for task in tasks for trial in trials]
        [rows], broken = self.run_each([(node, harness, keys)], split)
        if broken:
            raise broken[node]
        return rows

    def run_each(
        self, requests: Sequence[tuple[str, Harness | None, Iterable[tuple[str, int]]]], split: str = "train"
    ) -> tuple[list[list[Rollout]], dict[str, HarnessError]]:
        """`run` for several nodes at once, each request (node, its harness or None for the run's, its (task id, trial)
        keys), in one queue in the order given: the rollouts of each request, and the nodes whose harness failed at
        run time (their lists lack the keys they did not run)."""
        self.budget.check()
        work = [
            (Side(harness or self.harnesses[node], node), [(self.suite.tasks[task], trial) for task, trial in keys])
            for node, harness, keys in requests
        ]
        ran, broken = self.executor.run_each(work)
        if self.executor.stop.is_set():
            raise BudgetExhausted(
                f"wall time reached ({self.budget.config.max_wall_s / 60:.0f} min) with rollouts in flight"
            )
        for (node, _, _), rows in zip(requests, ran):
            self.state.stats.setdefault(node, NodeStats()).add(rows, split)
            if node in self.state.nodes:
                self.state.put_node(self.store, node)
        return ran, {
            node: broken[side.harness.hash]
            for (node, _, _), (side, _) in zip(requests, work)
            if side.harness.hash in broken
        }

    def score_dev(self, node: str) -> None:
        """Score a harness on the dev tasks (once: its rollouts are recorded by key)."""
        if not self.state.stats.get(node, NodeStats()).dev:
            self.run(node, self.dev, list(range(self.dev_trials)), split="dev")

    def dev_difference(self, node: str, child: str) -> stats.Difference | None:
        """Child minus parent on the dev keys both scored (None when they share none)."""
        parent, other = self.state.stats[node].outcomes("dev"), self.state.stats[child].outcomes("dev")
        return stats.paired_on(parent, other) if parent.keys() & other.keys() else None

    def outcomes(self, node: str, split: str) -> dict[tuple[str, int], bool]:
        """(task, trial) -> passed, of a node's scored rollouts of `split` so far (from the loop's state)."""
        return self.state.stats[node].outcomes(split) if node in self.state.stats else {}

    def costs(self, node: str, split: str) -> dict[tuple[str, int], int]:
        """(task, trial) -> tokens, of a node's scored rollouts of `split` so far."""
        return self.state.stats[node].costs(split) if node in self.state.stats else {}

    def train_passes(self, nodes: Iterable[str] | None = None) -> list[tuple[str, bool]]:
        """(task id, passed) of every scored train rollout of `nodes` (default: every harness scored so far), from the
        loop's state rather than the store, so a resumed iteration sees what the interrupted one saw."""
        nodes = self.state.stats if nodes is None else nodes
        return [
            (task, passed)
            for node in nodes
            if node in self.state.stats
            for (task, _), passed in self.state.stats[node].outcomes("train").items()
        ]
