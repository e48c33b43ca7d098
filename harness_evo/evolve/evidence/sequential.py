"""The sequential test of one candidate against its parent, looked at after every batch of pairs.

Only pairs that differ carry evidence. Under an edit that changes nothing, a differing pair is fixed or broken with
chance 1/2 on every task, given everything seen before (pool.py says which keys keep this true), so the mixture
e-value of fixed against broken pairs (`stats.mixture_e_value`) never reaches 1/alpha with more than chance alpha,
however many looks it takes and however the tasks were chosen: the gate accepts the first time it does. The other
stops only reject, so they cannot raise the false-accept rate: a harm stop (the mirrored e-value, broken against
fixed, reaches 1/harm_alpha), a futility stop (see `SequentialTest.futile`) and the protected-task rule
(`acceptance.lost_tasks`: a protected task the parent passed on at least half of its pairs and the child on none).

The test counts the pairs of the tasks an edit is for: every task for a global edit, the targets and related tasks for
a targeted one. A targeted edit's protected regression sample guards against breaks (the protected-task rule and the
harm stop count every pair) without diluting its test with pairs it is not meant to change; which pairs count is fixed
by the plan before any outcome, so the test stays valid.
"""

from collections import Counter
from collections.abc import Collection

from harness_evo import stats
from harness_evo.config import EvidenceConfig
from harness_evo.evolve.acceptance import Pair, Tally, lost_tasks
from harness_evo.evolve.evidence.verdict import Stop


class SequentialTest:
    """Accept at e >= 1/alpha; reject as harmful, futile or for a lost protected task; else keep looking (None)."""

    def __init__(self, config: EvidenceConfig, alpha: float):
        self.config = config
        self.threshold = 1 / alpha

    def evidence(self, pairs: list[Pair], protected: Collection[str]) -> tuple[Tally, float, float]:
        """(the tested pairs' tally, their e-value of fixed against broken, the mirrored e-value of all pairs)."""
        tally, whole = Tally.of([pair for pair in pairs if pair.task_id not in protected]), Tally.of(pairs)
        alternatives = self.config.alternatives
        return (
            tally,
            stats.mixture_e_value(tally.fixed, tally.broken, alternatives),
            stats.mixture_e_value(whole.broken, whole.fixed, alternatives),
        )

    def judge(self, pairs: list[Pair], protected: Collection[str], pairs_left: float) -> tuple[Stop, str] | None:
        """The stop the pairs so far call for, with its reason, or None to look again; `pairs_left` is how many more
        tested pairs the gate's budget and tasks allow."""
        tally, e, harm = self.evidence(pairs, protected)
        counts = Counter(pair.task_id for pair in pairs)
        covered = {task for task in protected if counts[task] >= self.config.protected_trials}
        lost = lost_tasks(pairs, covered)
        if lost:
            return Stop.PROTECTED, (
                f"the child lost protected task{'s' * (len(lost) > 1)} {', '.join(lost)} (the parent "
                f"passed it on at least half of its pairs, the child on none); {tally}"
            )
        if e >= self.threshold and covered == set(protected):
            return Stop.ACCEPTED, f"{tally}: e = {e:.3g} >= {self.threshold:g} (1/alpha)"
        if harm >= 1 / self.config.harm_alpha:
            return Stop.HARMFUL, (
                f"harmful: {Tally.of(pairs)} over all its pairs, broken against fixed e = {harm:.3g} >= "
                f"{1 / self.config.harm_alpha:g}"
            )
        if self.futile(tally, pairs_left):
            return Stop.FUTILE, (
                f"futile: {tally}, e = {e:.3g}; even fixing the most of the differing pairs its pairs make "
                f"plausible, it would not reach {self.threshold:g} within the ~{pairs_left:.0f} pairs left"
            )
        return None

    def futile(self, tally: Tally, pairs_left: float) -> bool:
        """Whether the e-value would end below 1/alpha were the child to go on at its most favourable plausible rates:
        the upper bounds (exceeded with chance `futility`) of the share of pairs that differ and of the share of those
        it fixes, over the pairs left. Pairs far short of the bar, or too few left to reach it, stop the gate."""
        level = self.config.futility
        fixes = stats.upper_share(tally.fixed, tally.broken, level)
        differ = stats.upper_share(tally.fixed + tally.broken, tally.ties, level)
        more = differ * max(0.0, pairs_left)
        end = stats.mixture_e_value(
            tally.fixed + fixes * more, tally.broken + (1 - fixes) * more, self.config.alternatives
        )
        return end < self.threshold
