"""GEPA's adapter onto harness-evo: a GEPA candidate is a harness's components, evaluated by our executor.

`evaluate` runs each task of a batch once through `harness_evo.agent.executor.Executor` (so the same sandboxes,
response cache and run-store records as every harness-evo run) and scores it by the task's verifier. Every metric call
is one rollout paid for: a candidate evaluated again on a task gets that task's next trial, not the cached one, so
GEPA's `max_metric_calls` is a rollout budget. The trial counters are GEPA adapter state, saved in its checkpoint, so
a resumed GEPA run asks for the same trials again and finds them in the run store.

`make_reflective_dataset` gives GEPA's reflection what harness-evo's analyzer gets: the task's instruction and the
digested episode (the agent's commands and their outputs), with the verifier's verdict but not its output, which may
name the tests' expected answers. Components that do not load as a harness score 0 on every task of the batch.

It needs the `peer` extra (GEPA itself); `bench/peer_gepa.py` runs GEPA through it.
"""

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gepa import EvaluationBatch

from harness_evo.agent.executor import Executor
from harness_evo.agent.trajectory import Trajectory
from harness_evo.errors import HarnessError
from harness_evo.failures.digest import digest
from harness_evo.harness import Harness
from harness_evo.llm import LLM
from harness_evo.store import Rollout
from harness_evo.taskset import Task

WITHHELD = "(withheld from the optimizer: the tests' output may name their expected answers)"
"""What stands for the verifier's output in a digest GEPA's reflection reads."""


class ProposerLM:
    """GEPA's reflection LM: harness-evo's proposer role, so every reflection is a recorded `proposer` call."""

    def __init__(self, llm: LLM):
        self.llm = llm

    def __call__(self, prompt: str | list[dict[str, Any]]) -> str:
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
        return self.llm.complete("proposer", messages).text


class FileLog:
    """GEPA's logger: its progress lines go to a file of the run folder, not the terminal the table is printed on."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)

    def log(self, message: str) -> None:
        with self.path.open("a") as log:
            log.write(f"{message}\n")


class HarnessAdapter:
    """GEPA's `GEPAAdapter` over harness components (path -> text) and our tasks."""

    propose_new_texts = None
    """GEPA's own reflection proposes the new texts (through `ProposerLM`)."""

    def __init__(self, executor: Executor, token_budget: int):
        self.executor = executor
        self.token_budget = token_budget
        """Most tokens of one digested episode in a reflective dataset (`failures.trace_token_budget`)."""
        self.trials: Counter[str] = Counter()
        """Rollouts run so far per "harness hash|task id": the next one's trial number."""

    def evaluate(self, batch: list[Task], candidate: dict[str, str], capture_traces: bool = False) -> EvaluationBatch:
        """One fresh rollout of the candidate per task; the verifier's reward is the score."""
        try:
            harness = Harness(candidate)
            rows = self.run(harness, batch)
        except HarnessError as e:
            traces = [
                {"instruction": task.instruction, "episode": "", "verdict": f"the harness did not load: {e}"}
                for task in batch
            ]
            return EvaluationBatch(
                outputs=[None] * len(batch), scores=[0.0] * len(batch), trajectories=traces if capture_traces else None
            )
        scores = [row.reward if row.scored else 0.0 for row in rows]
        traces = [self.trace(task, row) for task, row in zip(batch, rows)] if capture_traces else None
        return EvaluationBatch(outputs=[row.id for row in rows], scores=scores, trajectories=traces)

    def run(self, harness: Harness, batch: list[Task]) -> list[Rollout]:
        """The rollouts of `batch` in its order, each task on its next trial (tasks on the same trial run together)."""
        planned = []
        for task in batch:
            key = f"{harness.hash}|{task.id}"
            planned.append((task, self.trials[key]))
            self.trials[key] += 1
        by_trial: dict[int, list[Task]] = defaultdict(list)
        for task, trial in planned:
            by_trial[trial].append(task)
        rows = {
            (row.task_id, row.trial): row
            for trial, tasks in sorted(by_trial.items())
            for row in self.executor.run(harness, tasks, [trial], node_id=harness.hash)
        }
        return [rows[task.id, trial] for task, trial in planned]

    def trace(self, task: Task, row: Rollout) -> dict[str, str]:
        """What the reflection reads of one rollout: the instruction, the digested episode and the verdict."""
        if not row.scored:
            return {
                "instruction": task.instruction,
                "episode": "",
                "verdict": f"not scored: {row.error or row.exit_reason}",
            }
        trajectory = Trajectory.model_validate(self.executor.store.read_json(row.trajectory))
        episode = digest(trajectory.model_copy(update={"verifier_output": WITHHELD}), self.token_budget)
        verdict = (
            "passed: the task's tests accepted the result"
            if row.passed
            else (f"failed: the task's tests gave reward {row.reward:g} of 1")
        )
        return {"instruction": task.instruction, "episode": episode, "verdict": verdict}

    def make_reflective_dataset(
        self, candidate: dict[str, str], eval_batch: EvaluationBatch, components_to_update: list[str]
    ) -> Mapping[str, Sequence[Mapping[str, Any]]]:
        """The same records for every component to update: one per rollout of the batch."""
        records = [
            {
                "Task instruction": trace["instruction"],
                "What the agent did": trace["episode"] or "(nothing ran)",
                "Verdict": trace["verdict"],
            }
            for trace in eval_batch.trajectories or []
        ]
        return {component: records for component in components_to_update}

    def get_adapter_state(self) -> dict[str, Any]:
        return {"trials": dict(self.trials)}

    def set_adapter_state(self, state: dict[str, Any]) -> None:
        """Restore the trial counters of a checkpoint (never below what this process has already run)."""
        for key, count in state.get("trials", {}).items():
            self.trials[key] = max(self.trials[key], count)
