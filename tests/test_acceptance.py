"""The acceptance gate: a child replaces its parent only on evidence, and says why each time."""

import random

from harness_evo.config import AcceptanceConfig
from harness_evo.evolve.acceptance import AcceptAll, SignTest, StrictSum, make_rule, pair_rollouts
from harness_evo.stats import Pair
from harness_evo.store import Rollout


def pairs(fixed: int = 0, broken: int = 0, ties: int = 0) -> list[Pair]:
    outcomes = [(0.0, 1.0)] * fixed + [(1.0, 0.0)] * broken + [(1.0, 1.0)] * ties
    return [Pair(f"task-{i}", 0, a=parent, b=child) for i, (parent, child) in enumerate(outcomes)]


def noisy_twins(rng: random.Random, tasks: int = 8, trials: int = 3) -> list[Pair]:
    """A child identical to its parent: every task passes with its own probability on either side, independently."""
    rates = [rng.uniform(0.2, 0.8) for _ in range(tasks)]
    return [
        Pair(f"task-{task}", trial, a=float(rng.random() < rate), b=float(rng.random() < rate))
        for task, rate in enumerate(rates)
        for trial in range(trials)
    ]


def test_a_child_identical_to_its_parent_is_rejected_under_noise():
    gate, strict = SignTest(alpha=0.1), StrictSum()
    verdicts = [gate.decide(noisy_twins(random.Random(seed))) for seed in range(400)]
    lucky = [strict.decide(noisy_twins(random.Random(seed))) for seed in range(400)]

    accepted = sum(verdict.accepted for verdict in verdicts) / len(verdicts)
    assert accepted <= 0.1, "a sign test at alpha 0.1 accepts noise at most 10% of the time"
    assert sum(verdict.accepted for verdict in lucky) / len(lucky) > 0.3, (
        "the strict sum takes lucky noise for progress"
    )
    first = verdicts[0]
    assert not first.accepted and first.fixed + first.broken + first.ties == 24
    assert first.reason.startswith(
        ("not significant", "too few pairs differ", "all 24 pairs tie", "the child broke as many")
    )


def test_a_child_that_fixes_six_of_six_and_breaks_none_is_accepted():
    verdict = SignTest(alpha=0.1).decide(pairs(fixed=6, ties=10))
    assert verdict.accepted
    assert (verdict.fixed, verdict.broken, verdict.ties) == (6, 0, 10)
    assert verdict.p_value == 1 / 64
    assert verdict.reason == "6 fixed vs 0 broken (10 ties), p = 0.016 <= alpha 0.1"


def test_a_child_that_fixes_five_and_breaks_four_is_rejected_by_the_sign_test_but_not_the_strict_sum():
    verdict = SignTest(alpha=0.1).decide(pairs(fixed=5, broken=4))
    assert not verdict.accepted and verdict.p_value == 0.5
    assert verdict.reason == "not significant: 5 fixed vs 4 broken (0 ties), p = 0.500 > alpha 0.1"

    strict = StrictSum().decide(pairs(fixed=5, broken=4))
    assert (
        strict.accepted and strict.reason == "child total 5 > parent total 4 over 9 pairs: 5 fixed vs 4 broken (0 ties)"
    )


def test_ties_and_too_few_differing_pairs_are_rejections_with_their_reason():
    gate = SignTest(alpha=0.1)
    ties = gate.decide(pairs(ties=12))
    few = gate.decide(pairs(fixed=3, ties=9))
    nothing = gate.decide([])

    assert not ties.accepted and ties.reason == "all 12 pairs tie: the child does no better than its parent here"
    assert not few.accepted and few.reason == (
        "too few pairs differ to tell: 3 fixed vs 0 broken (9 ties); the sign test at alpha 0.1 needs at least 4"
    )
    assert not nothing.accepted and nothing.reason.startswith("no paired results")


def test_a_child_that_breaks_more_than_it_fixes_is_rejected_for_that_however_few_pairs_differ():
    worse = SignTest(alpha=0.05).decide(pairs(fixed=1, broken=3, ties=11))
    assert not worse.accepted and not worse.undecided
    assert worse.reason == "the child broke as many pairs as it fixed, or more: 1 fixed vs 3 broken (11 ties)"


def test_losing_a_protected_task_rejects_an_otherwise_clear_improvement():
    lost = [Pair("kept-green", trial, a=1.0, b=0.0) for trial in range(2)]
    flaky = [Pair("flaky", 0, a=1.0, b=0.0), Pair("flaky", 1, a=1.0, b=1.0)]
    rare = [Pair("rare", trial, a=float(trial == 0), b=0.0) for trial in range(3)]
    gate = SignTest(alpha=0.1)

    verdict = gate.decide(pairs(fixed=8) + lost, protected={"kept-green", "flaky"})
    only_flaky = gate.decide(pairs(fixed=8) + flaky, protected={"kept-green", "flaky"})
    only_rare = gate.decide(pairs(fixed=8) + rare, protected={"rare"})

    assert not verdict.accepted
    assert verdict.reason == (
        "the child lost protected task kept-green (the parent passed it on at least half of its trials, the child "
        "on none)"
    )
    assert only_flaky.accepted, "one failed trial of a task the child still passes is noise, not a lost task"
    assert only_rare.accepted, (
        "a task the parent passed once in three trials is failed three times by chance a third of the time"
    )


def test_rollout_rows_pair_on_identical_keys_and_skip_what_is_not_the_agents_fault():
    def row(task_id, trial, reward, exit_reason="done"):
        return Rollout(
            id=f"{task_id}{trial}", task_id=task_id, split="train", trial=trial, reward=reward, exit_reason=exit_reason
        )

    parent = [row("a", 0, 0.0), row("a", 1, 1.0), row("b", 0, 0.0), row("c", 0, 1.0)]
    child = [row("a", 0, 1.0), row("a", 1, 1.0), row("b", 0, None, "infra_error"), row("d", 0, 1.0)]

    assert pair_rollouts(parent, child) == [Pair("a", 0, a=0.0, b=1.0), Pair("a", 1, a=1.0, b=1.0)]


def test_a_child_ahead_but_short_of_significance_is_undecided_and_a_child_behind_is_not():
    gate = SignTest(alpha=0.1, looks=2)

    ahead = gate.decide(pairs(fixed=4, ties=14))
    behind = gate.decide(pairs(fixed=2, broken=3, ties=13))

    assert not ahead.accepted and ahead.undecided
    assert (
        ahead.reason
        == "too few pairs differ to tell: 4 fixed vs 0 broken (14 ties); the sign test at alpha 0.05 needs at least 5"
    )
    assert not behind.accepted and not behind.undecided
    assert not SignTest(alpha=0.1, looks=2, second_look_p=0.25).decide(pairs(fixed=1, ties=8)).undecided, (
        "p = 0.5: not worth a second look"
    )
    assert gate.decide(pairs(fixed=6, ties=12)).accepted


def test_a_second_look_at_more_trials_still_accepts_noise_at_most_alpha_of_the_time():
    gate = SignTest(alpha=0.1, looks=2, second_look_p=1.0)

    def two_looks(seed: int) -> bool:
        all_pairs = noisy_twins(random.Random(seed), trials=6)
        verdict = gate.decide([pair for pair in all_pairs if pair.trial < 3])
        return (gate.decide(all_pairs) if verdict.undecided else verdict).accepted

    assert sum(two_looks(seed) for seed in range(400)) / 400 <= 0.1


def test_random_search_accepts_every_edit_even_one_that_breaks_a_protected_task():
    rule = make_rule(AcceptanceConfig(rule="none"))
    verdict = rule.decide(pairs(broken=5, ties=1), protected=["task-0"])

    assert (
        isinstance(rule, AcceptAll) and verdict.accepted and (verdict.fixed, verdict.broken, verdict.ties) == (0, 5, 1)
    )
    assert verdict.reason == "accepted without a test (acceptance rule none): 0 fixed vs 5 broken (1 ties)"
    assert rule.decide([]).accepted, "no pairs at all is still an accept"


def test_the_rule_is_chosen_by_name():
    assert isinstance(make_rule(AcceptanceConfig(rule="strict-sum")), StrictSum)
    one_look = make_rule(AcceptanceConfig(rule="sign-test", alpha=0.05, extra_trials=0))
    two_looks = make_rule(AcceptanceConfig(rule="sign-test", alpha=0.05))
    assert isinstance(one_look, SignTest) and one_look.min_discordant == 5
    assert two_looks.alpha == 0.025 and two_looks.min_discordant == 6
