"""What the gate decided on an edit (`evolve/acceptance.py` decides, `evolve/gate.py` chooses the keys), as the ledger
records it."""

from pydantic import BaseModel, Field

from harness_evo.store.gauge import Drop


class Verdict(BaseModel):
    """What the gate decided, with the counts it decided on and a sentence for the user."""

    accepted: bool = False
    """The child replaces its parent (a verdict that says nothing more is a rejection)."""
    fixed: int = 0
    """Pairs the child scored higher on."""
    broken: int = 0
    """Pairs the child scored lower on."""
    ties: int = 0
    p_value: float | None = None
    """One-sided sign-test p-value of "the child is no better" (None when no pair differs or the rule has none)."""
    reason: str = ""
    """Why, in a sentence for the user."""
    undecided: bool = False
    """True when more pairs could still accept: the child is ahead (p at most the rule's `second_look_p`), not
    significantly, and lost no protected task."""
    warning: str | None = None
    """Why an accepted edit is doubtful though the rule accepted it (the agent reads the task less: see conditioning.py)."""


class GateResult(Verdict):
    """The `gate` of an edit in the ledger: the verdict and what it was measured on."""

    pairs: int = 0
    """(task, trial) keys both sides ran: fixed + broken + ties."""
    tasks: list[str] = Field(default_factory=list)
    """The tasks gated."""
    left_out: list[str] = Field(default_factory=list)
    """Train tasks the edit's examples came from, which the gate never measures."""
    conditioning: Drop | None = None
    """The input-conditioning of both sides' gate rollouts (None when the check is off)."""
