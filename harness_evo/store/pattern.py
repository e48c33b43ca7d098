"""A failure pattern: failures of the same defect across tasks, with their support, blame and status; and a member."""

from enum import StrEnum
from typing import ClassVar

from pydantic import Field

from harness_evo.store.record import Record


class PatternStatus(StrEnum):
    """A pattern's status, in the order patterns are listed (`Pattern.order`)."""

    PROMOTED = "promoted"  # seen on enough train tasks, mostly blamed on the harness: an evolution target
    RESOLVED = "resolved"  # its tasks were re-run on a node without recurring
    CANDIDATE = "candidate"  # not (yet) enough support or harness blame
    RETIRED = "retired"  # merged into an older pattern

    @property
    def live(self) -> bool:
        """Still gathers members (a retired pattern's went to the one it was merged into)."""
        return self is not PatternStatus.RETIRED


class Pattern(Record):
    """A row of `patterns`."""

    event: ClassVar[str] = "pattern"
    table: ClassVar[str] = "patterns"

    id: str
    """`P{n}`, numbered in the order patterns were opened."""
    description: str = ""
    """The defect in general words (its founding failure's)."""
    category: str | None = None
    """The failure category of its founding failure (see `failures/record.py`)."""
    signature: str = ""
    """Its founding failure's signature."""
    signatures: list[str] = Field(default_factory=list)
    """Every signature among its members."""
    status: PatternStatus = PatternStatus.CANDIDATE
    infra: bool = False
    """Infrastructure failures: reported, never a target."""
    compared: bool = False
    """The model was asked whether it is the same as its close calls."""
    verified: bool = False
    """The model checked that its signatures belong together before it was promoted."""
    separate_from: list[str] = Field(default_factory=list)
    """Patterns the model kept apart from it."""
    merged_into: str | None = None
    """The pattern it was retired into."""
    split_from: str | None = None
    """The pattern it was split off."""
    support: int = 0
    """Distinct tasks of its members."""
    task_ids: list[str] = Field(default_factory=list)
    members: int = 0
    """Member failures."""
    node_ids: list[str] = Field(default_factory=list)
    """Nodes its members failed on."""
    harness_blame: float = 0.0
    """Share of its members blamed on the harness."""
    breadth: float = 0.0
    """Its support over the tasks run of the splits explained."""
    first_seen: float | None = None
    last_seen: float | None = None
    resolved_at: float | None = None
    """`last_seen` when it was resolved: a member after it revives the pattern."""
    severity: float | None = None
    """phi components the model scored when it was promoted (None before)."""
    fixability: float | None = None
    side_effect_risk: float | None = None
    score_reason: str | None = None

    @property
    def number(self) -> int:
        return int(self.id.lstrip("P"))

    @property
    def order(self) -> tuple[int, int, int]:
        """The one order patterns are listed in: promoted, resolved, candidate, retired; then by support, then age."""
        return list(PatternStatus).index(self.status), -self.support, self.number


class PatternMember(Record):
    """A row of `pattern_members`: a failure's place in a pattern."""

    event: ClassVar[str] = "pattern_member"
    table: ClassVar[str] = "pattern_members"

    failure_id: str
    pattern_id: str
    rollout_id: str
    task_id: str
    node_id: str | None = None
    split: str = "train"
