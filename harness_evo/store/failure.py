"""A failure row: why one failed rollout failed, or for a split that is not explained, that it failed."""

from typing import ClassVar, Literal

from harness_evo.store.record import Record


class Failure(Record):
    """A row of `failures` (its analysis fields are those of `failures.FailureRecord`, None for a counted failure)."""

    event: ClassVar[str] = "failure"
    table: ClassVar[str] = "failures"

    id: str
    """The rollout's id."""
    rollout_id: str
    task_id: str
    node_id: str | None = None
    split: str = "train"
    trial: int | None = None
    exit_reason: str | None = None
    infra: bool = False
    """It failed through no fault of the agent: never a target."""
    ts: float = 0.0
    """When the rollout finished."""
    source: Literal["triage", "analyzer", "analyzer-failed", "counted"] = "counted"
    """Who explained it: the rules (`triage`), the analyzer model (`analyzer-failed`: the triage's record stood in for
    its answer), or no one (`counted`: a failure of a split that is not explained)."""
    category: str | None = None
    pattern: str | None = None
    root_cause: str | None = None
    critical_step: int | None = None
    evidence: str | None = None
    blame: str | None = None
    confidence: float | None = None
    signature: str | None = None
    analyzer_error: str | None = None
    """Why the analyzer's answer was not used, when the triage's guess stood in for it."""

    @property
    def explained(self) -> bool:
        return self.source != "counted"
