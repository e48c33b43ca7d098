"""What a gate or a race decided, with the evidence each candidate had, the keys chosen and why, and what it spent."""

from enum import StrEnum

from pydantic import BaseModel, Field

from harness_evo.store.gate import KeyChoice, Verdict


class Stop(StrEnum):
    """Why a candidate's gate stopped."""

    ACCEPTED = "accepted"
    """Its e-value reached 1/alpha (alpha split over a race's candidates)."""
    CHEAPER = "cheaper"
    """Accepted at no loss of passes for costing fewer tokens (`EvidenceConfig.cost_alpha`)."""
    FUTILE = "futile"
    """It could not plausibly reach 1/alpha within the rollouts left."""
    HARMFUL = "harmful"
    """Its mirrored e-value (broken against fixed pairs) reached 1/harm_alpha."""
    PROTECTED = "protected"
    """It lost a protected task."""
    OUTRACED = "outraced"
    """Another candidate of the race beat it on the keys both ran, or was accepted."""
    SPENT = "spent"
    """The budget or the tasks' trials ran out before the evidence was decisive."""
    BROKEN = "broken"
    """Its harness failed to run."""
    INTERRUPTED = "interrupted"
    """The run stopped (a budget of the run ran out) while it was still being measured: not a verdict; a resumed run
    measures it again from its recorded pairs."""


class GateVerdict(BaseModel):
    """One candidate's verdict and the evidence it was reached on."""

    candidate: str
    """The candidate's id."""
    accepted: bool = False
    stop: Stop
    """Why its gate stopped."""
    reason: str
    """Why, in a sentence for the ledger."""
    fixed: int = 0
    """Tested pairs the child scored higher on (the pairs of the tasks the edit is for; see sequential.py)."""
    broken: int = 0
    """Tested pairs the child scored lower on."""
    ties: int = 0
    """Tested pairs both sides scored alike."""
    looks: int = 0
    """Looks the candidate took part in."""
    e_value: float = 1.0
    """The mixture e-value of fixed against broken pairs when it stopped."""
    threshold: float
    """The e-value that accepts: 1/alpha, alpha split over a race."""
    harm_e_value: float = 1.0
    """The mirrored e-value (broken against fixed pairs)."""
    rollouts: int = 0
    """The child's rollouts."""
    tasks: list[str] = Field(default_factory=list)
    """Tasks it was paired on."""
    cheaper: int = 0
    """Pairs whose child rollout cost fewer tokens than the parent's (every pair whose costs are known)."""
    dearer: int = 0
    """Pairs whose child rollout cost more tokens."""
    cost_e_value: float = 1.0
    """The mixture e-value of cheaper against dearer pairs."""
    cost_threshold: float | None = None
    """The e-value of cheaper against dearer pairs that accepts: 1/cost_alpha, split over a race (None: passes alone
    decide)."""

    @property
    def level(self) -> float:
        """The chance that the gate accepts an edit that changes nothing: alpha, plus cost_alpha when costs decide
        too."""
        return 1 / self.threshold + (1 / self.cost_threshold if self.cost_threshold else 0.0)

    @property
    def pairs(self) -> int:
        return self.fixed + self.broken + self.ties

    @property
    def p_value(self) -> float:
        """1/e: a p-value valid at whatever look the gate stopped (at most 1)."""
        return min(1.0, 1 / self.e_value)

    def verdict(self) -> Verdict:
        """As the ledger's verdict records it."""
        return Verdict(
            accepted=self.accepted,
            fixed=self.fixed,
            broken=self.broken,
            ties=self.ties,
            p_value=self.p_value,
            reason=self.reason,
        )


Choice = KeyChoice
"""A key a look chose, and why its task was chosen (the ledger's record of it)."""


class Spend(BaseModel):
    """Rollouts a decision paid for."""

    parent: int = 0
    """Fresh parent rollouts (keys its pool lacked)."""
    children: dict[str, int] = Field(default_factory=dict)
    """Each candidate's rollouts."""

    @property
    def total(self) -> int:
        return self.parent + sum(self.children.values())


class Decision(BaseModel):
    """A gate's or a race's outcome: one verdict per candidate (at most one accepted), the keys chosen, the spend."""

    verdicts: list[GateVerdict]
    choices: list[Choice] = Field(default_factory=list)
    spend: Spend = Field(default_factory=Spend)

    @property
    def accepted(self) -> GateVerdict | None:
        return next((verdict for verdict in self.verdicts if verdict.accepted), None)
