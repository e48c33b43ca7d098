"""One rollout in a fresh sandbox: the agent acts, the verifier scores;
the same code on this machine or a cluster node."""

import threading
import time

from harness_evo.agent.agents import Agent, Interrupted, ModelAgent, NoopAgent, OracleAgent, SolutionAgent
from harness_evo.agent.trajectory import Trajectory
from harness_evo.agent.verify import verify
from harness_evo.errors import InfraError
from harness_evo.harness import Harness
from harness_evo.llm import ModelUnavailable
from harness_evo.sandbox import Sandbox, SandboxBackend
from harness_evo.taskset import Task

AGENTS = {
    "model": lambda llm, stop: ModelAgent(llm, stop),
    "oracle": lambda llm, stop: OracleAgent(),
    "solution": lambda llm, stop: SolutionAgent(),
    "noop": lambda llm, stop: NoopAgent(),
}
"""`agent` config name -> the agent, given the model layer and the stop event."""


class Attempts:
    """Runs rollouts of one agent in sandboxes of one backend; `interrupt` closes every open sandbox, so in-flight
    commands end now, and no rollout starts after it."""

    def __init__(self, backend: SandboxBackend, agent: str = "model", llm=None, model: str = "model"):
        self.backend, self.model = backend, model
        self.stop = threading.Event()
        self.agent: Agent = AGENTS[agent](llm, self.stop)
        self._open: set[Sandbox] = set()
        self._lock = threading.Lock()

    def rollout(self, harness: Harness, task: Task, trial: int) -> Trajectory | None:
        """The scored trajectory, its duration set; a rollout whose model server died is tried once more at once.
        None when interrupted."""
        clock = time.monotonic()
        trajectory = self._attempt(harness, task, trial)
        if trajectory is not None and trajectory.exit_reason == "model_error":
            trajectory = self._attempt(harness, task, trial)
        if trajectory is None or self.stop.is_set():
            return None
        trajectory.duration_s = time.monotonic() - clock
        return trajectory

    def _attempt(self, harness: Harness, task: Task, trial: int) -> Trajectory | None:
        """One run of the agent in a fresh sandbox, scored; None when interrupted."""
        if self.stop.is_set():
            return None
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

    def interrupt(self) -> None:
        self.stop.set()
        with self._lock:
            sandboxes = list(self._open)
        for sandbox in sandboxes:
            sandbox.close()
