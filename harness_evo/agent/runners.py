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


Broken = dict[str, HarnessError]
"""Harness hash -> the error of a harness that failed at run time (the harness itself is broken); its other jobs are not
run."""
Started = Callable[[Job], None]
Finished = Callable[[Job, Trajectory, list[LlmCall]], None]
"""Called with a job, its scored trajectory, and the model calls made where it ran that the run has not recorded yet."""


class Runner(Protocol):
    stop: threading.Event
    """Set once the runner is interrupted."""

    def run(self, jobs: list[Job], started: Started, finished: Finished) -> Broken:
        """Run every job, at most the configured number at once and starting them in their order, calling `started`
        and then `finished` for each. An interrupted job is neither. A job whose harness raises HarnessError (the
        harness itself is broken) stops that harness's other jobs, not the others'; returns the broken harnesses."""
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

    def run(self, jobs: list[Job], started: Started, finished: Finished) -> Broken:
        broken: Broken = {}

        def one(job: Job) -> None:
            if self.stop.is_set() or job.harness.hash in broken:
                return
            started(job)
            try:
                trajectory = self.attempts.rollout(job.harness, job.task, job.trial)
            except HarnessError as e:
                broken.setdefault(job.harness.hash, e)  # its other jobs would fail alike
                return
            if trajectory is not None:
                finished(job, trajectory, [])  # the model layer of this process recorded its calls

        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="rollout")
        try:
            pending = {pool.submit(one, job) for job in jobs}
            while pending:
                done, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                for future in done:
                    future.result()
        except BaseException:
            # Rollouts in flight may be waiting on a model call: don't wait for them, their results are discarded.
            self.interrupt()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return broken

    def interrupt(self) -> None:
        self.attempts.interrupt()
