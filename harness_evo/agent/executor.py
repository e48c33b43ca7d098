"""Run (task, trial) rollouts of a harness in parallel sandboxes, score them, and record them in the run.

A rollout is identified by (harness hash, task, trial, solver model): a result already in the run's
`rollouts` table is returned as it is and never paid for again. Infrastructure failures are recorded as
such (never as the agent's failure) and are tried again by a later `run` of the same keys; a rollout whose model
could not be reached (a local server that died) is tried once more at once.
"""

import hashlib
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from harness_evo.agent.agents import Agent, Interrupted, ModelAgent, NoopAgent, OracleAgent, SolutionAgent
from harness_evo.agent.trajectory import Trajectory
from harness_evo.agent.verify import verify
from harness_evo.errors import HarnessError, InfraError
from harness_evo.harness import Harness
from harness_evo.llm import ModelUnavailable
from harness_evo.sandbox import Sandbox, SandboxBackend
from harness_evo.store import Rollout, RunStore
from harness_evo.taskset import Suite, Task

ProgressCallback = Callable[[str, Rollout], None]
"""Called with ("started" | "finished" | "cached", the rollout) from worker threads."""


def rollout_id(harness_hash: str, task_id: str, trial: int, model: str) -> str:
    return hashlib.sha256(f"{harness_hash}|{task_id}|{trial}|{model}".encode()).hexdigest()[:16]


class Executor:
    """Runs rollouts with up to `workers` sandboxes at once; Ctrl-C closes every open sandbox and keeps what finished."""

    def __init__(self, store: RunStore, backend: SandboxBackend, suite: Suite, llm=None, workers: int = 2,
                 agent: str = "model", on_progress: ProgressCallback | None = None):
        self.store, self.backend, self.suite = store, backend, suite
        self.workers = max(1, workers)
        self.stop = threading.Event()
        self.agent: Agent = {"model": lambda: ModelAgent(llm, self.stop), "oracle": OracleAgent, "solution": SolutionAgent,
                             "noop": NoopAgent}[agent]()
        self.model = llm.models.solver.model if agent == "model" else agent
        self.on_progress = on_progress or (lambda kind, row: None)
        self._open: set[Sandbox] = set()
        self._lock = threading.Lock()

    def run(self, harness: Harness, tasks: Iterable[Task], trials: int | Iterable[int], node_id: str | None = None) -> list[Rollout]:
        """The rollouts of every (task, trial), in that order; finished ones come from the store."""
        trial_ids = list(range(trials)) if isinstance(trials, int) else list(trials)
        keys = [(task, trial) for task in tasks for trial in trial_ids]
        self.save_snapshot(harness)
        results: dict[str, Rollout] = {}
        todo = []
        for task, trial in keys:
            key = rollout_id(harness.hash, task.id, trial, self.model)
            row = self.store.record(Rollout, key)
            if row and not row.infra:
                results[key] = row
                self.on_progress("cached", row)
            else:
                todo.append((key, task, trial))
        if todo:
            results.update(self._run_all(harness, todo, node_id))
        return [results[rollout_id(harness.hash, task.id, trial, self.model)] for task, trial in keys
                if rollout_id(harness.hash, task.id, trial, self.model) in results]

    def _run_all(self, harness: Harness, todo: list[tuple[str, Task, int]], node_id: str | None) -> dict[str, Rollout]:
        results = {}
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="rollout")
        futures: dict[Future, str] = {pool.submit(self._rollout, harness, task, trial, key, node_id): key for key, task, trial in todo}
        try:
            pending = set(futures)
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    row = future.result()
                    if row is not None:
                        results[futures[future]] = row
        except HarnessError:
            pool.shutdown(wait=True, cancel_futures=True)  # the harness itself is broken: the rest would fail alike
            raise
        except BaseException:
            # Rollouts in flight may be waiting on a model call: don't wait for them, their results are discarded.
            self.interrupt()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return results

    def interrupt(self) -> None:
        """Stop starting rollouts and close every open sandbox, so in-flight commands end now."""
        self.stop.set()
        with self._lock:
            sandboxes = list(self._open)
        for sandbox in sandboxes:
            sandbox.close()

    def _rollout(self, harness: Harness, task: Task, trial: int, key: str, node_id: str | None) -> Rollout | None:
        if self.stop.is_set():
            return None
        row = Rollout(id=key, node_id=node_id, harness_hash=harness.hash, task_id=task.id, split=self.suite.split_of(task.id),
                      trial=trial, model=self.model, started=time.time())
        self.on_progress("started", row)
        clock = time.monotonic()
        trajectory = self._attempt(harness, task, trial)
        if trajectory is not None and trajectory.exit_reason == "model_error":  # a model server that died starts again
            trajectory = self._attempt(harness, task, trial)
        if trajectory is None or self.stop.is_set():
            return None
        trajectory.duration_s = time.monotonic() - clock
        row = row.model_copy(update=self._record(key, trajectory))
        self.store.put(row)
        self.on_progress("finished", row)
        return row

    def _attempt(self, harness: Harness, task: Task, trial: int) -> Trajectory | None:
        """One run of the agent in a fresh sandbox, scored; None when interrupted."""
        trajectory = Trajectory(task_id=task.id, trial=trial, harness_hash=harness.hash, model=self.model)
        try:
            self.backend.prepare(task)
            sandbox = self.backend.open(task)
            with self._lock:
                self._open.add(sandbox)
            try:
                if self.stop.is_set():  # interrupted while the sandbox was made: `interrupt` did not see it
                    return None
                self.agent.run(harness, task, sandbox, trajectory)
                if self.stop.is_set():
                    return None
                trajectory.reward, trajectory.verifier_output = verify(task, sandbox)
            finally:
                with self._lock:
                    self._open.discard(sandbox)
                sandbox.close()
        except Interrupted:
            return None
        except ModelUnavailable as e:
            trajectory.exit_reason, trajectory.error = "model_error", str(e)
        except InfraError as e:
            trajectory.exit_reason, trajectory.error = "infra_error", str(e)
        return trajectory

    def _record(self, key: str, trajectory: Trajectory) -> dict:
        path = f"rollouts/{key}.json"
        self.store.write_json(path, trajectory.model_dump(mode="json"))
        return {
            "reward": trajectory.reward, "passed": trajectory.passed, "exit_reason": trajectory.exit_reason,
            "error": (trajectory.error or "").splitlines()[0][:300] if trajectory.error else None,
            "steps": len(trajectory.steps), "format_errors": trajectory.format_errors,
            "tokens_in": trajectory.tokens_in, "tokens_out": trajectory.tokens_out, "cost": trajectory.cost,
            "duration_s": round(trajectory.duration_s, 3), "finished": time.time(), "trajectory": path,
        }

    def save_snapshot(self, harness: Harness) -> None:
        folder = self.store.folder / "harnesses" / harness.hash
        if not folder.exists():
            partial = folder.with_name(folder.name + ".partial")
            harness.save(partial)
            partial.rename(folder)
