"""The stage a move is given (DESIGN.md, steps 5 and 6): the critic and the ledger, which turn a move's proposals into
candidates; the harness store; and the gate, which decides on the candidates a move made from one parent (after the
screen, when `search.screen` is on, dropped those that change nothing the solver does). A move sees this and nothing
else of the loop.

A candidate is an edit that passed the critic, with the child harness it makes and what the gate measures it against.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from harness_evo.evolve.critic import Critic
from harness_evo.evolve.gate import Decision, Gate, Turn
from harness_evo.evolve.ledger import Candidate, Ledger
from harness_evo.evolve.nodes import Harnesses
from harness_evo.evolve.proposer import Proposal
from harness_evo.evolve.screen import Screen
from harness_evo.evolve.target import Target
from harness_evo.harness import Harness
from harness_evo.store import Edit, EditStatus, Node

__all__ = ["Made", "Stage", "Turn"]


@dataclass
class Made:
    """What a move made of its turn: candidates for the gate, or (with none) why not, in a line for the user."""

    candidates: list[Candidate] = field(default_factory=list)
    reason: str = ""


class Stage:
    """The critic, the ledger, the harness store and the gate, as a move uses them; `nodes` are the tree's nodes (an
    edit making one of them again is invalid)."""

    def __init__(
        self,
        critic: Critic,
        ledger: Ledger,
        harnesses: Harnesses,
        gate: Gate,
        nodes: Mapping[str, Node],
        screen: Screen | None = None,
    ):
        self.critic, self.ledger, self.harnesses, self.gate, self.nodes = critic, ledger, harnesses, gate, nodes
        self.screen = screen

    def parent(self, turn: Turn) -> Harness:
        return self.harnesses[turn.node]

    def known(self, node: str, before: int | None = None) -> dict[str, str]:
        """Harnesses an edit of `node` must not make again -> why: its children proposed so far (in the iterations
        before `before`), and the tree's nodes."""
        return self.ledger.children(node, before) | {hash: "already a node of the tree" for hash in self.nodes}

    def review(
        self, turn: Turn, proposal: Proposal, target: Target, seed: int, revision: int = 0, k: int = 0
    ) -> Candidate:
        """The proposal written into the ledger and judged by the critic (seeded with `seed`); one that passed stays
        `proposed`, with its child harness (now in the harness store) and `target`, for the gate."""
        candidate = self.ledger.propose(turn.iteration, revision, k, turn.node, target.id, proposal)
        parent = self.parent(turn)
        judgement = (
            self.critic.judge(parent, proposal.edit, target, seed, self.known(turn.node)) if proposal.edit else None
        )
        candidate = self.ledger.judged(candidate, judgement)
        if candidate.status is EditStatus.PROPOSED:
            self.harnesses.add(candidate.child)
        return candidate.model_copy(update={"target": target})

    def decide(self, turn: Turn, candidates: list[Candidate]) -> Decision:
        """The gate's decision on a move's candidates (see `Gate`), those the screen dropped left out."""
        dropped: list[Candidate] = []
        if self.screen is not None:
            candidates, dropped = self.screen.sift(turn, candidates)
        decision = self.gate.decide(turn, candidates) if candidates else Decision()
        decision.screened = dropped
        return decision

    def edits(self, turn: Turn) -> list[Edit]:
        """The edits proposed from the turn's node in earlier iterations, whatever their fate: what a move has tried
        from it (an iteration redone after a crash offers what it offered before)."""
        return self.ledger.of(turn.node, before=turn.iteration)
