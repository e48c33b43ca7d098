"""An edit in the ledger: operations on a parent harness's components, proposed against a pattern, and its fate."""

from enum import StrEnum
from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from harness_evo.store.gate import GateResult
from harness_evo.store.record import Record

MoveKind = Literal["proposer", "stand-in", "harvest", "knob", "prune"]
"""The moves that make edits (see `evolve/moves.py`)."""


class EditStatus(StrEnum):
    """An edit's fate: `proposed` until the critic passes it on to the gate, then one of the others."""

    PROPOSED = "proposed"
    INVALID = "invalid"  # it does not apply, changes nothing, or is not an edit
    REJECTED_STATIC = "rejected_static"  # the critic's rules or review
    REJECTED_EMPIRICAL = "rejected_empirical"  # the gate
    SCREENED = "screened"  # the screen: the solver's first actions did not change
    ACCEPTED = "accepted"

    @property
    def final(self) -> bool:
        """The edit reached a verdict."""
        return self is not EditStatus.PROPOSED

    @property
    def rejected(self) -> bool:
        return self in (
            EditStatus.INVALID,
            EditStatus.REJECTED_STATIC,
            EditStatus.REJECTED_EMPIRICAL,
            EditStatus.SCREENED,
        )

    @property
    def gated(self) -> bool:
        """The gate measured it."""
        return self in (EditStatus.ACCEPTED, EditStatus.REJECTED_EMPIRICAL)


class ScreenResult(BaseModel):
    """What the screen saw of an edit before any rollout (`evolve/screen.py`): the solver's first action on a few of
    the parent's failed train tasks, sampled under the parent and under the child with the same seeds."""

    verdict: Literal["inert", "changed", "unseen"]
    """`inert`: the first prompt changed but not one sampled action did; `changed`: some action did; `unseen`: the
    first prompt and the sampling are the same under both (the edit acts later in an episode), so the screen cannot
    tell."""
    tasks: list[str] = Field(default_factory=list)
    samples: int = 0
    """Sampled first actions compared (tasks x seeds)."""
    changed: int = 0
    """Of them, those the child's action differs in."""
    dropped: bool = False
    """The edit was dropped for it (`search.screen = "on"`); under `"audit"` an inert edit is gated all the same."""

    note: str = ""
    """Why the screen could not tell, for an `unseen` verdict."""

    def sentence(self) -> str:
        if self.note:
            return f"the screen cannot tell: {self.note}"
        return (
            f"the screen sampled {self.samples} first actions on {len(self.tasks)} failed train tasks: "
            f"{self.changed} changed"
        )


class Edit(Record):
    """A row of `edits`."""

    event: ClassVar[str] = "edit"
    table: ClassVar[str] = "edits"

    id: str
    """`i{iteration}-r{critic round}-{k}`."""
    iteration: int
    parent_id: str
    """The node the edit applies to."""
    pattern_id: str | None = None
    """The failure pattern it was proposed against."""
    revision: int = 0
    """The critic round (0 for the first proposal, then once per send-back)."""
    child_id: str | None = None
    """The hash of the harness it makes, once the critic applied it."""
    ops: list[dict] = Field(default_factory=list)
    """The operations as JSON: `{"op": "replace" | "write" | "delete", "path": ..., ...}`."""
    rationale: str | None = None
    prediction: str | None = None
    """What the proposer expects the edit to change."""
    status: EditStatus = EditStatus.PROPOSED
    reasons: list[str] = Field(default_factory=list)
    """Why it was invalid or the critic rejected it."""
    gate: GateResult | None = None
    """The gate's verdict and what it measured, once gated."""
    screen: ScreenResult | None = None
    """What the screen saw before the gate, when `search.screen` is on."""
    move: str = "proposer"
    """The move that made it (`MoveKind`): `proposer` (a model wrote it, or the stand-in step it takes first),
    `stand-in` (a tool for a missing program), `harvest` (worked examples from passed rollouts), `knob` (one setting
    of `harness.toml` one step from the parent's) or `prune` (one part of the parent removed)."""
    sources: list[str] = Field(default_factory=list)
    """The train tasks a harvested example came from; the gate leaves them out."""
    ts: float | None = None

    @property
    def interrupted(self) -> bool:
        """Its gate was under way when the run stopped: still `proposed`, with the evidence so far in `gate` (a resumed
        run gates it again from its recorded rollouts)."""
        return self.status is EditStatus.PROPOSED and self.gate is not None

    @property
    def reads_less(self) -> list[str]:
        """What fell beyond the margin in the input-conditioning of its gate rollouts, child vs parent (none when not
        measured: see evolve/conditioning.py)."""
        return self.gate.conditioning.fell if self.gate and self.gate.conditioning else []
