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

With `cost_alpha` above 0 a gate also accepts the child as *cheaper* when the same mixture e-value, of the pairs whose
child rollout cost fewer tokens than the parent's against those that cost more, reaches 1/cost_alpha while the loss
of pass rate its pairs make plausible (`plausible_loss`) is at most `cost_max_loss` and every protected task has its
pairs; it is futile only when neither bar is within reach. Under an edit that changes nothing either side of a pair
is as likely to be the cheaper, so this test too crosses its bar with chance at most cost_alpha, and an inert edit is
accepted with chance at most alpha + cost_alpha. The loss bound is anytime-valid too (`stats.loss_bound`, a betting
test of the mean of broken minus fixed pairs at `harm_alpha`'s level): a cheaper child that loses `cost_max_loss` or
more of pass rate on the tasks the gate samples is accepted with chance at most harm_alpha, however often it looks.
"""

from collections import Counter
from collections.abc import Collection, Sequence

from harness_evo import stats
from harness_evo.config import EvidenceConfig
from harness_evo.evolve.acceptance import Pair, Tally, lost_tasks
from harness_evo.evolve.evidence.verdict import Stop

CostPair = tuple[float, float]
"""What the parent's and the child's rollouts at one key cost, in tokens."""


class SequentialTest:
    """Accept at e >= 1/alpha; reject as harmful, futile or for a lost protected task; else keep looking (None).
    With `cost_alpha` above 0, a child that is cheaper at no loss of passes is accepted too (see the module's
    docstring)."""

    def __init__(self, config: EvidenceConfig, alpha: float, cost_alpha: float = 0.0):
        self.config = config
        self.threshold = 1 / alpha
        self.cost_threshold = 1 / cost_alpha if cost_alpha > 0 else None
        """The e-value of cheaper against dearer pairs that accepts a cheaper child; None: passes alone decide."""

    def evidence(self, pairs: list[Pair], protected: Collection[str]) -> tuple[Tally, float, float]:
        """(the tested pairs' tally, their e-value of fixed against broken, the mirrored e-value of all pairs)."""
        tally, whole = Tally.of([pair for pair in pairs if pair.task_id not in protected]), Tally.of(pairs)
        alternatives = self.config.alternatives
        return (
            tally,
            stats.mixture_e_value(tally.fixed, tally.broken, alternatives),
            stats.mixture_e_value(whole.broken, whole.fixed, alternatives),
        )

    @staticmethod
    def cost_tally(costs: Sequence[CostPair]) -> Tally:
        """The pairs as costs see them: `fixed` where the child's rollout cost fewer tokens, `broken` more."""
        cheaper = sum(child < parent for parent, child in costs)
        dearer = sum(child > parent for parent, child in costs)
        return Tally(fixed=cheaper, broken=dearer, ties=len(costs) - cheaper - dearer)

    def cheaper(self, costs: Sequence[CostPair]) -> tuple[int, int, float]:
        """(pairs the child's rollout cost less on, pairs it cost more on, the mixture e-value of the first against
        the second)."""
        tally = self.cost_tally(costs)
        return tally.fixed, tally.broken, self.cost_e_value(tally)

    def cost_e_value(self, costed: Tally) -> float:
        """The mixture e-value of cheaper against dearer pairs (`cost_tally`)."""
        return stats.mixture_e_value(costed.fixed, costed.broken, self.config.alternatives)

    def covered(self, pairs: list[Pair], protected: Collection[str]) -> set[str]:
        """The protected tasks with the pairs an accept needs."""
        counts = Counter(pair.task_id for pair in pairs)
        return {task for task in protected if counts[task] >= self.config.protected_trials}

    def judge(
        self, pairs: list[Pair], protected: Collection[str], pairs_left: float, costs: Sequence[CostPair] = ()
    ) -> tuple[Stop, str] | None:
        """The stop the pairs so far call for, with its reason, or None to look again; `pairs_left` is how many more
        tested pairs the gate's budget and tasks allow, `costs` the pairs' costs (parent, child)."""
        tally, e, harm = self.evidence(pairs, protected)
        covered = self.covered(pairs, protected)
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
        costed = self.cost_tally(costs)
        if self.cost_threshold is not None:
            whole, cost_e = Tally.of(pairs), self.cost_e_value(costed)
            loss = self.plausible_loss(whole)
            if cost_e >= self.cost_threshold and loss <= self.config.cost_max_loss and covered == set(protected):
                return Stop.CHEAPER, (
                    f"cheaper at no plausible loss of passes: {whole}, a loss above {max(loss, 0.0) * 100:.1f} pp "
                    f"ruled out; its rollouts cost fewer tokens on {costed.fixed} pairs and more on {costed.broken}, "
                    f"e = {cost_e:.3g} >= {self.cost_threshold:g} (1/cost_alpha)"
                )
        if self.futile(tally, pairs_left, self.threshold) and (
            self.cost_threshold is None or self.futile(costed, pairs_left, self.cost_threshold)
        ):
            return Stop.FUTILE, (
                f"futile: {tally}, e = {e:.3g}; even fixing the most of the differing pairs its pairs make "
                f"plausible, it would not reach {self.threshold:g} within the ~{pairs_left:.0f} pairs left"
                + ("" if self.cost_threshold is None else ", nor cost less often enough to be accepted as cheaper")
            )
        return None

    def plausible_loss(self, whole: Tally) -> float:
        """The most pass rate the child plausibly loses on its pairs (below 0: it plausibly gains), ruled out beyond at
        `harm_alpha`'s level however often the gate looks."""
        return stats.loss_bound(whole.fixed, whole.broken, whole.ties, self.config.harm_alpha)

    def futile(self, tally: Tally, pairs_left: float, threshold: float) -> bool:
        """Whether the e-value would end below `threshold` were the child to go on at its most favourable plausible
        rates: the upper bounds (exceeded with chance `futility`) of the share of pairs that differ and of the share of
        those it wins (fixes, or costs less on), over the pairs left. Pairs far short of the bar, or too few left to
        reach it, stop the gate. Before `futility_differing` pairs differ, the child is taken to win every one to
        come."""
        level = self.config.futility
        differing = tally.fixed + tally.broken
        fixes = (
            1.0 if differing < self.config.futility_differing else stats.upper_share(tally.fixed, tally.broken, level)
        )
        differ = stats.upper_share(differing, tally.ties, level)
        more = differ * max(0.0, pairs_left)
        end = stats.mixture_e_value(
            tally.fixed + fixes * more, tally.broken + (1 - fixes) * more, self.config.alternatives
        )
        return end < threshold
