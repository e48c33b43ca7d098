"""The input-conditioning gauge of some rollouts, as the run records it (measured by `failures/gauge.py`)."""

from typing import ClassVar

from pydantic import BaseModel, Field

from harness_evo.store.record import Record


class Measure(BaseModel):
    """One measure and the rollouts it stands on (None when too few do)."""

    value: float | None = None
    n: int = 0


class Conditioning(BaseModel):
    """The gauge of some rollouts: how much the agent's actions depend on the task it was given."""

    rollouts: int = 0
    """Rollouts measured."""
    identifiability: Measure = Measure()
    """Share of rollouts whose nearest other rollout is of the same task (of tasks with at least two rollouts)."""
    chance: float | None = None
    """The share a random other rollout would give, over the same rollouts."""
    dependence: Measure = Measure()
    """Normalised mutual information between task category and the programs run (None with fewer than two
    categories)."""
    categories: int = 0
    template: Measure = Measure()
    """Share of rollouts whose opening also opens a rollout of another category."""

    def compact(self) -> str:
        """`id 0.92/0.10 dep 0.61 tpl 0.20 n24`: identifiability over chance, dependence, template share, rollouts."""

        def number(value: float | None) -> str:
            return "-" if value is None else f"{value:.2f}"

        chance = f"/{number(self.chance)}" if self.identifiability.value is not None else ""
        return (
            f"id {number(self.identifiability.value)}{chance} dep {number(self.dependence.value)} "
            f"tpl {number(self.template.value)} n{self.rollouts}"
        )


class Drop(BaseModel):
    """The gauge of the parent's and the child's gate rollouts on the keys both scored,
    and what fell beyond the margin."""

    parent: Conditioning
    child: Conditioning
    fell: list[str] = Field(default_factory=list)
    """One phrase per measure that fell by more than the margin (`task identifiability 0.95 -> 0.12 (chance 0.09)`)."""

    def sentence(self) -> str:
        return f"the agent reads the task less: {'; '.join(self.fell)} over {self.child.rollouts} paired gate rollouts"


class NodeGauge(Conditioning, Record):
    """The gauge of one node's scored rollouts of one split, as a row of `conditioning` (`id` is `node/split`)."""

    event: ClassVar[str] = "conditioning"
    table: ClassVar[str] = "conditioning"

    id: str
    node_id: str
    split: str
    scored: int = 0
    """The node's scored rollouts of the split when it was measured: it is measured again when it has more."""
