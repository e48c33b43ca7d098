"""The paired comparison's verdict: what a user reads when two harnesses cannot be told apart."""

import random

from harness_evo.stats import (
    Pair,
    fewest_wins,
    loss_bound,
    loss_e_value,
    mixture_e_value,
    paired,
    rate,
    upper_share,
    verdict,
)


def outcomes(tasks: int, trials: int, b_better: int, a_better: int) -> list[Pair]:
    """`tasks` x `trials` pairs that tie on failure except the first `b_better` (B passes) and next `a_better` (A
    passes)."""
    pairs = [Pair(f"t{i}", trial, 0, 0) for i in range(tasks) for trial in range(trials)]
    for k in range(b_better):
        pairs[k] = Pair(pairs[k].task_id, pairs[k].trial, 0, 1)
    for k in range(b_better, b_better + a_better):
        pairs[k] = Pair(pairs[k].task_id, pairs[k].trial, 1, 0)
    return pairs


def test_a_large_sample_with_few_differing_pairs_says_any_difference_is_smaller_than_it_could_find():
    line = verdict("A", "B", paired(outcomes(28, 3, b_better=4, a_better=3)))
    assert line.startswith("no measurable difference between B and A (+1.2 pp")
    assert "this sample would find a difference of 10.0 pp 4 times in 5" in line and "more trial" not in line


def test_a_small_sample_says_how_many_more_trials_per_task_would_resolve_a_difference():
    line = verdict("A", "B", paired(outcomes(4, 1, b_better=1, a_better=0)))
    assert "at this sample size" in line and "more trials per task would resolve a difference of 25.0 pp" in line


def test_pairs_that_all_tie_give_an_interval_as_wide_as_the_differing_share_could_be_not_a_point():
    ties = paired([Pair(f"t{i}", 0, float(i < 3), float(i < 3)) for i in range(28)])  # 3 of 28 passed by both
    assert ties.diff == 0 and ties.p_value is None
    assert ties.low < -0.1 and ties.high > 0.1, "28 ties cannot rule out a 10 pp difference"
    assert ties.interval() == "+0.0 pp [-12.3 pp, +12.3 pp]"  # 12.3%: the exact 95% bound on 0 differing of 28
    cancelled = paired([Pair("a", 0, 1, 0), Pair("a", 1, 0, 1), *(Pair(f"t{i}", 0, 0, 0) for i in range(26))])
    assert cancelled.low < -0.2 and cancelled.high > 0.2, "one fixed and one broken pair of one task: still unknown"
    spread = paired(outcomes(28, 3, b_better=4, a_better=3))
    assert spread.high - spread.low < 0.2, "a bootstrap with spread is kept as it is"


def test_mixture_e_value_of_fair_coin_flips_reaches_1_over_alpha_at_most_alpha_of_the_time_however_often_looked_at():
    alternatives, alpha, flips, sequences = (0.6, 0.7, 0.8), 0.1, 200, 3000
    rng = random.Random(0)
    crossed = 0
    for _ in range(sequences):
        wins = 0
        for n in range(1, flips + 1):
            wins += rng.random() < 0.5
            if mixture_e_value(wins, n - wins, alternatives) >= 1 / alpha:
                crossed += 1
                break
    share = rate(crossed, sequences)
    assert share.high <= alpha and share.low > alpha / 4, share  # valid, and not by never crossing


def test_the_fewest_fixed_pairs_to_reach_a_bar_and_an_upper_bound_of_a_share():
    assert fewest_wins(10.0, (0.6, 0.7, 0.8)) == 7 and mixture_e_value(7, 0, (0.6, 0.7, 0.8)) >= 10 > mixture_e_value(
        6, 0, (0.6, 0.7, 0.8)
    )
    assert 0.5 < upper_share(10, 10, 0.1) < 0.7 and upper_share(0, 20, 0.1) < 0.1 < upper_share(0, 0, 0.1)


def crossings(broken: float, fixed: float, margin: float, level: float, pairs: int, sequences: int) -> float:
    """The share of simulated gates, looking after every pair, whose loss e-value at `margin` ever reaches 1/level."""
    rng = random.Random(1)
    crossed = 0
    for _ in range(sequences):
        counts = {"fixed": 0, "broken": 0, "ties": 0}
        for _ in range(pairs):
            draw = rng.random()
            counts["broken" if draw < broken else "fixed" if draw < broken + fixed else "ties"] += 1
            if loss_e_value(counts["fixed"], counts["broken"], counts["ties"], margin) >= 1 / level:
                crossed += 1
                break
    return crossed / sequences


def test_a_child_that_loses_the_margin_is_cleared_of_that_loss_at_most_level_of_the_time_however_often_looked_at():
    # the child breaks 10% of the pairs and fixes 5%: it loses exactly the 5 pp margin
    share = crossings(broken=0.10, fixed=0.05, margin=0.05, level=0.1, pairs=150, sequences=600)
    assert share <= 0.1 + 0.04, share
    # a child that loses nothing is cleared of a 5 pp loss by most gates that long
    assert crossings(broken=0.05, fixed=0.05, margin=0.05, level=0.1, pairs=300, sequences=200) > 0.5


def test_the_loss_bound_rules_out_a_5_pp_loss_after_48_pairs_with_3_fixed_but_not_after_48_ties():
    assert loss_bound(3, 0, 45, 0.1) < 0.05 < loss_bound(0, 0, 48, 0.1)
    assert loss_bound(0, 0, 48, 0.1) > loss_bound(0, 0, 200, 0.1)  # more ties, a tighter bound
    assert loss_bound(0, 0, 0, 0.1) == 1.0 and loss_bound(20, 0, 0, 0.1) < 0  # nothing seen; a plain gain
