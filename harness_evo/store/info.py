"""The `run` row of a run folder: what the run is, where it stands, and the summary it ends with (typed by its kind).

Each command writes the fields it knows (`RunStore.update_info`); an older run lacking a field reads its default, and a
summary of a kind with no record here (a benchmark's) stays a plain dict.
"""

from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from harness_evo.stats import Difference, Score
from harness_evo.store.gauge import NodeGauge
from harness_evo.store.record import Record


class RunStatus(StrEnum):
    """Where a run is: `running` until its process ends it one of the other ways (a killed one stays `running`)."""

    RUNNING = "running"
    FINISHED = "finished"  # it reached its end (a budget, patience, or every rollout of an eval or compare)
    STOPPED = "stopped"  # Ctrl-C or SIGTERM; what finished is kept
    FAILED = "failed"  # an error ended it; what finished is kept


class Facts(BaseModel):
    """Base of the summaries: fields an older run lacks read as their defaults, fields it has and these lack are kept
    out."""

    model_config = ConfigDict(extra="ignore")


class EvalSummary(Score, Facts):
    """How an eval run ended: the pass rate of its scored rollouts (`Score`'s fields) and what else they cost."""

    split: str | None = None
    pass_at_1: float | None = None
    """The share of scored rollouts that passed (`score`, under the name eval has always written)."""
    mean_reward: float | None = None
    infra_failures: int = 0
    tokens_per_rollout: float = 0
    reused: int = 0
    """Rollouts copied from earlier runs of the same harness, task, trial and solver, not paid again."""


class NamedHarness(Facts):
    """A harness of a comparison as the run row names it."""

    letter: str
    spec: str
    """The argument that named it: a folder, or a run's node."""
    hash: str


class HarnessResult(NamedHarness):
    """One harness's result in a comparison."""

    pass_at_1: Score = Field(default_factory=Score)
    infra: int = 0
    """Rollouts that failed through no fault of the agent (not scored)."""
    reused: int = 0
    """Rollouts copied from other runs."""
    paid: int = 0
    """Rollouts this comparison ran itself."""
    tokens_per_rollout: float = 0.0
    """Mean solver tokens (prompt and reply) of its scored rollouts."""
    seconds_per_rollout: float = 0.0
    """Mean wall time of its scored rollouts, in seconds (a reused rollout's as it was run)."""
    cached_share: float | None = None
    """The share of its scored rollouts' model calls answered from the response cache (None: no call recorded); a
    high share makes `seconds_per_rollout` short whatever the harness does."""


class Paired(Facts):
    """B minus A in pass@1 over the keys both scored (`stats.Difference`), and the verdict on it in a sentence."""

    n: int = 0
    tasks: int = 0
    diff: float = 0.0
    low: float = 0.0
    high: float = 0.0
    b_better: int = 0
    """Pairs where B scored higher."""
    a_better: int = 0
    p_value: float | None = None
    verdict: str = ""

    @staticmethod
    def of(difference: Difference) -> dict[str, Any]:
        """The fields of a `Difference`."""
        return {
            "n": difference.n,
            "tasks": difference.tasks,
            "diff": difference.diff,
            "low": difference.low,
            "high": difference.high,
            "b_better": difference.b_better,
            "a_better": difference.a_better,
            "p_value": difference.p_value,
        }


class Comparison(Paired):
    """One harness (`b`) against the first (`a`) on the keys both scored."""

    a: str
    b: str
    significant: bool = False
    cost: str = ""
    """B's tokens a rollout against A's on the keys both scored, with the one-sided sign test of B being the cheaper
    (`stats.CostDifference.sentence`)."""
    b_cheaper: int = 0
    """Keys where B's rollout cost fewer tokens than A's."""
    a_cheaper: int = 0
    """Keys where A's cost fewer."""
    cost_p: float | None = None
    """The sign test's p-value of B being the cheaper (one-sided)."""


class CompareSummary(Facts):
    """How a compare run ended."""

    split: str | None = None
    trials: int = 0
    harnesses: list[HarnessResult] = Field(default_factory=list)
    comparisons: list[Comparison] = Field(default_factory=list)


class DevComparison(Paired):
    """The best node (or, when the root stays best, the node closest to beating it: B) against the root (A) on the dev
    keys both ran."""

    node: str
    shown_gain: bool = False
    """The node beat the root by the paired test: it is the best."""
    alpha: float = 0.0
    """The level the node was tested at (the run's alpha split over the nodes compared)."""
    cheaper: bool = False
    """The node was named best for costing fewer tokens at no loss of passes (`evidence.cost_alpha`), not for passing
    more."""
    tokens_a: float | None = None
    """The root's tokens a rollout on the dev keys both ran (when `cheaper`)."""
    tokens_b: float | None = None
    """The node's tokens a rollout on those keys."""
    cost_p: float | None = None
    """The one-sided sign test of the node's rollouts costing less (when `cheaper`)."""


class ReadsLess(Facts):
    """A gated edit whose gate rollouts showed the agent reading the task less than its parent, and its fate."""

    edit: str
    status: str
    fell: list[str] = Field(default_factory=list)
    """What fell beyond the margin (`Drop.fell`)."""


class ConditioningSummary(Facts):
    """The input-conditioning gauge of the starting and the best node's train rollouts,
    and the edits that lowered it."""

    start: NodeGauge | None = None
    best: NodeGauge | None = None
    reads_less: list[ReadsLess] = Field(default_factory=list)


class ScreenSummary(Facts):
    """What the screen (`search.screen`) saw of the run's candidates before the gate."""

    looked: int = 0
    """Candidates it looked at."""
    inert: int = 0
    """Of them, those whose first prompt changed but not one sampled first action did."""
    dropped: int = 0
    """Inert candidates dropped without a gate (`on`)."""
    unseen: int = 0
    """Candidates whose first prompt and sampling were the same under the child: passed on to the gate."""
    inert_gated: int = 0
    """Inert candidates gated all the same (`audit`)."""
    inert_accepted: int = 0
    """Of those, the ones the gate accepted: what the screen would have lost."""
    changed_gated: int = 0
    changed_accepted: int = 0
    """Candidates with a changed first action that were gated, and of them the ones the gate accepted."""


class EvolutionSummary(Facts):
    """How an evolution run ended: why, what it tried and accepted, start against best on dev, what it spent."""

    run_id: str = ""
    stop: str = ""
    """Why it stopped: the budget that ran out."""
    iterations: int = 0
    root: str = ""
    best_node: str = ""
    start_dev: float | None = None
    start_dev_n: int = 0
    best_dev: float | None = None
    best_dev_n: int = 0
    dev_comparison: DevComparison | None = None
    gates: int | None = None
    """Edits gated (None in a run from before this was counted)."""
    expected_false_accepts: float = 0.0
    """Accepts that edits changing nothing would get from noise alone, at most: the sum of the gates' alphas."""
    decisions: int = 0
    """Gate decisions: an iteration's gating of its candidates (a race of several is one decision)."""
    rollouts_per_decision: float | None = None
    """Rollouts a gate decision ran on average (both sides; the evidence engine's reused parent rollouts are free)."""
    proposals: int = 0
    fates: dict[str, int] = Field(default_factory=dict)
    """Edits per status."""
    interrupted: int = 0
    """Edits whose gate the run's stop interrupted (`proposed`, their evidence so far in the ledger)."""
    accepted_by_move: dict[str, int] = Field(default_factory=dict)
    nodes: int = 0
    rollouts: int = 0
    spend: dict[str, float] = Field(default_factory=dict)
    """Dollars per role."""
    elapsed_s: float = 0.0
    conditioning: ConditioningSummary | None = None
    screen: ScreenSummary | None = None
    """None when the screen was off."""


SUMMARIES: dict[str, type[Facts]] = {"eval": EvalSummary, "compare": CompareSummary, "evolve": EvolutionSummary}
"""Run kind -> the record of its summary."""


class Fork(Facts):
    """Where a forked run started: the run and the node."""

    run: str
    node: str


class RunInfo(Record):
    """The row of `run`: one per run folder."""

    event: ClassVar[str] = "run"
    table: ClassVar[str] = "run"

    id: str
    kind: str | None = None
    """eval, compare, evolve (a benchmark writes its own)."""
    status: RunStatus | None = None
    started: float | None = None
    finished: float | None = None
    config: dict[str, Any] | None = None
    """The configuration an evolution run started with (also in its config.toml)."""
    harness: str | None = None
    """The harness folder it started from (eval, evolve)."""
    harness_hash: str | None = None
    """The harness an eval run scored."""
    root: str | None = None
    """The starting node of an evolution run."""
    tasks: str | None = None
    """The task suite folder."""
    suite: dict[str, str] | None = None
    """Task -> content hash of the suite when the run started (`suite_digest`)."""
    skipped: dict[str, str] = Field(default_factory=dict)
    """Task folders of the suite that could not be loaded, and why."""
    split: str | None = None
    trials: int | None = None
    agent: str | None = None
    harnesses: list[NamedHarness] = Field(default_factory=list)
    """The harnesses a compare run compares, in order."""
    forked_from: Fork | None = None
    best_node: str | None = None
    """The run's result: the best node of an evolution run, the harness an eval run scored."""
    summary: EvolutionSummary | CompareSummary | EvalSummary | dict[str, Any] | None = None
    """How it ended, as the record of its kind (`SUMMARIES`)."""

    @model_validator(mode="before")
    @classmethod
    def _summary_of_its_kind(cls, data: Any) -> Any:
        """Read the summary as the record of the run's kind; one that does not fit it stays a dict."""
        if isinstance(data, dict) and isinstance(data.get("summary"), dict) and data.get("kind") in SUMMARIES:
            try:
                data = {**data, "summary": SUMMARIES[data["kind"]].model_validate(data["summary"])}
            except ValidationError:
                pass
        return data

    @field_validator("summary", mode="plain")
    @classmethod
    def _as_read(cls, summary: Any) -> Any:
        """The summary as `_summary_of_its_kind` made it: a record, a dict or None."""
        if summary is None or isinstance(summary, (Facts, dict)):
            return summary
        raise ValueError("a run's summary is a record of its kind or a dict")
