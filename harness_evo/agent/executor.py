"""Run (task, trial) rollouts of a harness in parallel sandboxes, score them, and record them in the run.

A rollout is identified by (harness hash, task, trial, solver model): a result already in the run's
`rollouts` table is returned as it is and never paid for again. Infrastructure failures are recorded as
such (never as the agent's failure) and are tried again by a later `run` of the same keys; a rollout whose model
could not be reached (a local server that died) is tried once more at once. Where rollouts run is the runner's
business (`runners.py`): the executor, on this machine, alone writes the run folder.
"""

import hashlib
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from harness_evo.agent.runners import Broken, Job, LocalRunner, Runner
from harness_evo.agent.trajectory import Trajectory
from harness_evo.config import ExecutorConfig, ModelsConfig, RunConfig
from harness_evo.harness import Harness
from harness_evo.llm.llama import server_kind
from harness_evo.sandbox import SandboxBackend, get_backend
from harness_evo.store import LlmCall, Rollout, RunStore
from harness_evo.taskset import Suite, Task

ProgressCallback = Callable[[str, Rollout], None]
"""Called with ("started" | "finished" | "cached", the rollout), possibly from other threads."""
EMBEDDED_WORKERS = 3
"""Rollouts at once with an embedded solver on llama-server, by default."""


def rollout_workers(config: RunConfig) -> int:
    """`executor.workers`, or its default on this machine. An embedded solver on llama-server: EMBEDDED_WORKERS, one
    slot each (what bench/embedded_throughput.py measured fastest); on llama-cpp-python's server, which answers one call
    at a time and keeps only the last conversation's prompt evaluated, 1. Any other solver: 2."""
    if config.executor.workers:
        return config.executor.workers
    if config.agent == "model" and config.models.solver.model.startswith("local/"):
        return EMBEDDED_WORKERS if server_kind(config.models.embedded) == "llama-server" else 1
    return 2


def make_runner(
    settings: ExecutorConfig, backend: SandboxBackend, agent: str, llm, model: str, workers: int, run_id: str
) -> Runner:
    """The runner `settings.backend` names; a Ray cluster that cannot be reached is a UserError now."""
    if settings.backend == "ray":
        from harness_evo.agent.ray_runner import RayRunner  # Ray is an optional extra

        models: ModelsConfig | None = llm.models if agent == "model" else None
        return RayRunner(settings.address, backend.config, run_id, agent, models, model, workers)
    return LocalRunner(backend, agent, llm, model, workers)


def reach(settings: ExecutorConfig) -> None:
    """Fail now, in one line, when the executor's cluster cannot be reached: before a run folder is written."""
    if settings.backend == "ray":
        from harness_evo.agent.ray_runner import connect

        connect(settings.address)


@dataclass(frozen=True)
class Side:
    """A harness to run, and the node its rollouts are recorded under (None: none, as in `eval` and `compare`)."""

    harness: Harness
    node_id: str | None = None


def rollout_id(harness_hash: str, task_id: str, trial: int, model: str) -> str:
    return hashlib.sha256(f"{harness_hash}|{task_id}|{trial}|{model}".encode()).hexdigest()[:16]


class Executor:
    """Runs rollouts with up to `workers` sandboxes at once, where `cluster.backend` says (this machine, or a Ray
    cluster), and records them here; Ctrl-C closes every open sandbox and keeps what finished."""

    def __init__(
        self,
        store: RunStore,
        backend: SandboxBackend,
        suite: Suite,
        llm=None,
        workers: int = 2,
        agent: str = "model",
        on_progress: ProgressCallback | None = None,
        cluster: ExecutorConfig | None = None,
    ):
        self.store, self.backend, self.suite = store, backend, suite
        self.model = llm.models.solver.model if agent == "model" else agent
        self.on_progress = on_progress or (lambda kind, row: None)
        self.runner = make_runner(
            cluster or ExecutorConfig(), backend, agent, llm, self.model, workers, run_id=store.id
        )

    @classmethod
    def from_config(
        cls,
        store: RunStore,
        config: RunConfig,
        suite: Suite,
        llm=None,
        backend: SandboxBackend | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> "Executor":
        """The executor a run of `config` uses: its agent, its runner (`executor.backend`), `rollout_workers` at once,
        on `backend` (default: `sandbox`'s, for this run)."""
        backend = backend or get_backend(config.sandbox, run_id=store.id)
        return cls(store, backend, suite, llm, rollout_workers(config), config.agent, on_progress, config.executor)

    @property
    def stop(self) -> threading.Event:
        """Set once the executor is interrupted."""
        return self.runner.stop

    def run(
        self, harness: Harness, tasks: Iterable[Task], trials: int | Iterable[int], node_id: str | None = None
    ) -> list[Rollout]:
        """The rollouts of every (task, trial), in that order; finished ones come from the store. A harness that fails
        at run time raises its HarnessError."""
        trial_ids = list(range(trials)) if isinstance(trials, int) else list(trials)
        [rows], broken = self.run_each([(Side(harness, node_id), [(task, t) for task in tasks for t in trial_ids])])
        if broken:
            raise next(iter(broken.values()))
        return rows

    def run_each(self, work: Sequence[tuple[Side, Sequence[tuple[Task, int]]]]) -> tuple[list[list[Rollout]], Broken]:
        """The rollouts of each side's (task, trial) keys, one list per item of `work` in the order of its keys
        (finished ones come from the store), and the harnesses that failed at run time (by hash; their lists lack
        the keys they did not run). One queue runs every key not yet recorded, in the order of `work`, so a caller
        decides what runs first: `compare` queues trial by trial, every harness in each."""
        rows: list[list[str]] = []
        results: dict[str, Rollout] = {}
        todo: dict[str, Job] = {}
        node_ids: dict[str, str | None] = {}
        for side, keys in work:
            self.save_snapshot(side.harness)
            node_ids[side.harness.hash] = side.node_id
            rows.append([])
            for task, trial in keys:
                key = rollout_id(side.harness.hash, task.id, trial, self.model)
                rows[-1].append(key)
                if key in results or key in todo:
                    continue
                row = self.store.record(Rollout, key)
                if row and not row.infra:
                    results[key] = row
                    self.on_progress("cached", row)
                else:
                    todo[key] = Job(key, task, trial, side.harness)
        broken = self._run_all(list(todo.values()), node_ids, results) if todo else {}
        return [[results[key] for key in keys if key in results] for keys in rows], broken

    def _run_all(self, jobs: list[Job], node_ids: dict[str, str | None], results: dict[str, Rollout]) -> Broken:
        """Run `jobs`, adding each finished rollout to `results`; the harnesses that failed at run time."""
        rows = {
            job.key: Rollout(
                id=job.key,
                node_id=node_ids[job.harness.hash],
                harness_hash=job.harness.hash,
                task_id=job.task.id,
                split=self.suite.split_of(job.task.id),
                trial=job.trial,
                model=self.model,
            )
            for job in jobs
        }

        def started(job: Job) -> None:
            rows[job.key] = rows[job.key].model_copy(update={"started": time.time()})
            self.on_progress("started", rows[job.key])

        def finished(job: Job, trajectory: Trajectory, calls: list[LlmCall]) -> None:
            for call in calls:
                self.store.put(call)
            row = rows[job.key].model_copy(update=self._record(job.key, trajectory))
            self.store.put(row)
            results[job.key] = row
            self.on_progress("finished", row)

        return self.runner.run(jobs, started, finished)

    def interrupt(self) -> None:
        """Stop starting rollouts and close every open sandbox, so in-flight commands end now."""
        self.runner.interrupt()

    def _record(self, key: str, trajectory: Trajectory) -> dict:
        path = f"rollouts/{key}.json"
        self.store.write_json(path, trajectory.model_dump(mode="json"))
        return {
            "reward": trajectory.reward,
            "passed": trajectory.passed,
            "exit_reason": trajectory.exit_reason,
            "error": (trajectory.error or "").splitlines()[0][:300] if trajectory.error else None,
            "steps": len(trajectory.steps),
            "format_errors": trajectory.format_errors,
            "tokens_in": trajectory.tokens_in,
            "tokens_out": trajectory.tokens_out,
            "cost": trajectory.cost,
            "duration_s": round(trajectory.duration_s, 3),
            "calls": len(trajectory.steps),
            "cached_calls": sum(step.cached for step in trajectory.steps),
            "finished": time.time(),
            "trajectory": path,
        }

    def save_snapshot(self, harness: Harness) -> None:
        folder = self.store.folder / "harnesses" / harness.hash
        if not folder.exists():
            partial = folder.with_name(folder.name + ".partial")
            harness.save(partial)
            partial.rename(folder)
