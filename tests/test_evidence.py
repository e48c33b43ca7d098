"""The evidence engine in simulated worlds: it accepts true improvements sooner than today's gate, holds its
false-accept rate within alpha, stops for futility and harm, races candidates, keeps the rollouts that chose a gate's
tasks out of its pairs, and says in one line what is wrong with a bad setting."""

import random
from pathlib import Path

import pytest
from pydantic import ValidationError

from harness_evo import stats
from harness_evo.config import EvidenceConfig, one_line
from harness_evo.errors import ConfigError, UserError
from harness_evo.evolve.evidence import PARENT, Candidate, Engine, Halt, Interrupted, ParentPool, Stop
from harness_evo.evolve.evidence.sequential import SequentialTest
from harness_evo.evolve.evidence.world import Effect, SimTask, TodayGate, World, guide_patterns
from harness_evo.harness import Harness

BASH_AGENT = Path(__file__).parents[1] / "harnesses" / "bash-agent"
TASKS = [
    SimTask(f"{category}-{i}", category) for category in ("files", "git", "sqlite", "text", "config") for i in range(8)
]


def rates(seed: int, low: float = 0.0, high: float = 1.0, solved: float = 1.0) -> dict[str, float]:
    """Pass rates of TASKS: a share `solved` of them uniform in [low, high], the others 0 (beyond the model)."""
    rng = random.Random(f"rates:{seed}")
    return {task.id: rng.uniform(low, high) if rng.random() < solved else 0.0 for task in TASKS}


def guide_of(world: World) -> dict[tuple[str, int], float]:
    """The parent's trial-0 rollouts of every task: the run's minibatch, which finds the patterns."""
    return {(task.id, 0): world.reward(PARENT, world.rates, (task.id, 0)) for task in TASKS}


def gate(
    world: World,
    candidate: Candidate,
    effect: Effect,
    config: EvidenceConfig | None = None,
    pool: ParentPool | None = None,
    seed: int = 0,
):
    """One gate of `candidate` (true rates: `effect` on the world's) against a pool of the parent's trial-0 rollouts."""
    guide = guide_of(world)
    pool = pool if pool is not None else ParentPool(guide, spent=guide)
    measure = world.measure({PARENT: world.rates, candidate.id: effect.rates(world.rates)})
    return Engine(config or EvidenceConfig(), TASKS).gate(pool, candidate, measure, random.Random(seed))


def test_the_engine_pays_fewer_rollouts_per_accepted_improvement_than_todays_gate():
    engine_paid = engine_accepts = today_paid = today_accepts = 0
    for seed in range(30):
        world = World(rates(seed, 0.05, 0.95, solved=0.5), seed)
        effect = Effect(0.15)
        decision = gate(world, Candidate(id="child"), effect, seed=seed)
        engine_paid += decision.spend.total
        engine_accepts += decision.accepted is not None
        pattern = guide_patterns(guide_of(world), TASKS)[seed % 3]
        today = TodayGate(world, TASKS, guide_of(world), Harness.load(BASH_AGENT)).decide(
            "child", effect.rates(world.rates), pattern, random.Random(seed)
        )
        today_paid += today.rollouts
        today_accepts += today.verdict.accepted
    assert engine_accepts >= today_accepts and engine_accepts >= 24
    assert engine_paid / engine_accepts < today_paid / max(1, today_accepts)


def a_a_accepts(config: EvidenceConfig, gates: int, naive: bool = False, targeted: bool = False) -> stats.Rate:
    """Share of `gates` inert candidates accepted, each in a world of its own where every task is near the middle."""
    accepted = 0
    for seed in range(gates):
        world = World(rates(seed, 0.25, 0.75), seed, replay=0.0)
        guide = guide_of(world)
        patterns = guide_patterns(guide, TASKS)
        candidate = (
            Candidate(id="inert", scope="targeted", targets=patterns[seed % len(patterns)])
            if targeted
            else Candidate(id="inert")
        )
        pool = ParentPool(guide, spent=() if naive else guide)
        accepted += gate(world, candidate, Effect(0.0), config, pool, seed).accepted is not None
    return stats.rate(accepted, gates)


LONG_LOOKING = EvidenceConfig(alpha=0.3, max_rollouts=200, batch=4, futility=1e-9, harm_alpha=1e-9, max_trials=10)
"""A gate that stops only when it accepts or its budget is spent, looking often: the most chances to cross by luck.
A large alpha puts the false-accept rate where a few hundred gates can tell whether it exceeds alpha."""


def test_an_inert_edit_is_accepted_within_alpha_however_often_the_gate_looks():
    rate = a_a_accepts(LONG_LOOKING, gates=200)
    assert rate.high <= LONG_LOOKING.alpha, rate


def test_pairing_on_the_rollouts_that_chose_the_targets_inflates_false_accepts_and_the_pool_rule_prevents_it():
    naive = a_a_accepts(LONG_LOOKING, gates=120, naive=True, targeted=True)
    sound = a_a_accepts(LONG_LOOKING, gates=120, targeted=True)
    assert naive.low > LONG_LOOKING.alpha, naive
    assert sound.high <= LONG_LOOKING.alpha, sound


def test_a_gate_whose_pairs_all_tie_stops_for_futility_long_before_its_budget():
    world = World({task.id: 0.0 for task in TASKS}, 0)
    decision = gate(world, Candidate(id="child"), Effect(0.0))
    verdict = decision.verdicts[0]
    assert verdict.stop is Stop.FUTILE and not verdict.accepted and "futile" in verdict.reason
    assert verdict.fixed == verdict.broken == 0 and verdict.ties > 0
    assert decision.spend.total < EvidenceConfig().max_rollouts / 2


def test_an_inert_edit_stops_for_futility_before_the_budget_and_a_harmful_one_as_harmful():
    world = World(rates(1, 0.2, 0.8), 1)
    inert = gate(world, Candidate(id="inert"), Effect(0.0))
    assert inert.verdicts[0].stop is Stop.FUTILE and inert.verdicts[0].rollouts < EvidenceConfig().max_rollouts
    harmful = gate(world, Candidate(id="harmful"), Effect(-0.3))
    assert (
        harmful.verdicts[0].stop in (Stop.FUTILE, Stop.HARMFUL)
        and harmful.verdicts[0].rollouts < EvidenceConfig().max_rollouts / 4
    )
    patient = gate(world, Candidate(id="harmful"), Effect(-0.3), EvidenceConfig(futility=1e-9))
    assert patient.verdicts[0].stop is Stop.HARMFUL and patient.verdicts[0].harm_e_value >= 10
    assert "harmful" in patient.verdicts[0].reason and "broken against fixed e =" in patient.verdicts[0].reason


def test_a_first_look_whose_one_differing_pair_is_a_break_is_futile_unless_more_differing_pairs_are_awaited():
    first_look = [stats.Pair(f"t{i}", 0, 1.0 if i == 0 else 0.0, 0.0) for i in range(8)]
    eager = SequentialTest(EvidenceConfig(), alpha=0.1)
    assert eager.judge(first_look, protected=(), pairs_left=1000)[0] is Stop.FUTILE
    patient = SequentialTest(EvidenceConfig(futility_differing=3), alpha=0.1)
    assert patient.judge(first_look, protected=(), pairs_left=40) is None, "one break in 8 pairs can still turn"
    assert patient.judge(first_look, protected=(), pairs_left=1)[0] is Stop.FUTILE, "no pairs left to turn it"
    broken_thrice = [stats.Pair(f"t{i}", 0, 1.0 if i < 3 else 0.0, 0.0) for i in range(8)]
    assert patient.judge(broken_thrice, protected=(), pairs_left=40)[0] in (Stop.FUTILE, Stop.HARMFUL)
    all_ties = [stats.Pair(f"t{i}", 0, 0.0, 0.0) for i in range(40)]
    assert patient.judge(all_ties, protected=(), pairs_left=8)[0] is Stop.FUTILE, "pairs that all tie still end it"


def test_in_a_race_the_better_of_two_candidates_wins_and_the_other_keeps_its_evidence():
    wins = 0
    for seed in range(10):
        world = World(rates(seed, 0.1, 0.9, solved=0.6), seed)
        better, inert = Effect(0.25), Effect(0.0)
        guide = guide_of(world)
        measure = world.measure(
            {PARENT: world.rates, "better": better.rates(world.rates), "inert": inert.rates(world.rates)}
        )
        decision = Engine(EvidenceConfig(), TASKS).race(
            ParentPool(guide, spent=guide),
            [Candidate(id="inert"), Candidate(id="better")],
            measure,
            random.Random(seed),
        )
        accepted = [verdict for verdict in decision.verdicts if verdict.accepted]
        assert len(accepted) <= 1 and sum(decision.spend.children.values()) <= 2 * EvidenceConfig().max_rollouts
        assert all(verdict.candidate == "better" for verdict in accepted)
        loser = next(verdict for verdict in decision.verdicts if verdict.candidate == "inert")
        assert loser.stop in (Stop.OUTRACED, Stop.FUTILE) and loser.pairs > 0 and loser.reason
        assert decision.verdicts[0].threshold == 2 / EvidenceConfig().alpha  # alpha split over the two
        wins += bool(accepted)
    assert wins >= 8


def test_a_race_the_run_stops_mid_look_hands_back_each_candidates_evidence_so_far():
    world = World(rates(3, 0.1, 0.9, solved=0.6), 3)
    guide = guide_of(world)
    measure = world.measure({PARENT: world.rates, "a": Effect(0.1).rates(world.rates), "b": world.rates})
    looks = 0

    def stops_at_look_three(requests):
        nonlocal looks
        looks += PARENT not in requests  # a look measures the candidates once (the parent first when it lacks keys)
        if looks == 3:
            raise Halt("wall time reached (60 min) with rollouts in flight")
        return measure(requests)

    with pytest.raises(Interrupted, match="wall time reached") as stopped:
        Engine(EvidenceConfig(), TASKS).race(
            ParentPool(guide, spent=guide),
            [Candidate(id="a"), Candidate(id="b")],
            stops_at_look_three,
            random.Random(0),
        )
    a, b = stopped.value.decision.verdicts
    assert b.stop is Stop.FUTILE and b.looks < 3  # decided before the stop: its verdict stands
    assert a.stop is Stop.INTERRUPTED and not a.accepted
    assert a.looks == 2 and a.pairs == a.rollouts > 0  # the two whole looks' pairs; the third's rollouts never came
    assert a.reason.startswith("undecided when the run stopped (wall time reached")
    assert f"{a.fixed} fixed" in a.reason


def tokens(seed: int, scales: dict[str, float]):
    """A `cost` callback: each side's rollout at a key costs a seeded draw (the same law for every side) times its
    scale; a side without a scale has no known cost."""

    def cost(side: str, key: tuple[str, int]) -> float | None:
        if side not in scales:
            return None
        return scales[side] * (500 + random.Random(f"{seed}:{side}:{key}").expovariate(1 / 1500))

    return cost


def cost_gate(world: World, effect: Effect, scale: float, config: EvidenceConfig, seed: int):
    guide = guide_of(world)
    measure = world.measure({PARENT: world.rates, "child": effect.rates(world.rates)})
    cost = tokens(seed, {PARENT: 1.0, "child": scale})
    return Engine(config, TASKS).gate(
        ParentPool(guide, spent=guide), Candidate(id="child"), measure, random.Random(seed), cost
    )


def test_a_child_that_ties_on_passes_and_costs_less_is_accepted_as_cheaper_only_when_cost_alpha_is_set():
    world = World(rates(3, 0.2, 0.8), 3, replay=0.9)  # as in real gates, most pairs replay one episode and tie
    cheaper = cost_gate(world, Effect(0.0), 0.6, EvidenceConfig(cost_alpha=0.05), seed=3).verdicts[0]
    assert cheaper.accepted and cheaper.stop is Stop.CHEAPER, cheaper.reason
    assert cheaper.cost_e_value >= 20 and cheaper.cheaper > cheaper.dearer and cheaper.fixed >= cheaper.broken
    assert "cheaper at no plausible loss of passes" in cheaper.reason and "1/cost_alpha" in cheaper.reason
    assert cheaper.level == pytest.approx(0.15), "an inert edit may pass either test"
    on_passes = cost_gate(world, Effect(0.0), 0.6, EvidenceConfig(), seed=3).verdicts[0]
    assert not on_passes.accepted and on_passes.stop is Stop.FUTILE and on_passes.level == pytest.approx(0.1)


def test_a_cheaper_child_that_loses_passes_is_not_accepted_as_cheaper():
    for seed in range(10):
        world = World(rates(seed, 0.3, 0.9), seed)
        verdict = cost_gate(world, Effect(-0.25), 0.5, EvidenceConfig(cost_alpha=0.05), seed).verdicts[0]
        assert not verdict.accepted and verdict.stop in (Stop.FUTILE, Stop.HARMFUL), verdict.reason


def test_an_edit_that_changes_neither_passes_nor_costs_is_accepted_within_alpha_plus_cost_alpha():
    config = EvidenceConfig(alpha=0.1, cost_alpha=0.1, futility=0.3)
    accepted = sum(
        cost_gate(World(rates(seed, 0.25, 0.75), seed, replay=0.0), Effect(0.0), 1.0, config, seed).accepted is not None
        for seed in range(200)
    )
    rate = stats.rate(accepted, 200)
    assert rate.high <= config.alpha + config.cost_alpha, rate


def test_a_race_prefers_a_candidate_accepted_on_passes_to_one_accepted_as_cheaper():
    world = World(rates(5, 0.1, 0.9, solved=0.6), 5)
    guide = guide_of(world)
    measure = world.measure({PARENT: world.rates, "better": Effect(0.3).rates(world.rates), "cheaper": world.rates})
    decision = Engine(EvidenceConfig(cost_alpha=0.1), TASKS).race(
        ParentPool(guide, spent=guide),
        [Candidate(id="cheaper"), Candidate(id="better")],
        measure,
        random.Random(5),
        tokens(5, {PARENT: 1.0, "better": 1.0, "cheaper": 0.5}),
    )
    assert decision.accepted is not None and decision.accepted.candidate == "better"
    assert decision.accepted.stop is Stop.ACCEPTED


def test_the_pool_pairs_no_spent_key_and_the_parent_pays_only_for_keys_it_lacks():
    world = World(rates(2, 0.2, 0.8), 2)
    guide = guide_of(world)
    held = {(task.id, 1): world.reward(PARENT, world.rates, (task.id, 1)) for task in TASKS}
    pool = ParentPool({**guide, **held}, spent=guide)
    asked: dict[str, list] = {PARENT: [], "child": []}
    measure = world.measure({PARENT: world.rates, "child": Effect(0.2).rates(world.rates)})

    def recording(requests):
        for side, keys in requests.items():
            asked[side] += keys
        return measure(requests)

    decision = Engine(EvidenceConfig(), TASKS).gate(pool, Candidate(id="child"), recording, random.Random(0))
    assert not any(trial == 0 for _, trial in asked["child"]), "a spent key was paired"
    assert not set(asked[PARENT]) & set(held), "the parent paid again for a key its pool held"
    assert decision.spend.parent == len(asked[PARENT]) and decision.spend.children["child"] == len(asked["child"])
    assert set(asked[PARENT]) <= set(pool.rewards), "the pool keeps what the gate bought"
    assert all(choice.trial >= 1 and choice.reason for choice in decision.choices)


def test_a_pool_reads_its_guide_from_spent_keys_only_and_takes_trials_in_one_order():
    pool = ParentPool({("a", 0): 1.0, ("a", 1): 0.0, ("a", 2): 1.0, ("b", 0): 0.0}, spent=[("a", 0), ("b", 0)])
    guide = pool.guide()
    assert (guide["a"].passed, guide["a"].n, guide["b"].passed, guide["b"].n) == (1, 1, 0, 1)
    assert (
        pool.next_key("a", []) == ("a", 1)
        and pool.next_key("a", [1]) == ("a", 2)
        and pool.next_key("c", []) == ("c", 0)
    )
    assert pool.lacking([("a", 1), ("a", 3)]) == [("a", 3)]
    with pytest.raises(ValueError, match="spent"):
        pool.add({("a", 0): 1.0})


def test_a_global_edit_skips_never_passed_tasks_a_targeted_one_measures_its_targets_and_protects_a_regression_sample():
    never = {(TASKS[0].id, trial): 0.0 for trial in range(3)}
    passed = {(task.id, 0): 1.0 for task in TASKS[8:16]}
    world = World(rates(3, 0.3, 0.7), 3)
    pool = ParentPool({**never, **passed}, spent=[*never, *passed])
    engine = Engine(EvidenceConfig(), TASKS)
    measure = world.measure(
        {PARENT: world.rates, "global": world.rates, "tool": Effect(0.5, frozenset({TASKS[0].id})).rates(world.rates)}
    )
    chosen = {choice.task for choice in engine.gate(pool, Candidate(id="global"), measure, random.Random(0)).choices}
    assert TASKS[0].id not in chosen
    decision = engine.gate(
        pool, Candidate(id="tool", scope="targeted", targets=[TASKS[0].id]), measure, random.Random(0)
    )
    reasons = {choice.task: choice.reason for choice in decision.choices}
    assert "a target of the edit" in reasons[TASKS[0].id]
    regression = [task for task, why in reasons.items() if why.startswith("regression")]
    assert 1 <= len(regression) <= EvidenceConfig().regression_sample and all(
        task in {t.id for t in TASKS[8:16]} for task in regression
    )


def test_a_targeted_edit_that_loses_a_protected_task_is_rejected():
    world = World({task.id: 0.95 if task.category == "git" else 0.0 for task in TASKS}, 4)
    guide = {(task.id, 0): 1.0 if task.category == "git" else 0.0 for task in TASKS}
    breaks = {task.id: 0.0 for task in TASKS if task.category == "git"}
    child = {**world.rates, **breaks, TASKS[0].id: 0.9}
    measure = world.measure({PARENT: world.rates, "tool": child})
    decision = Engine(EvidenceConfig(), TASKS).gate(
        ParentPool(guide, spent=guide),
        Candidate(id="tool", scope="targeted", targets=[TASKS[0].id]),
        measure,
        random.Random(0),
    )
    verdict = decision.verdicts[0]
    assert verdict.stop in (Stop.PROTECTED, Stop.HARMFUL) and not verdict.accepted
    assert "protected" in verdict.reason or "harmful" in verdict.reason


def test_a_candidate_whose_harness_fails_to_run_is_rejected_and_lost_rollouts_are_left_unpaired():
    world = World(rates(5, 0.3, 0.7), 5)
    guide = guide_of(world)
    measure = world.measure({PARENT: world.rates, "flaky": world.rates})

    def broken(requests):
        got = measure({side: keys for side, keys in requests.items() if side != "broken"})
        for side, rewards in got.rewards.items():  # every even trial of a candidate lost
            got.rewards[side] = {key: reward for key, reward in rewards.items() if side == PARENT or key[1] % 2}
        if "broken" in requests:
            got.broken["broken"] = "prompts/system.md.j2: undefined variable 'tools_list'"
        return got

    decision = Engine(EvidenceConfig(), TASKS).race(
        ParentPool(guide, spent=guide), [Candidate(id="broken"), Candidate(id="flaky")], broken, random.Random(0)
    )
    by_id = {verdict.candidate: verdict for verdict in decision.verdicts}
    assert by_id["broken"].stop is Stop.BROKEN and "undefined variable" in by_id["broken"].reason
    assert by_id["flaky"].pairs < by_id["flaky"].rollouts  # lost rollouts are paid for, not paired


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ({"alpha": 1.5}, "alpha: 1.5 is no chance of an error; set a value between 0 and 1"),
        ({"alpha": 0}, "alpha: 0.0 is no chance of an error"),
        ({"harm_alpha": -0.1}, "harm_alpha: -0.1 is no chance"),
        (
            {"alternatives": [0.4, 0.7]},
            "alternatives: [0.4, 0.7] must be one or more shares of fixed pairs between 0.5 and 1",
        ),
    ],
)
def test_a_setting_out_of_range_is_one_line_naming_it_and_what_to_set(setting, words):
    with pytest.raises(ValidationError) as error:
        EvidenceConfig(**setting)
    line = one_line(error.value)
    assert words in line and "\n" not in line


def test_a_budget_that_cannot_reach_alpha_is_refused_naming_the_setting_to_raise():
    with pytest.raises(
        ConfigError,
        match=r"^evidence.max_rollouts = 4 cannot reach alpha 0.1: even 4 pairs, all fixed, give e = "
        r"[\d.]+ < 10; set evidence.max_rollouts to at least 7 or raise evidence.alpha$",
    ):
        Engine(EvidenceConfig(max_rollouts=4), TASKS)
    with pytest.raises(
        ConfigError,
        match=r"^evidence.max_trials = 1 over 3 train tasks allows 3 pairs.*set evidence.max_trials to at least 3",
    ):
        Engine(EvidenceConfig(max_trials=1), TASKS[:3])
    engine = Engine(EvidenceConfig(max_rollouts=8), TASKS)
    with pytest.raises(ConfigError, match="split over 3 candidates"):
        engine.race(ParentPool(), [Candidate(id=name) for name in "abc"], lambda side, keys: {}, random.Random(0))


def test_a_race_of_one_is_refused_in_one_line_pointing_to_the_plain_gate():
    with pytest.raises(
        UserError,
        match=r"^a race needs two or more candidates of one parent, got 1: gate a single candidate with Engine.gate$",
    ):
        Engine(EvidenceConfig(), TASKS).race(
            ParentPool(), [Candidate(id="only")], lambda side, keys: {}, random.Random(0)
        )


def test_a_candidate_with_nothing_to_test_on_is_rejected_before_any_rollout():
    world = World(rates(6), 6)
    decision = gate(world, Candidate(id="tool", scope="targeted", targets=["not-a-train-task"]), Effect(0.0))
    assert decision.verdicts[0].stop is Stop.SPENT and "nothing to test it on" in decision.verdicts[0].reason
    assert decision.spend.total == 0


def test_a_targeted_candidate_without_targets_is_refused():
    with pytest.raises(ValidationError, match="a targeted edit lists the tasks it is for in targets"):
        Candidate(id="tool", scope="targeted")


def scope_of(ops: list[dict], scope=None, sources=()) -> Candidate:
    """The engine's view of an edit of the scripted world's harness against a pattern of fruit and color."""
    from harness_evo import world
    from harness_evo.evolve.evidence_gate import evidence_scope
    from harness_evo.evolve.ledger import Candidate as Reviewed
    from harness_evo.evolve.target import Target
    from harness_evo.harness.edit import Edit as Change
    from harness_evo.store import Edit
    from harness_evo.taskset import load_suite

    parent = Harness.load(world.HARNESS)
    child = parent.apply(Change.model_validate({"ops": ops}))
    edit = Edit(id="i0-r0-0", iteration=0, parent_id=parent.hash, ops=ops, sources=list(sources))
    target = Target(description="saves files elsewhere", task_ids=["fruit", "color"])
    candidate = Reviewed(edit=edit, child=child, target=target, scope=scope)
    return evidence_scope(parent, candidate, load_suite(world.TASKS).split("train"))


def test_an_edit_of_a_prompt_or_settings_or_examples_is_global_and_any_other_is_targeted_at_its_pattern():
    from harness_evo import world

    prompt = scope_of([{"op": "replace", "path": "prompts/system.md.j2", "old": world.DEFECT, "new": world.FIX}])
    assert (prompt.scope, prompt.targets, prompt.exclude) == ("global", [], [])
    from harness_evo.harness.examples import SAMPLE_EXAMPLE, render_example

    episode = render_example(SAMPLE_EXAMPLE.model_copy(update={"task": "fruit"}))
    example = scope_of([{"op": "write", "path": "examples/fruit.md", "text": episode}], sources=["fruit"])
    assert (example.scope, example.exclude) == ("global", ["fruit"]), "an example's own task is never measured"
    settings = scope_of([{"op": "replace", "path": "harness.toml", "old": "step_limit = 6", "new": "step_limit = 8"}])
    assert settings.scope == "global"
    skill_md = "---\nname: files\ndescription: where files go\n---\nSave each file where the task says.\n"
    skill = scope_of([{"op": "write", "path": "skills/files/SKILL.md", "text": skill_md}])
    assert (skill.scope, skill.targets) == ("targeted", ["fruit", "color"])
    chosen = scope_of([{"op": "write", "path": "skills/files/SKILL.md", "text": skill_md}], scope="global")
    assert chosen.scope == "global", "a move may set the scope itself"
