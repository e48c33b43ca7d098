"""What the gate decided on an edit (`evolve/gate.py`: the in-turn gate or the evidence engine), as the ledger records
it."""

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
    """Why an accepted edit is doubtful though the rule accepted it (the agent reads the task less: see
    conditioning.py)."""


class KeyChoice(BaseModel):
    """A (task, trial) key the evidence engine chose for a look, and why its task was chosen."""

    task: str
    trial: int
    look: int
    """The look it was chosen for (1 is the first)."""
    reason: str


class GateEvidence(BaseModel):
    """How the evidence engine (`evolve/evidence/`) reached a verdict: when and why it stopped, on what."""

    stop: str
    """Why the candidate's gate stopped (`evidence.Stop`: accepted, cheaper, futile, harmful, protected, outraced,
    spent, broken; interrupted: the run stopped before the gate decided, and the edit is still `proposed`)."""
    e_value: float
    """The e-value of fixed against broken pairs when it stopped (1/e is a p-value valid at any look)."""
    threshold: float
    """The e-value that accepts: 1/alpha."""
    looks: int = 0
    """Looks the candidate took part in."""
    parent_rollouts: int = 0
    """Fresh parent rollouts of the decision (keys its pool lacked), shared by the candidates of a race."""
    raced: int = 1
    """Candidates decided together (1: a plain gate)."""
    choices: list[KeyChoice] = Field(default_factory=list)
    """The keys the candidate ran, in the order chosen, each with why its task was chosen."""
    cheaper: int = 0
    """Pairs whose child rollout cost fewer tokens than the parent's."""
    dearer: int = 0
    """Pairs whose child rollout cost more tokens."""
    cost_e_value: float = 1.0
    """The e-value of cheaper against dearer pairs (it accepts at 1/cost_alpha when passes tie: stop `cheaper`)."""


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
    alpha: float | None = None
    """The chance that this gate accepts an edit that changes nothing (a race splits its alpha over its candidates);
    None in a run from before it was recorded."""
    rollouts: int | None = None
    """Rollouts the gate ran for this edit: the child's (the evidence engine; the parent's fresh ones are in
    `evidence`), or both sides' on its keys (in-turn, reused parent rollouts included)."""
    evidence: GateEvidence | None = None
    """How the evidence engine decided (None for the in-turn gate)."""
