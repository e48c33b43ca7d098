"""The paired comparison's verdict: what a user reads when two harnesses cannot be told apart."""

from harness_evo.stats import Pair, paired, verdict


def outcomes(tasks: int, trials: int, b_better: int, a_better: int) -> list[Pair]:
    """`tasks` x `trials` pairs that tie on failure except the first `b_better` (B passes) and next `a_better` (A passes)."""
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
