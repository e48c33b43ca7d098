"""The loop's side of the failure store: analyze an iteration's rollouts, pick the pattern to work on,
show its evidence.

Every answer is read from the store, never from what changed during a call, so an iteration redone after a
crash (its failures already analyzed) picks the same pattern as the iteration that was cut off.
"""

from harness_evo.config import RunConfig
from harness_evo.curriculum import EXPLORE, PatternView
from harness_evo.evolve.target import Target
from harness_evo.failures import Evidence, FailureAnalysis, pattern_evidence, patterns
from harness_evo.standins import MissingProgram, pattern_missing_programs
from harness_evo.store import Pattern, PatternMember, PatternStatus, Rollout, RunStore
from harness_evo.taskset import Suite

NEUTRAL = 0.5
"""phi component of a pattern the analyzer has not scored yet."""


class Patterns:
    def __init__(self, store: RunStore, llm, config: RunConfig, suite: Suite):
        self.store = store
        self.analysis = FailureAnalysis(store, llm, config.failures, suite)
        self.budget = config.failures.trace_token_budget

    def analyze(self, rollouts: list[Rollout], node: str) -> None:
        """Explain the failed train rollouts of `node` not yet explained and aggregate them into patterns: this
        iteration's `rollouts`, and the ones earlier gates ran on `node` as the parent, which are as much its failures
        and about six times as many (the rules file nine in ten of them, so few need the analyzer). A pattern whose
        tasks were among `rollouts` and that did not recur on this node is resolved."""
        train = [row for row in rollouts if row.split == "train"]
        self.analysis.process(self.store.records(Rollout, order_by="rowid", node_id=node, split="train", passed=False))
        self.analysis.resolve([node], sorted({row.task_id for row in train}))

    def views(self) -> list[PatternView]:
        """Every live pattern as the curriculum sees it."""
        return [view(row) for row in patterns(self.store) if row.task_ids]

    def target(self, arm_id: str, rollouts: list[Rollout], preference: dict[str, float]) -> Target | None:
        """The promoted pattern to propose edits against, with its missing programs: the arm's own, or for the explore
        arm the promoted pattern that this iteration's rollouts fell into whose arm the curriculum now prefers
        (`preference`: arm id -> its probability), the best supported first among equals (by support alone, explore
        keeps picking the broadest)."""
        promoted = self._promoted()
        if arm_id != EXPLORE:
            row = next((row for row in promoted if row.id == arm_id), None)
        else:
            touched = [row for row in promoted if row.id in self._patterns_of(rollouts)]
            row = max(touched, key=lambda row: preference.get(row.id, 0.0), default=None)
        return Target.of(row, self.missing_programs(row.id)) if row is not None else None

    def promoted_share(self, rollouts: list[Rollout]) -> float:
        """Share of the rollouts' tasks whose failures joined a promoted pattern: what exploring found."""
        tasks = {row.task_id for row in rollouts}
        promoted = {row.id for row in self._promoted()}
        found = {member.task_id for member in self._members(rollouts) if member.pattern_id in promoted}
        return len(found) / len(tasks) if tasks else 0.0

    def evidence(self, pattern_id: str, k: int) -> list[Evidence]:
        """Up to `k` member failures from distinct train tasks, each with the task's instruction and digested trace."""
        return [item for item in pattern_evidence(self.store, pattern_id, k, self.budget) if item.split == "train"]

    def missing_programs(self, pattern_id: str) -> dict[str, MissingProgram]:
        """The programs the pattern's failures ran without their being installed (see `pattern_missing_programs`)."""
        return pattern_missing_programs(self.store, pattern_id)

    def _promoted(self) -> list[Pattern]:
        return [row for row in patterns(self.store) if row.status is PatternStatus.PROMOTED]

    def _members(self, rollouts: list[Rollout]) -> list[PatternMember]:
        ids = [row.id for row in rollouts]
        if not ids:
            return []
        return self.store.records(PatternMember, rollout_id=ids)

    def _patterns_of(self, rollouts: list[Rollout]) -> set[str]:
        return {member.pattern_id for member in self._members(rollouts)}


def view(row: Pattern) -> PatternView:
    """A pattern as the curriculum's PatternView; unscored phi components count as neutral."""
    score = {
        key: NEUTRAL if getattr(row, key) is None else getattr(row, key)
        for key in ("severity", "fixability", "side_effect_risk")
    }
    return PatternView(id=row.id, status=row.status, tasks=row.task_ids, breadth=row.breadth, **score)
