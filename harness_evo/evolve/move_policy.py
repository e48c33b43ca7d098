"""The move policy: which of the moves ready for a turn an iteration makes (`search.move_policy`).

`FirstHarvest` harvests whenever it can; `MoveBandit` values each kind by the gain its accepted edits showed per gate
rollout, from the ledger (so a resumed run chooses as the interrupted one would have).
"""

import math
from collections import defaultdict
from typing import Protocol

from harness_evo.store import Edit, EditStatus, MoveKind

EXPLORATION = 0.05
"""Scale of `MoveBandit`'s exploration bonus, in gain per gate rollout (a move kind whose edit fixed one task more than
it broke in a 20-rollout gate has 0.05)."""


class MoveChooser(Protocol):
    def choose(self, available: list[MoveKind], history: list[Edit]) -> MoveKind:
        """The move of this iteration among `available` (in the order of `search.moves`); `history`: every edit of
        the run's earlier iterations."""
        ...


class FirstHarvest:
    """Harvest when it is available, else the first available move."""

    def choose(self, available: list[MoveKind], history: list[Edit]) -> MoveKind:
        return "harvest" if "harvest" in available else available[0]


class MoveBandit:
    """UCB over move kinds: a kind not tried yet first, then the highest accepted gain (fixed minus broken of accepted
    edits) per gate rollout, plus `EXPLORATION` * sqrt(2 ln(tries) / tries of the kind);
    ties to the order of `moves`."""

    def choose(self, available: list[MoveKind], history: list[Edit]) -> MoveKind:
        tries, gain, rollouts = defaultdict(set), defaultdict(float), defaultdict(int)
        for edit in history:
            tries[edit.move].add(edit.iteration)
            if edit.gate:
                rollouts[edit.move] += edit.gate.rollouts if edit.gate.rollouts is not None else 2 * edit.gate.pairs
                if edit.status is EditStatus.ACCEPTED:
                    gain[edit.move] += edit.gate.fixed - edit.gate.broken
        untried = [kind for kind in available if not tries[kind]]
        if untried:
            return untried[0]
        total = sum(len(tries[kind]) for kind in available)

        def value(kind: MoveKind) -> float:
            n = len(tries[kind])
            return gain[kind] / max(rollouts[kind], 1) + EXPLORATION * math.sqrt(2 * math.log(total) / n)

        return max(available, key=lambda kind: (value(kind), -available.index(kind)))


def move_chooser(policy: str) -> MoveChooser:
    return {"bandit": MoveBandit, "first-harvest": FirstHarvest}[policy]()
