"""The ledger: every proposed edit, whatever its fate,
as records of the `edits` table (`EditStatus` gives the fates)."""

import time
from collections import Counter
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict

from harness_evo.evolve import events as ev
from harness_evo.evolve.acceptance import Verdict
from harness_evo.evolve.conditioning import Drop
from harness_evo.evolve.critic import Judgement
from harness_evo.evolve.proposer import Proposal
from harness_evo.evolve.target import Target
from harness_evo.harness import Harness
from harness_evo.store import Edit, EditStatus, GateEvidence, GateResult, RunStore, ScreenResult

GLOBAL_MOVES = ("knob", "prune")
"""Move kinds whose candidates change what every task sees and have no pattern of their own to be measured on: a gate
measures them across the train split (`global`, see `Candidate.scope`)."""


class Candidate(BaseModel):
    """An edit in the ledger and, once it passed the critic, the child harness it makes and what the gate measures it
    against (the targeted pattern, or for a harvest the tasks whose retrieved examples change)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    edit: Edit
    child: Harness | None = None
    target: Target | None = None
    scope: Literal["global", "targeted"] | None = None
    """What the evidence engine measures the edit on: `global` (every train task), `targeted` (the target's tasks and
    a protected regression sample); None: judged from its move (`GLOBAL_MOVES`) and the paths the edit changes (see
    `evolve/evidence_gate.py`)."""

    @property
    def status(self) -> EditStatus:
        return self.edit.status


class Ledger:
    """Writes each edit's row as it is proposed, judged by the critic and gated; reads the edits back."""

    def __init__(self, store: RunStore, emit: ev.Callback):
        self.store = store
        self.emit = emit

    def tried(self, pattern_id: str, before: int) -> list[Edit]:
        """Edits against a pattern in earlier iterations that reached a verdict, oldest first."""
        return [
            edit
            for edit in self.store.records(Edit, order_by="iteration, id", pattern_id=pattern_id)
            if edit.iteration < before and edit.status.final
        ]

    def propose(
        self, iteration: int, revision: int, k: int, node: str, pattern_id: str, proposal: Proposal
    ) -> Candidate:
        edit = Edit(
            id=f"i{iteration}-r{revision}-{k}",
            iteration=iteration,
            parent_id=node,
            pattern_id=pattern_id,
            revision=revision,
            ops=proposal.ops,
            rationale=proposal.rationale,
            prediction=proposal.prediction,
            ts=time.time(),
            move=proposal.move,
            sources=proposal.sources,
        )
        if proposal.problem:
            edit = edit.model_copy(update={"status": EditStatus.INVALID, "reasons": [proposal.problem]})
        return self._save(Candidate(edit=edit), final=bool(proposal.problem))

    def judged(self, candidate: Candidate, judgement: Judgement | None) -> Candidate:
        """Record the critic's judgement; an edit that passed stays `proposed`, with its child."""
        if judgement is None:
            return candidate
        update = {"reasons": judgement.reasons, "child_id": judgement.child.hash if judgement.child else None}
        if judgement.status != "passed":
            update["status"] = EditStatus(judgement.status)
        return self._save(
            candidate.model_copy(update={"edit": candidate.edit.model_copy(update=update), "child": judgement.child}),
            final=True,
        )

    def gated(
        self,
        candidate: Candidate,
        verdict: Verdict,
        tasks: list[str],
        drop: Drop | None = None,
        *,
        alpha: float,
        rollouts: int,
        evidence: GateEvidence | None = None,
        decided: bool = True,
    ) -> Candidate:
        """Record the gate's verdict, the level it was tested at and the rollouts it ran (`GateResult`), with the
        input-conditioning of both sides' gate rollouts when it was measured and how the evidence engine decided; an
        edit whose gate the run's stop interrupted (not `decided`) stays `proposed`, with its evidence so far."""
        gate = GateResult(
            **verdict.model_dump(),
            pairs=verdict.fixed + verdict.broken + verdict.ties,
            tasks=tasks,
            left_out=candidate.edit.sources,
            conditioning=drop,
            alpha=alpha,
            rollouts=rollouts,
            evidence=evidence,
        )
        status = EditStatus.ACCEPTED if verdict.accepted else EditStatus.REJECTED_EMPIRICAL
        status = status if decided else EditStatus.PROPOSED
        return self._save(
            candidate.model_copy(update={"edit": candidate.edit.model_copy(update={"status": status, "gate": gate})}),
            final=decided,
        )

    def screened(self, candidate: Candidate, result: ScreenResult) -> Candidate:
        """Record what the screen saw; a candidate it dropped is `screened`, with the reason."""
        update: dict = {"screen": result}
        if result.dropped:
            update |= {"status": EditStatus.SCREENED, "reasons": [f"dropped by the screen: {result.sentence()}"]}
        edit = candidate.edit.model_copy(update=update)
        return self._save(candidate.model_copy(update={"edit": edit}), final=result.dropped)

    def children(self, parent_id: str, before: int | None = None) -> dict[str, str]:
        """The harnesses already proposed as children of `parent_id` (in the iterations before `before`) -> which edit
        made each and its fate."""
        return {
            edit.child_id: f"the same as edit {edit.id} ({edit.status.replace('_', ' ')})"
            for edit in self.of(parent_id, before)
            if edit.child_id
        }

    def of(self, parent_id: str, before: int | None = None) -> list[Edit]:
        """The edits of `parent_id` (of the iterations before `before`), in the order they were proposed."""
        edits = self.store.records(Edit, order_by="iteration, id", parent_id=parent_id)
        return edits if before is None else [edit for edit in edits if edit.iteration < before]

    def history(self, before: int | None = None) -> list[Edit]:
        """Every edit of the run (of the iterations before `before`), in the order it was first written."""
        edits = self.store.records(Edit, order_by="rowid")
        return edits if before is None else [edit for edit in edits if edit.iteration < before]

    def fates(self) -> dict[str, int]:
        """Number of edits per status."""
        return dict(Counter(edit.status.value for edit in self.store.records(Edit)))

    def accepted_by_move(self) -> dict[str, int]:
        """Number of accepted edits per move kind (`MoveKind`)."""
        return dict(Counter(edit.move for edit in self.store.records(Edit) if edit.status is EditStatus.ACCEPTED))

    def _save(self, candidate: Candidate, final: bool) -> Candidate:
        self.store.put(candidate.edit)
        if final:
            self.emit(ev.EditJudged(candidate.edit))
        return candidate


def paid(history: list[Edit], move: str, key: Callable[[Edit], str]) -> dict[str, float]:
    """`key` of an edit (a prune's part group, a knob) -> (accepted + 1) / (gated + 1) over the gated edits of `move` in
    `history`: a key not gated yet is absent (worth 1), and each rejection by the gate makes it worth less."""
    gated, accepted = Counter(), Counter()
    for edit in history:
        if edit.move == move and edit.status.gated:
            gated[key(edit)] += 1
            accepted[key(edit)] += edit.status is EditStatus.ACCEPTED
    return {name: (accepted[name] + 1) / (gated[name] + 1) for name in gated}
