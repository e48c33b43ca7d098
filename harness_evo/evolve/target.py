"""What an iteration's edit is aimed at: a promoted failure pattern, or for a harvest the train tasks it took
examples from. The proposer, the critic and the gate read it; templates see its fields as `pattern`."""

from pydantic import BaseModel, Field

from harness_evo.standins import MissingProgram
from harness_evo.store import Pattern


class Target(BaseModel):
    id: str | None = None
    """The pattern's id; None for a harvest, which answers no pattern."""
    description: str
    """The defect in general words (or what a harvest adds)."""
    category: str | None = None
    """The pattern's failure category (see `failures/record.py`)."""
    support: int = 0
    """Distinct train tasks the pattern was seen on (or a harvest's source tasks)."""
    harness_blame: float | None = None
    """Share of the pattern's failures blamed on the harness."""
    task_ids: list[str] = Field(default_factory=list)
    """The tasks of the pattern, which the gate measures first (for a harvest: the tasks whose retrieved examples
    change)."""
    missing_programs: dict[str, MissingProgram] = Field(default_factory=dict)
    """Programs the pattern's failures ran without their being installed."""
    sources: list[str] = Field(default_factory=list)
    """Train tasks an edit's examples came from: the gate never measures it there."""

    @classmethod
    def of(cls, pattern: Pattern, missing_programs: dict[str, MissingProgram]) -> "Target":
        """The target of a pattern of the store, with the programs its failures missed."""
        return cls(
            id=pattern.id,
            description=pattern.description,
            category=pattern.category,
            support=pattern.support,
            harness_blame=pattern.harness_blame,
            task_ids=pattern.task_ids,
            missing_programs=missing_programs,
        )
