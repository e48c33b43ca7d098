"""The gate's look at input-conditioning (`acceptance.conditioning`): does the child read the task less than its parent?

The gate's pass/fail pairs do not see an agent that now runs one template on every task (a new tool called whatever
the task is about), as long as the template passes. So the gauge of `failures/gauge.py` is taken on the
parent's and the child's gate rollouts of the same (task, trial) keys; when task identifiability or category dependence
fell by more than `conditioning_margin`, an edit the rule accepted needs a significant gain on dev to stand
unflagged: `warn` accepts it with the reason in the ledger, `refuse` rejects it.
"""

from collections.abc import Iterable, Mapping

from harness_evo import stats
from harness_evo.config import AcceptanceConfig
from harness_evo.failures.gauge import gauge, trajectories
from harness_evo.store import Edit, Rollout, RunStore
from harness_evo.store.gate import Verdict
from harness_evo.store.gauge import Conditioning, Drop, NodeGauge
from harness_evo.store.info import ConditioningSummary, ReadsLess


class ConditioningCheck:
    """Measures the gate's rollouts and flags or refuses an accepted edit that lowered input-conditioning."""

    def __init__(self, config: AcceptanceConfig, store: RunStore, categories: Mapping[str, str]):
        self.mode, self.margin, self.alpha = config.conditioning, config.conditioning_margin, config.alpha
        self.store, self.categories = store, categories

    def compare(self, parent: Iterable[Rollout], child: Iterable[Rollout]) -> Drop | None:
        """Parent vs child on the (task, trial) keys both scored; None when the check is off."""
        if self.mode == "off":
            return None
        parents = {(row.task_id, row.trial): row for row in parent if row.scored}
        children = {(row.task_id, row.trial): row for row in child if row.scored}
        keys = sorted(parents.keys() & children.keys())
        before = gauge(trajectories(self.store, [parents[key] for key in keys]), self.categories)
        after = gauge(trajectories(self.store, [children[key] for key in keys]), self.categories)
        return Drop(parent=before, child=after, fell=fallen(before, after, self.margin))

    def judge(self, verdict: Verdict, drop: Drop, dev: stats.Difference | None) -> Verdict:
        """An accepted verdict, flagged (`warn`) or refused (`refuse`) when conditioning fell without a significant dev
        gain."""
        if not verdict.accepted or not drop.fell:
            return verdict
        if dev is not None and dev.diff > 0 and dev.significant(self.alpha):
            return verdict
        shown = "no significant gain on dev" + (
            f" ({dev.interval()}, {dev.n} pairs)" if dev is not None and dev.n else ""
        )
        if self.mode == "refuse":
            return verdict.model_copy(
                update={
                    "accepted": False,
                    "undecided": False,
                    "reason": f"refused: {drop.sentence()}, and {shown} (the gate alone: {verdict.reason})",
                }
            )
        warning = f"{drop.sentence()}, and {shown}"
        return verdict.model_copy(update={"warning": warning, "reason": f"{verdict.reason}; warning: {warning}"})


def fallen(parent: Conditioning, child: Conditioning, margin: float) -> list[str]:
    """The measures (identifiability, dependence) that fell from parent to child by more than `margin`."""
    found = []
    for name, before, after in [
        ("task identifiability", parent.identifiability, child.identifiability),
        ("category dependence", parent.dependence, child.dependence),
    ]:
        if before.value is not None and after.value is not None and before.value - after.value > margin:
            chance = (
                f" (chance {child.chance:.2f})" if name == "task identifiability" and child.chance is not None else ""
            )
            found.append(f"{name} {before.value:.2f} -> {after.value:.2f}{chance}")
    return found


def conditioning_summary(store: RunStore, root: str, best: str) -> ConditioningSummary:
    """For the run's summary: the train gauges of the starting and the best node, and the gated edits whose gate
    rollouts showed the agent reading the task less (with their fates)."""
    gauges = {gauge.node_id: gauge for gauge in store.records(NodeGauge, split="train")}
    return ConditioningSummary(start=gauges.get(root), best=gauges.get(best), reads_less=reads_less(store))


def reads_less(store: RunStore) -> list[ReadsLess]:
    """The gated edits whose gate rollouts showed the agent reading the task less than its parent, and their fates."""
    return [
        ReadsLess(edit=edit.id, status=edit.status.value, fell=edit.reads_less)
        for edit in store.records(Edit, order_by="iteration, id")
        if edit.reads_less
    ]
