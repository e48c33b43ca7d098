"""An edit in the ledger: operations on a parent harness's components, proposed against a pattern, and its fate."""

from enum import StrEnum
from typing import ClassVar, Literal

from pydantic import Field

from harness_evo.store.gate import GateResult
from harness_evo.store.record import Record

MoveKind = Literal["proposer", "stand-in", "harvest", "knob"]
"""The moves that make edits (see `evolve/moves.py`)."""


class EditStatus(StrEnum):
    """An edit's fate: `proposed` until the critic passes it on to the gate, then one of the others."""

    PROPOSED = "proposed"
    INVALID = "invalid"  # it does not apply, changes nothing, or is not an edit
    REJECTED_STATIC = "rejected_static"  # the critic's rules or review
    REJECTED_EMPIRICAL = "rejected_empirical"  # the gate
    ACCEPTED = "accepted"

    @property
    def final(self) -> bool:
        """The edit reached a verdict."""
        return self is not EditStatus.PROPOSED

    @property
    def rejected(self) -> bool:
        return self in (EditStatus.INVALID, EditStatus.REJECTED_STATIC, EditStatus.REJECTED_EMPIRICAL)

    @property
    def gated(self) -> bool:
        """The gate measured it."""
        return self in (EditStatus.ACCEPTED, EditStatus.REJECTED_EMPIRICAL)


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
    move: str = "proposer"
    """The move that made it (`MoveKind`): `proposer` (a model wrote it, or the stand-in step it takes first),
    `stand-in` (a tool for a missing program), `harvest` (worked examples from passed rollouts) or `knob` (one setting
    of `harness.toml` one step from the parent's)."""
    sources: list[str] = Field(default_factory=list)
    """The train tasks a harvested example came from; the gate leaves them out."""
    ts: float | None = None

    @property
    def reads_less(self) -> list[str]:
        """What fell beyond the margin in the input-conditioning of its gate rollouts, child vs parent (none when not
        measured: see evolve/conditioning.py)."""
        return self.gate.conditioning.fell if self.gate and self.gate.conditioning else []
