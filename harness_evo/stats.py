"""The statistics behind every score the tool prints: intervals on pass rates, paired differences, paired tests.

A pass rate is a share of scored rollouts, shown with a Wilson score interval. Two harnesses run on the same
(task, trial) keys are compared pair by pair: the difference in pass@1 gets a bootstrap interval that resamples
tasks with their trials kept together (trials of one task are not independent), and an exact two-sided sign test
on the pairs that differ (McNemar's test) gives the p-value. A gate that looks after every batch of pairs weighs
them with a mixture e-value (`mixture_e_value`), which stays valid however often it is looked at; the most pass rate
a cheaper harness plausibly loses is bounded the same way, by a betting e-value (`loss_bound`).
"""

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from pydantic import BaseModel
from scipy.optimize import brentq, minimize
from scipy.special import betaincinv
from scipy.stats import betabinom, binomtest, norm

CONFIDENCE = 0.95
"""Level of every interval the tool prints."""
BOOTSTRAP_RESAMPLES = 4000
MIN_DETECTABLE = 0.10
"""The difference a sample-size hint speaks of when no difference was seen (10 percentage points)."""


class Score(BaseModel):
    """A pass rate as every view's facts and `--json` give it: the share, passed of n, and the 95% interval (None when
    nothing was scored)."""

    score: float | None = None
    passed: int = 0
    n: int = 0
    low: float | None = None
    high: float | None = None

    def __str__(self) -> str:
        if not self.n:
            return "- (n=0)"
        return f"{self.score:.0%} [{self.low:.0%}, {self.high:.0%}] (n={self.n})"


@dataclass(frozen=True)
class Rate:
    """A pass rate with its sample size and 95% interval."""

    passed: int
    n: int
    low: float
    high: float

    @property
    def value(self) -> float | None:
        return self.passed / self.n if self.n else None

    def facts(self) -> Score:
        """As every `--json` gives a pass rate (see `Score`)."""
        scored = bool(self.n)
        return Score(
            score=self.value,
            passed=self.passed,
            n=self.n,
            low=self.low if scored else None,
            high=self.high if scored else None,
        )

    def __str__(self) -> str:
        return str(self.facts())


def rate(passed: int, n: int) -> Rate:
    """`passed` of `n` with its Wilson interval ([0, 1] when n is 0)."""
    if n <= 0:
        return Rate(0, 0, 0.0, 1.0)
    interval = binomtest(passed, n).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return Rate(passed, n, float(interval.low), float(interval.high))


def rate_of(value: float | None, n: int | None) -> Rate | None:
    """The Rate of a stored share and its count (None when nothing was scored)."""
    if value is None or not n:
        return None
    return rate(round(value * n), n)


@dataclass(frozen=True)
class Pair:
    """Two harnesses' rewards on one (task, trial) key, a pass being 1.0: `a` the first (in a gate, the parent), `b` the
    other (the child)."""

    task_id: str
    trial: int
    a: float
    b: float


@dataclass(frozen=True)
class Difference:
    """B minus A in pass@1 over paired keys, with its interval and the sign test on the pairs that differ."""

    n: int
    tasks: int
    a_rate: float
    b_rate: float
    low: float
    high: float
    b_better: int
    """Pairs where B scored higher."""
    a_better: int
    """Pairs where A scored higher."""
    p_value: float | None
    """Exact two-sided sign test on the differing pairs; None when none differ."""

    @property
    def diff(self) -> float:
        return self.b_rate - self.a_rate

    def significant(self, alpha: float) -> bool:
        return self.p_value is not None and bool(self.p_value <= alpha)

    def interval(self) -> str:
        return f"{pp(self.diff)} [{pp(self.low, sign=True)}, {pp(self.high, sign=True)}]"


def pp(value: float, sign: bool = True) -> str:
    """A difference of shares in percentage points: `+12.5 pp`."""
    return f"{value * 100:+.1f} pp" if sign else f"{value * 100:.1f} pp"


def paired(pairs: Sequence[Pair], seed: int = 0, resamples: int = BOOTSTRAP_RESAMPLES) -> Difference:
    """The paired difference of B over A: bootstrap over tasks (trials kept together) and an exact sign test.

    When no task's pairs move the difference (every pair ties, or a task's fixed and broken pairs cancel), every
    resample gives the same difference and the bootstrap's interval has no width, which claims a certainty the sample
    does not have; the interval is then +-u around 0, u the exact upper bound on the share of pairs that differ (no
    difference can exceed it)."""
    if not pairs:
        return Difference(0, 0, 0.0, 0.0, 0.0, 0.0, 0, 0, None)
    by_task: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_task[pair.task_id].append(pair)
    sums = [(sum(o.b - o.a for o in group), len(group)) for group in by_task.values()]
    rng = random.Random(seed)
    diffs = []
    for _ in range(resamples):
        draw = rng.choices(sums, k=len(sums))
        diffs.append(sum(d for d, _ in draw) / sum(n for _, n in draw))
    diffs.sort()
    tail = (1 - CONFIDENCE) / 2
    low, high = diffs[int(tail * resamples)], diffs[min(resamples - 1, int((1 - tail) * resamples))]
    b_better = sum(o.b > o.a for o in pairs)
    a_better = sum(o.a > o.b for o in pairs)
    discordant = a_better + b_better
    p_value = binomtest(b_better, discordant, 0.5).pvalue if discordant else None
    n = len(pairs)
    if low == high:
        bound = binomtest(discordant, n).proportion_ci(CONFIDENCE, method="exact").high
        low, high = min(low, -bound), max(high, bound)
    return Difference(
        n,
        len(by_task),
        sum(o.a for o in pairs) / n,
        sum(o.b for o in pairs) / n,
        low,
        high,
        b_better,
        a_better,
        p_value,
    )


def paired_on(a: Mapping[tuple[str, int], float], b: Mapping[tuple[str, int], float]) -> Difference:
    """`paired` over the (task, trial) keys both reward maps have, in key order."""
    return paired([Pair(task, trial, a[task, trial], b[task, trial]) for task, trial in sorted(a.keys() & b.keys())])


@dataclass(frozen=True)
class CostDifference:
    """B against A in tokens a rollout over paired keys: each side's mean, and the one-sided sign test of "B's rollout
    is the cheaper at a key no more often than A's"."""

    n: int
    a_mean: float
    b_mean: float
    b_cheaper: int
    """Keys where B's rollout cost fewer tokens."""
    a_cheaper: int
    p_value: float | None
    """Exact one-sided sign test on the keys whose costs differ; None when none do."""

    def significant(self, alpha: float) -> bool:
        return self.p_value is not None and bool(self.p_value <= alpha)

    def sentence(self) -> str:
        """`1,985 against 3,395 tokens a rollout (-42%); cheaper on 30 of the 34 keys whose costs differ, p = 0.001`."""
        change = f" ({self.b_mean / self.a_mean - 1:+.0%})" if self.a_mean else ""
        differ = self.b_cheaper + self.a_cheaper
        p = f", p = {self.p_value:.3g}" if self.p_value is not None else ""
        return (
            f"{self.b_mean:,.0f} against {self.a_mean:,.0f} tokens a rollout{change}; cheaper on {self.b_cheaper} of "
            f"the {differ} keys whose costs differ{p}"
        )


def cheaper_on(a: Mapping[tuple[str, int], float], b: Mapping[tuple[str, int], float]) -> CostDifference:
    """B's costs against A's on the (task, trial) keys both have."""
    keys = sorted(a.keys() & b.keys())
    if not keys:
        return CostDifference(0, 0.0, 0.0, 0, 0, None)
    b_cheaper = sum(b[key] < a[key] for key in keys)
    a_cheaper = sum(b[key] > a[key] for key in keys)
    differ = b_cheaper + a_cheaper
    p_value = binomtest(b_cheaper, differ, 0.5, alternative="greater").pvalue if differ else None
    a_mean, b_mean = (sum(side[key] for key in keys) / len(keys) for side in (a, b))
    return CostDifference(len(keys), a_mean, b_mean, b_cheaper, a_cheaper, p_value)


def trials_to_resolve(difference: Difference, alpha: float = 0.05, power: float = 0.8) -> tuple[int, float]:
    """(trials per task in all, the difference they resolve): how many trials of each task a sign test at `alpha` needs
    to find the difference seen (or `MIN_DETECTABLE` when none was seen) with `power`, at the share of pairs that
    differed (at least the difference itself)."""
    if not difference.n:
        return 0, MIN_DETECTABLE
    target = max(abs(difference.diff), MIN_DETECTABLE)
    discordant_share = max((difference.a_better + difference.b_better) / difference.n, target)
    winning = min(0.999, 0.5 + target / (2 * discordant_share))
    z_alpha, z_power = norm.ppf(1 - alpha / 2), norm.ppf(power)
    pairs_needed = (
        (z_alpha * 0.5 + z_power * math.sqrt(winning * (1 - winning))) / (winning - 0.5)
    ) ** 2 / discordant_share
    return math.ceil(pairs_needed / max(1, difference.tasks)), target


def verdict(a: str, b: str, difference: Difference, alpha: float = 0.05) -> str:
    """One line: whether B is better or worse than A, or that this sample cannot tell."""
    if not difference.n:
        return f"{b} and {a} share no scored (task, trial) key: nothing to compare"
    tests = (
        f"{difference.interval()}, p = {difference.p_value:.3g}"
        if difference.p_value is not None
        else difference.interval()
    )
    if difference.significant(alpha):
        return f"{b} is {'better' if difference.diff > 0 else 'worse'} than {a}: {tests}"
    trials, target = trials_to_resolve(difference, alpha)
    more = trials - math.floor(difference.n / max(1, difference.tasks))
    if more <= 0:
        return (
            f"no measurable difference between {b} and {a} ({tests}); this sample would find a difference of "
            f"{pp(target, sign=False)} 4 times in 5, so any difference is likely smaller"
        )
    return (
        f"no measurable difference between {b} and {a} at this sample size ({tests}); about {more} more "
        f"trial{'s' * (more != 1)} per task would resolve a difference of {pp(target, sign=False)}"
    )


def expected_false_accepts(alphas: Iterable[float]) -> float:
    """Accepts that edits which change nothing would get from noise alone, at most: the sum of the gates' alphas."""
    return sum(alphas)


# --- sequential evidence on the pairs that differ ---------------------------------------------------------------------


def mixture_e_value(wins: float, losses: float, alternatives: Sequence[float]) -> float:
    """The e-value of `wins` against `losses` among pairs that differ, against "a win is no likelier than a loss": the
    mean over `alternatives` (shares of wins above 1/2) of the likelihood ratio (2q)^wins (2(1-q))^losses.

    Under that null each pair that differs multiplies every ratio by a factor whose expectation, given everything seen
    before, is at most 1, whatever chose the pair; so the mean is a nonnegative supermartingale, and by Ville's
    inequality the chance that it ever reaches 1/alpha is at most alpha, however often it is looked at. Counts may be
    fractional (a projection of pairs still to come)."""
    logs = [wins * math.log(2 * q) + losses * math.log(2 * (1 - q)) for q in alternatives]
    return math.exp(min(700.0, log_mean_exp(logs)))


@lru_cache(maxsize=256)
def fewest_wins(threshold: float, alternatives: tuple[float, ...], limit: int = 100_000) -> int | None:
    """The fewest pairs, all of them wins, whose mixture e-value reaches `threshold` (None beyond `limit`)."""
    return next((n for n in range(limit + 1) if mixture_e_value(n, 0, alternatives) >= threshold), None)


def log_mean_exp(logs: Sequence[float]) -> float:
    """The logarithm of the mean of exp(`logs`), without overflow: how a mixture of likelihood ratios is averaged (in
    plain Python: the gates and their simulations call it for every look, where numpy's overhead per call dominates)."""
    top = max(logs)
    return top + math.log(math.fsum(math.exp(log - top) for log in logs) / len(logs))


LOSS_BETS = tuple(step / 10 for step in range(1, 10))
"""The bets whose mean makes `loss_e_value`: fractions of the largest stake a broken pair cannot turn negative."""


def loss_e_value(fixed: float, broken: float, ties: float, margin: float, bets: Sequence[float] = LOSS_BETS) -> float:
    """The e-value against "B loses at least `margin` of pass rate to A" from paired keys (B fixed `fixed` of them,
    broke `broken`, tied the rest): the mean over `bets` c of the product, over the pairs, of 1 + lambda (margin - Y),
    where Y is 1 for a broken pair, -1 for a fixed one and 0 for a tie, and lambda = c / (1 - margin).

    Under that null Y's mean, given everything seen before, is at least `margin`, so each factor's expectation is at
    most 1 and the mean is a nonnegative supermartingale: by Ville's inequality it reaches 1/level with chance at most
    level, however often it is looked at (a betting test of a bounded mean). It grows with `margin`."""
    return math.exp(min(700.0, log_loss_e_value(fixed, broken, ties, margin, bets)))


def log_loss_e_value(
    fixed: float, broken: float, ties: float, margin: float, bets: Sequence[float] = LOSS_BETS
) -> float:
    """The logarithm of `loss_e_value` (no overflow however many pairs)."""
    if not -1 < margin < 1:
        raise ValueError(f"a margin of pass rate lies between -1 and 1, not {margin}")
    stakes = [bet / (1 - margin) for bet in bets]
    logs = [
        fixed * math.log1p(stake * (margin + 1))
        + broken * math.log1p(stake * (margin - 1))
        + ties * math.log1p(stake * margin)
        for stake in stakes
    ]
    return log_mean_exp(logs)


def loss_bound(fixed: float, broken: float, ties: float, level: float) -> float:
    """The most pass rate B plausibly loses to A on these pairs (below 0: it plausibly gains): the smallest margin whose
    `loss_e_value` reaches 1/level, so that a larger loss is ruled out at `level`, anytime-valid."""

    def short(margin: float) -> float:
        return log_loss_e_value(fixed, broken, ties, margin) + math.log(level)

    low, high = -0.999, 0.999
    if short(high) < 0:
        return 1.0
    if short(low) >= 0:
        return -1.0
    return float(brentq(short, low, high, xtol=1e-6))


def upper_share(successes: float, failures: float, level: float) -> float:
    """An upper bound of a share from its counts, exceeded with chance `level` by the Jeffreys posterior
    Beta(successes + 1/2, failures + 1/2): the most the share plausibly is."""
    return float(betaincinv(successes + 0.5, failures + 0.5, 1 - level))


def beta_binomial_fit(counts: Sequence[tuple[int, int]]) -> tuple[float, float]:
    """(a, b) of the Beta distribution of per-task pass rates that makes `counts` ((passed, n) per task) likeliest,
    by maximum likelihood of the beta-binomial: how pass rates spread over tasks, from a few trials of each."""
    passed = np.array([k for k, _ in counts])
    trials = np.array([n for _, n in counts])

    def loss(log_ab: np.ndarray) -> float:
        a, b = np.exp(log_ab)
        return -float(betabinom.logpmf(passed, trials, a, b).sum())

    mean = (passed.sum() + 0.5) / (trials.sum() + 1)
    fit = minimize(
        loss, np.log([mean * 2, (1 - mean) * 2]), method="Nelder-Mead", options={"xatol": 1e-6, "fatol": 1e-9}
    )
    a, b = np.exp(fit.x)
    return float(a), float(b)
