"""What happened in one rollout, step by step."""

from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from harness_evo.harness.features import Finding
from harness_evo.store.rollout import INFRA_REASONS, ExitReason, Rollout, says_something

if TYPE_CHECKING:
    from harness_evo.store import RunStore


class Step(BaseModel):
    """One model reply and what came of it."""

    index: int
    reply: str
    """The model's text."""
    action: str | None = None
    """The command parsed from the reply (None when it could not be parsed)."""
    output: str = ""
    """The command's output, as recorded (before the harness cuts it for the model)."""
    exit_code: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    """Wall time of the command."""
    model_s: float = 0.0
    """Wall time of the model call."""
    cached: bool = False
    """The reply came from the response cache (an identical request made before), not from the model."""
    tokens_in: int = 0
    tokens_out: int = 0
    format_error: str | None = None
    """Why the reply could not be run."""
    finished: bool = False
    """This step said the task was done."""


class Trajectory(BaseModel):
    """A whole rollout: the messages the model saw, every step, how it ended and what the verifier said."""

    task_id: str
    trial: int
    harness_hash: str
    model: str
    messages: list[dict] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)
    """Names of the worked examples the harness retrieved for the task into its prompts."""
    discovery: list[Finding] = Field(default_factory=list)
    """What workspace discovery found before the first reply (`[agent] discovery`), shown in the first prompt."""
    steps: list[Step] = Field(default_factory=list)
    exit_reason: ExitReason = "done"
    error: str | None = None
    """For infra and model errors: what failed."""
    retried: list[str] = Field(default_factory=list)
    """Why the rollout was started over before this run of it (a cluster node lost under it), one line each."""
    format_errors: int = 0
    confirmations: int = 0
    """Times the harness asked the agent to confirm it was done."""
    reward: float | None = None
    """The verifier's reward in [0, 1]; None when there was none."""
    verifier_output: str = ""
    duration_s: float = 0.0
    cost: float = 0.0

    @property
    def tokens_in(self) -> int:
        return sum(step.tokens_in for step in self.steps)

    @property
    def tokens_out(self) -> int:
        return sum(step.tokens_out for step in self.steps)

    @property
    def passed(self) -> bool:
        return self.reward is not None and self.reward >= 1.0

    @property
    def infra_failure(self) -> bool:
        return self.exit_reason in INFRA_REASONS

    @property
    def scored(self) -> bool:
        """It says something about the harness (`says_something`)."""
        return says_something(self.exit_reason, self.reward)


def stored(
    store: "RunStore", rollouts: Iterable[Rollout], read: dict[str, Trajectory] | None = None
) -> list[Trajectory]:
    """The trajectories recorded for `rollouts` (those whose file was written), in their order; `read` keeps the ones
    already read by rollout id (a finished rollout's trajectory does not change),
    so a later call reads only new ones."""
    read = {} if read is None else read
    found = []
    for rollout in rollouts:
        if rollout.id not in read:
            if not rollout.trajectory or not (store.folder / rollout.trajectory).is_file():
                continue
            read[rollout.id] = Trajectory.model_validate(store.read_json(rollout.trajectory))
        found.append(read[rollout.id])
    return found
