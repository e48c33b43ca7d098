"""A rollout: one (harness, task, trial, solver model) run in a sandbox and scored by the task's verifier."""

from collections.abc import Iterable
from typing import ClassVar, Literal

from harness_evo.store.record import Record

ExitReason = Literal[
    "done",  # the agent said it had finished
    "step_limit",  # it used all its replies
    "time_limit",  # the task's agent timeout ran out
    "context_limit",  # the conversation outgrew the model's context window
    "format_errors",  # too many replies in a row that could not be parsed
    "loop_guard",  # the loop guard ended it: commands kept repeating earlier ones with the same output
    "model_error",  # the model could not be reached or failed (not the harness's fault)
    "infra_error",  # image build, container death, verifier without a reward
    "interrupted",  # Ctrl-C or a stop of the run
]
INFRA_REASONS = ("infra_error", "model_error", "interrupted")
"""Exit reasons that say nothing about the harness: never analyzed as the agent's failures."""


def says_something(exit_reason: str | None, reward: float | None) -> bool:
    """Whether a rollout is scored: it has a reward and did not fail through no fault of the agent (infrastructure,
    model, interruption). The one place that decides it."""
    return reward is not None and exit_reason not in INFRA_REASONS


class Rollout(Record):
    """A row of `rollouts`."""

    event: ClassVar[str] = "rollout"
    table: ClassVar[str] = "rollouts"

    id: str
    """The rollout's key: a hash of (harness hash, task, trial, solver model)."""
    task_id: str
    split: str
    """train, dev or test: the task's split in the suite."""
    trial: int
    node_id: str | None = None
    """The tree node it was run for (None in an eval run)."""
    harness_hash: str | None = None
    model: str | None = None
    """The solver model (or `oracle`, `noop`)."""
    started: float | None = None
    finished: float | None = None
    """None while it runs."""
    exit_reason: ExitReason | None = None
    """How the agent's loop ended; None while it runs."""
    reward: float | None = None
    """The verifier's reward in [0, 1]; None when there was none."""
    passed: bool = False
    error: str | None = None
    """For infra and model errors: the first line of what failed."""
    steps: int = 0
    format_errors: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    """Dollars the solver's calls cost."""
    duration_s: float = 0.0
    calls: int = 0
    """The solver's replies (one model call each), those answered from the response cache included."""
    cached_calls: int = 0
    """Of those, the replies answered from the response cache (an identical request made before, by any harness): they
    take next to no time, so a rollout made mostly of them is fast without its harness being so."""
    trajectory: str | None = None
    """The trajectory's JSON file, relative to the run folder."""
    reused_from: str | None = None
    """The run it was copied from, when `compare` reused it."""

    @property
    def infra(self) -> bool:
        """It failed through no fault of the agent."""
        return self.exit_reason in INFRA_REASONS

    @property
    def scored(self) -> bool:
        """It says something about the harness (`says_something`)."""
        return says_something(self.exit_reason, self.reward)

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out


def scored_rewards(rows: Iterable[Rollout]) -> dict[tuple[str, int], float]:
    """(task, trial) -> reward of the rollouts among `rows` that are scored (`Rollout.scored`)."""
    return {(row.task_id, row.trial): row.reward for row in rows if row.scored}
