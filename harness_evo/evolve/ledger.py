"""The ledger: every proposed edit, whatever its fate, as rows of the `edits` table.

An edit's status moves from `proposed` to one of `invalid` (it does not apply or is not an edit),
`rejected_static` (the critic's rules or review), `rejected_empirical` (the gate) or `accepted`.
"""

import time
from collections import Counter

from pydantic import BaseModel, ConfigDict

from harness_evo.evolve import events as ev
from harness_evo.evolve.acceptance import Verdict
from harness_evo.evolve.critic import Judgement
from harness_evo.evolve.proposer import Proposal
from harness_evo.harness import Harness
from harness_evo.store import RunStore

FINAL = ("invalid", "rejected_static", "rejected_empirical", "accepted")
EMPTY_FIELDS = {"child_id": None, "rationale": None, "prediction": None, "reasons": [], "gate": None}
"""Fields an edit row may lack when read back: the store makes a column only at its first non-empty value."""


class Candidate(BaseModel):
    """An edit in the ledger and, once it passed the critic, the child harness it makes."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    row: dict
    child: Harness | None = None

    @property
    def status(self) -> str:
        return self.row["status"]


class Ledger:
    def __init__(self, store: RunStore, emit: ev.Callback):
        self.store = store
        self.emit = emit

    def tried(self, pattern_id: str, before: int) -> list[dict]:
        """Edits against a pattern in earlier iterations that reached a verdict, oldest first."""
        return [EMPTY_FIELDS | row for row in self.store.rows("edits", "pattern_id = ? AND iteration < ?", [pattern_id, before],
                                                            order_by="iteration, id") if row["status"] in FINAL]

    def propose(self, iteration: int, revision: int, k: int, node: str, pattern_id: str, proposal: Proposal) -> Candidate:
        row = {
            "id": f"i{iteration}-r{revision}-{k}", "iteration": iteration, "parent_id": node, "child_id": None,
            "pattern_id": pattern_id, "revision": revision, "ops": proposal.ops, "rationale": proposal.rationale,
            "prediction": proposal.prediction, "status": "proposed", "reasons": [], "gate": None, "ts": time.time(),
            "kind": proposal.kind, "sources": proposal.sources,
        }
        if proposal.problem:
            row |= {"status": "invalid", "reasons": [proposal.problem]}
        return self._save(Candidate(row=row), final=bool(proposal.problem))

    def judged(self, candidate: Candidate, judgement: Judgement | None) -> Candidate:
        """Record the critic's judgement; an edit that passed stays `proposed`, with its child."""
        if judgement is None:
            return candidate
        row = candidate.row | {"reasons": judgement.reasons, "child_id": judgement.child.hash if judgement.child else None}
        if judgement.status != "passed":
            row["status"] = judgement.status
        return self._save(Candidate(row=row, child=judgement.child), final=True)

    def gated(self, candidate: Candidate, verdict: Verdict, tasks: list[str]) -> Candidate:
        gate = verdict.model_dump() | {"pairs": verdict.fixed + verdict.broken + verdict.ties, "tasks": tasks, "left_out": candidate.row.get("sources") or []}
        row = candidate.row | {"status": "accepted" if verdict.accepted else "rejected_empirical", "gate": gate}
        return self._save(Candidate(row=row, child=candidate.child), final=True)

    def children(self, parent_id: str) -> dict[str, str]:
        """The harnesses already proposed as children of `parent_id` -> which edit made each and its fate."""
        return {row["child_id"]: f"the same as edit {row['id']} ({row['status'].replace('_', ' ')})"
                for row in self.store.rows("edits", "parent_id = ?", [parent_id], order_by="iteration, id") if row.get("child_id")}

    def fates(self) -> dict[str, int]:
        """Number of edits per status."""
        return dict(Counter(row["status"] for row in self.store.rows("edits")))

    def _save(self, candidate: Candidate, final: bool) -> Candidate:
        self.store.emit("edit", candidate.row)
        if final:
            self.emit(ev.EditJudged(candidate.row))
        return candidate
