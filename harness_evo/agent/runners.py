"""Where rollouts run: the Runner protocol and the local runner (threads of this process); the Ray runner is
ray_runner.py, and the executor picks one by `[executor] backend` (`executor.make_runner`).

A runner only runs rollouts and hands back what each produced; the executor, on this machine, records them.
"""

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Protocol

from harness_evo.agent.attempt import Attempts
from harness_evo.agent.trajectory import Trajectory
from harness_evo.errors import HarnessError
from harness_evo.harness import Harness
from harness_evo.sandbox import SandboxBackend
from harness_evo.store import LlmCall
from harness_evo.taskset import Task


@dataclass(frozen=True)
class Job:
    """One rollout to run: its key in the run's `rollouts` table, the task, the trial and the harness."""

    key: str
    task: Task
    trial: int
    harness: Harness = field(compare=False)


Started = Callable[[Job], None]
Finished = Callable[[Job, Trajectory, list[LlmCall]], None]
"""Called with a job, its scored trajectory, and the model calls made where it ran that the run has not recorded yet."""


class Runner(Protocol):
    stop: threading.Event
    """Set once the runner is interrupted."""

    def run(self, jobs: list[Job], started: Started, finished: Finished) -> None:
        """Run every job, at most the configured number at once and starting them in their order, calling `started`
        and then `finished` for each. An interrupted job is neither. A HarnessError (a job's harness itself is broken)
        stops the rest and is raised."""
        ...

    def interrupt(self) -> None:
        """Start no job; end the running ones now, leaving no sandbox behind. Safe from any thread."""
        ...


class LocalRunner:
    """Rollouts in threads of this process, up to `workers` sandboxes at once."""

    def __init__(self, backend: SandboxBackend, agent: str, llm, model: str, workers: int):
        self.attempts = Attempts(backend, agent, llm, model)
        self.stop = self.attempts.stop
        self.workers = max(1, workers)

    def run(self, jobs: list[Job], started: Started, finished: Finished) -> None:
        def one(job: Job) -> None:
            if self.stop.is_set():
                return
            started(job)
            if (trajectory := self.attempts.rollout(job.harness, job.task, job.trial)) is not None:
                finished(job, trajectory, [])  # the model layer of this process recorded its calls

        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="rollout")
        try:
            pending = {pool.submit(one, job) for job in jobs}
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    future.result()
        except HarnessError:
            pool.shutdown(wait=True, cancel_futures=True)  # the harness itself is broken: the rest would fail alike
            raise
        except BaseException:
            # Rollouts in flight may be waiting on a model call: don't wait for them, their results are discarded.
            self.interrupt()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)

    def interrupt(self) -> None:
        self.attempts.interrupt()
