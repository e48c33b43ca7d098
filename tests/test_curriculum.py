"""The curriculum: arms follow the promoted patterns, the bandit moves budget to arms that still teach,
explore never starves."""

import random

from harness_evo.config import CurriculumConfig
from harness_evo.curriculum import (
    EXPLORE,
    CurriculumState,
    FixedOrderCurriculum,
    LearningProgressCurriculum,
    PatternView,
    Pull,
    make_curriculum,
    rewards,
    similar_by_metadata,
)
from harness_evo.taskset import Task

TRAIN = [f"t{i}" for i in range(12)]


def pattern(
    pattern_id: str, status: str = "promoted", tasks: tuple[str, ...] = ("t0", "t1"), score: float = 0.6
) -> PatternView:
    return PatternView(
        id=pattern_id,
        status=status,
        tasks=list(tasks),
        severity=score,
        fixability=score,
        breadth=score,
        side_effect_risk=1 - score,
    )


def bandit(**config) -> LearningProgressCurriculum:
    return LearningProgressCurriculum(CurriculumConfig(**config), TRAIN)


def test_a_newly_promoted_pattern_becomes_an_arm_and_a_resolved_one_leaves():
    curriculum = bandit()
    curriculum.sync_arms([pattern("p1"), pattern("p2", status="candidate")])
    assert set(curriculum.probabilities()) == {EXPLORE, "p1"}

    changed = curriculum.sync_arms([pattern("p1", status="resolved"), pattern("p2")])

    assert set(curriculum.probabilities()) == {EXPLORE, "p2"}
    assert {arm.id: arm.active for arm in changed} == {"p1": False, "p2": True}
    assert "p1" in curriculum.state.arms, "a retired arm keeps its history"


def test_the_explore_arm_never_drops_below_its_floor():
    curriculum = bandit(floor=0.05, explore_prior=0.0)
    curriculum.sync_arms([pattern(f"p{i}", score=1.0) for i in range(5)])
    lowest = 1.0
    for step in range(30):
        curriculum.observe(f"p{step % 5}", 1.0)
        curriculum.observe(EXPLORE, -1.0)
        lowest = min(lowest, curriculum.probabilities()[EXPLORE])
    assert lowest >= 0.05 - 1e-12
    assert lowest < 0.06, "the floor, not the softmax, is what keeps explore alive here"


def test_an_arm_whose_edits_stopped_helping_loses_probability():
    curriculum = bandit()
    curriculum.sync_arms([pattern("stalled"), pattern("working")])
    for arm_id in ("stalled", "working"):
        curriculum.observe(arm_id, 0.5)
    history = [curriculum.probabilities()["stalled"]]
    for _ in range(5):
        curriculum.observe("stalled", 0.0)
        curriculum.observe("working", 0.4)
        history.append(curriculum.probabilities()["stalled"])

    assert all(later < earlier for earlier, later in zip(history, history[1:]))
    assert history[-1] < history[0] / 2 and history[-1] < curriculum.probabilities()["working"] / 3


def test_a_pull_rewards_the_pattern_worked_on_with_its_gates_gain_and_explore_with_what_it_found():
    gated = {"accepted": True, "fixed": 3, "broken": 1, "ties": 4}

    assert rewards(Pull(arm="p1", pattern="p1", **gated)) == {"p1": 0.25}, (
        "fixed minus broken over every pair of the gate"
    )
    assert rewards(Pull(arm="p1", pattern="p1", **{**gated, "accepted": False})) == {"p1": 0.0}, (
        "a rejected edit taught nothing"
    )
    assert rewards(Pull(arm="p1")) == {"p1": 0.0}, "no pattern to work on"
    assert rewards(Pull(arm=EXPLORE, pattern="p2", found=0.5, **gated)) == {EXPLORE: 0.5, "p2": 0.25}
    assert rewards(Pull(arm=EXPLORE, found=0.5)) == {EXPLORE: 0.5}

    curriculum = bandit()
    curriculum.sync_arms([pattern("p1")])
    curriculum.reward(Pull(arm=EXPLORE, pattern="gone", found=0.5, **gated))
    assert {arm.id: arm.evidence for arm in curriculum.state.arms.values()} == {EXPLORE: 1.0, "p1": 0.0}, (
        "no arm, no reward"
    )


def test_a_pattern_arm_draws_its_members_then_similar_unseen_train_tasks():
    tasks = [Task(id=f"t{i}", folder=".", instruction="", category="git" if i < 6 else "sqlite") for i in range(12)]
    curriculum = LearningProgressCurriculum(CurriculumConfig(minibatch=4), TRAIN, similar_by_metadata(tasks))
    curriculum.sync_arms([pattern("p", tasks=("t0", "t1", "dev-task"))])

    batch = curriculum.minibatch(curriculum.state.arms["p"], random.Random(0))

    assert {"t0", "t1"} <= set(batch) and len(batch) == 4
    assert set(batch) - {"t0", "t1"} <= {"t2", "t3", "t4", "t5"}, (
        "similar means the same category, and never a dev task"
    )


def test_the_explore_arm_draws_unseen_tasks_before_revisiting_the_oldest():
    curriculum = bandit(minibatch=5)
    explore = curriculum.state.arms[EXPLORE]
    rng = random.Random(1)
    first, second = curriculum.minibatch(explore, rng), curriculum.minibatch(explore, rng)
    third = curriculum.minibatch(explore, rng)

    assert len(set(first + second)) == 10
    assert set(third) == (set(TRAIN) - set(first + second)) | set(third[2:])
    assert set(third[2:]) <= set(first), "once all are seen, the tasks drawn longest ago come back first"


def test_a_restored_state_makes_the_same_choices():
    def run(curriculum, rng, steps):
        picks = []
        for _ in range(steps):
            arm = curriculum.choose(rng)
            picks.append((arm.id, tuple(curriculum.minibatch(arm, rng))))
            curriculum.observe(arm.id, 0.3 if arm.id == "p1" else 0.0)
        return picks

    whole = bandit()
    whole.sync_arms([pattern("p1"), pattern("p2", tasks=("t5", "t6"))])
    rng = random.Random(7)
    expected = run(whole, rng, 12)

    first_half = bandit()
    first_half.sync_arms([pattern("p1"), pattern("p2", tasks=("t5", "t6"))])
    rng = random.Random(7)
    picks = run(first_half, rng, 6)
    saved, rng_state = first_half.state.model_dump_json(), rng.getstate()
    resumed = bandit()
    resumed.state = CurriculumState.model_validate_json(saved)
    rng.setstate(rng_state)
    picks += run(resumed, rng, 6)

    assert picks == expected


def test_fixed_order_goes_round_the_arms_and_random_is_uniform():
    fixed = make_curriculum(CurriculumConfig(strategy="fixed"), TRAIN)
    fixed.sync_arms([pattern("p1"), pattern("p2")])
    rng = random.Random(0)
    order = []
    for _ in range(6):
        arm = fixed.choose(rng)
        fixed.minibatch(arm, rng)
        fixed.observe(arm.id, 1.0 if arm.id == "p2" else 0.0)
        order.append(arm.id)
    assert isinstance(fixed, FixedOrderCurriculum)
    assert order == [EXPLORE, "p1", "p2"] * 2, "progress does not change a fixed order"

    uniform = make_curriculum(CurriculumConfig(strategy="random"), TRAIN)
    uniform.sync_arms([pattern("p1", score=0.9), pattern("p2", score=0.1)])
    uniform.observe("p1", 1.0)
    assert set(uniform.probabilities().values()) == {1 / 3}
