"""The pre-flight estimate a user reads before an evolution run starts: what each budget allows at the pace of runs on
this machine, which one binds, and a refusal of budgets that cannot hold one gate."""

import time
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.config import RunConfig
from harness_evo.errors import UserError
from harness_evo.evolve import pace, session
from harness_evo.evolve.budget import estimate, time_spent
from harness_evo.evolve.pace import Pace
from harness_evo.store import RunStore

pytestmark = pytest.mark.usefixtures("user_cache")
MEASURED = Pace(seconds_per_rollout=14.3, rollouts=212, runs=3)


def evolve_config(**acceptance) -> RunConfig:
    config = RunConfig(kind="evolve")
    config.acceptance = config.acceptance.model_copy(update=acceptance)
    config.budget = config.budget.model_copy(
        update={"max_iterations": 5, "max_rollouts": 10_000, "max_wall_s": 360_000.0}
    )
    return config


def test_the_estimate_counts_gate_tasks_trials_and_second_looks():
    base = estimate(evolve_config(extra_trials=0), n_dev=6, step_limit=12)
    assert estimate(evolve_config(extra_trials=3), n_dev=6, step_limit=12).rollouts > base.rollouts, (
        "second looks cost rollouts"
    )
    assert estimate(evolve_config(extra_trials=0, pattern_tasks=8), n_dev=6, step_limit=12).rollouts > base.rollouts
    assert base.iterations == 5 and base.model_calls["proposer"] == 10


def test_the_estimate_counts_the_dev_rollouts_that_score_the_root_and_the_accepted_nodes():
    config = evolve_config()
    small, whole = estimate(config, n_dev=6, step_limit=12), estimate(config, n_dev=28, step_limit=12)
    assert whole.dev_rollouts >= 28, "the root is scored on every dev task"
    assert whole.rollouts - small.rollouts == whole.dev_rollouts - small.dev_rollouts, (
        "dev tasks cost only dev rollouts"
    )
    config.search = config.search.model_copy(update={"dev_trials": 3})
    assert estimate(config, n_dev=28, step_limit=12).dev_rollouts >= 3 * 28
    assert f"(about {whole.dev_rollouts} of them scoring harnesses on dev)" in whole.sentence()


def test_the_estimate_stops_at_the_rollout_budget_and_prices_only_hosted_models():
    config = evolve_config()
    config.budget.max_rollouts = 50
    local = estimate(config, n_dev=6, step_limit=12)
    assert local.rollouts == 50 and local.dollars["solver"] == 0.0
    assert "about 50 rollouts" in local.sentence() and "about $0.00" in local.sentence()

    config.models.solver.model = "gpt-4o-mini"
    config.models.proposer.model = "no-such-provider/unknown-model"
    hosted = estimate(config, n_dev=6, step_limit=12)
    assert hosted.dollars["solver"] > 0 and hosted.dollars["proposer"] is None
    assert "(some prices unknown)" in hosted.sentence()


def test_a_resumed_run_is_forecast_on_what_its_budgets_leave():
    config = evolve_config()
    config.budget = config.budget.model_copy(
        update={"max_iterations": 40, "max_rollouts": 1000, "max_wall_s": 120 * 60}
    )
    fresh = estimate(config, n_dev=6, step_limit=12)
    resumed = estimate(config, n_dev=6, step_limit=12, rollouts_done=600, iterations_done=20, minutes_done=90)

    assert resumed.rollouts <= 400 and resumed.iterations < fresh.iterations and resumed.wall_minutes == 30
    assert "rollouts" in fresh.sentence() and "more rollouts" not in fresh.sentence()
    assert (
        f"about {resumed.rollouts} more rollouts" in resumed.sentence()
        and f"30 more min hold about {30 * 60 // pace.DEFAULT_SECONDS:.0f} rollouts" in resumed.sentence()
    )


def test_the_time_a_stopped_session_spent_after_its_last_checkpoint_counts_when_the_run_is_resumed(tmp_path):
    store = RunStore.create(tmp_path, "evolve")
    assert time_spent(store, checkpointed_s=100.0) == 100.0
    store.emit("clock", elapsed_s=160.0)
    assert time_spent(store, checkpointed_s=100.0) == 160.0, "stopped 60 s into the iteration after the checkpoint"
    assert time_spent(store, checkpointed_s=200.0) == 200.0, "a later session checkpointed and was then killed"


def test_the_estimate_names_the_budget_that_binds_and_what_the_others_would_allow():
    config = RunConfig(kind="evolve")
    wall = estimate(config, n_dev=28, step_limit=12, pace=MEASURED, n_train=60)
    assert wall.binds == "wall time" and wall.rollouts == wall.allows["wall time"] == 62
    assert (
        "about 62 rollouts (about 36 of them scoring harnesses on dev)" in wall.sentence()
        and "the wall time binds: 15 min hold about 62 rollouts at 14.3 s each, the median of 3 earlier runs here, "
        "over 212 rollouts (the rollout budget allows 400; 20 iterations would take about"
        in wall.sentence()
    )
    assert (
        "it can decide about 1 edit, and a gain shown on dev needs at least 132 rollouts (about 32 min at this pace; "
        "more, as most gated edits are rejected)"
    ) in wall.sentence(), "28 dev + 4 minibatch + 72 gate + 28 dev of the child"
    config.budget = config.budget.model_copy(update={"max_wall_s": 3600.0})
    assert (
        "it can decide about 3 edits" in estimate(config, n_dev=28, step_limit=12, pace=MEASURED, n_train=60).sentence()
    )

    config.budget = config.budget.model_copy(update={"max_wall_s": 36_000.0, "max_rollouts": 150})
    assert estimate(config, n_dev=28, step_limit=12, pace=MEASURED, n_train=60).binds == "rollout budget"
    config.budget = config.budget.model_copy(update={"max_rollouts": 10_000, "max_iterations": 2})
    iterations = estimate(config, n_dev=28, step_limit=12, pace=MEASURED, n_train=60)
    assert iterations.binds == "iteration budget" and iterations.iterations == 2
    assert "the iteration budget binds: 2 iterations would take about" in iterations.sentence()


def test_a_dollar_cap_on_a_priced_model_can_bind():
    config = RunConfig(kind="evolve")
    config.models.solver.model = "gpt-4o-mini"
    config.budget = config.budget.model_copy(
        update={"max_wall_s": 36_000.0, "max_rollouts": 10_000, "max_dollars": {"solver": 0.05}}
    )
    capped = estimate(config, n_dev=28, step_limit=12, pace=MEASURED, n_train=60)
    assert (
        capped.binds == "solver dollar cap"
        and capped.rollouts < 100
        and "the solver dollar cap binds" in capped.sentence()
    )


def test_before_any_run_here_the_pace_is_the_documented_default_then_what_runs_measured():
    config = world.config()
    assert pace.pace(config) == Pace() and Pace().basis().startswith("a default until a run here measures it")
    assert f"took {pace.SPREAD[0]} to {pace.SPREAD[1]} s a rollout" in Pace().basis(), "how far off it may be"
    pace.record(config, "evolve-a", rollouts=3, seconds=600)
    assert pace.pace(config) == Pace(), "a session of 3 rollouts says too little"
    pace.record(config, "evolve-b", rollouts=40, seconds=400)
    assert pace.pace(config).basis() == "measured here over 40 rollouts of 1 earlier run"
    pace.record(config, "evolve-c", rollouts=60, seconds=840)
    assert pace.pace(config) == Pace(seconds_per_rollout=12.0, rollouts=100, runs=2), "the median of 10 s and 14 s"
    assert (
        pace.pace(config.model_copy(update={"executor": config.executor.model_copy(update={"workers": 5})})) == Pace()
    ), "a pace is per solver and workers"


def test_one_slow_run_beside_another_job_moves_the_pace_little_and_old_runs_not_at_all():
    config = world.config()
    for run, seconds in [
        ("evolve-a", 400),
        ("evolve-b", 440),
        ("evolve-c", 1134),
    ]:  # 10 s, 11 s, then 28.35 s beside another job
        pace.record(config, run, rollouts=40, seconds=seconds)
    assert pace.pace(config).seconds_per_rollout == 11.0
    assert pace.pace(config, now=time.time() + 31 * 24 * 3600) == Pace(), "a month later the machine may be another"
    for k in range(pace.KEPT):
        pace.record(config, f"evolve-{k}", rollouts=40, seconds=800)
    assert pace.pace(config).seconds_per_rollout == 20.0, "only the recent runs count"


def test_rollouts_answered_from_the_response_cache_are_discounted_from_the_pace():
    """A run started again on the same keys answers its first rollouts from the response cache, in no time."""
    config = world.config()
    pace.record(config, "evolve-a", rollouts=40, seconds=200, replayed_share=pace.replayed((100, 10), (200, 60)))
    assert pace.pace(config) == Pace(seconds_per_rollout=10.0, rollouts=20, runs=1), "half of its calls were replayed"
    pace.record(config, "evolve-b", rollouts=40, seconds=40, replayed_share=pace.replayed((100, 10), (200, 90)))
    assert pace.pace(config).runs == 1, "a session that replayed most of its calls measured the cache, not the machine"


def test_a_wall_time_that_may_be_too_small_for_one_gate_is_a_warning_with_the_budget_that_would_hold_one():
    """The README's main command after one run slowed down by another job beside it."""
    slow = Pace(seconds_per_rollout=28.36, rollouts=32, runs=1)
    forecast = estimate(RunConfig(kind="evolve"), n_dev=28, step_limit=12, pace=slow, n_train=68)
    assert forecast.refusal() is None
    assert forecast.warning() == (
        "warning: the wall time may end before any edit is gated: 15 min hold about 31 rollouts at 28.36 s "
        "each, measured here over 32 rollouts of 1 earlier run, and a first edit is gated only after at "
        "least 38 (the root's dev scoring, a minibatch and the child's gate on the smallest pattern); "
        "--budget-minutes 18 would hold one"
    )
    assert forecast.sentence().endswith(forecast.warning())


def test_a_rollout_budget_too_small_for_one_gate_is_refused_with_the_budget_to_raise(tmp_path: Path, one_line_error):
    config_file = tmp_path / "evolve.toml"
    world.config().save(config_file)

    error = one_line_error(
        "evolve", "--config", str(config_file), "--budget-rollouts", "10", "--runs", str(tmp_path / "runs")
    )

    assert error == (
        "error: the budgets cannot hold one gate: the rollout budget allows 10, and a first edit is gated only after "
        "at least 19 (the root's dev scoring, a minibatch and the child's gate on the smallest pattern): raise "
        "--budget-rollouts (budget.max_rollouts) to at least 19"
    )
    assert not (tmp_path / "runs").exists(), "nothing is recorded for a refused run"


def test_a_resumed_run_whose_rollout_budget_cannot_hold_one_more_gate_is_refused(tmp_path: Path, cli):
    world.register()
    store = session.start(world.config(max_iterations=1), tmp_path / "runs")
    session.run(store)
    done = len(store.rows("rollouts"))
    store.close()

    result = cli(
        "resume", store.id, "--iterations", "3", "--budget-rollouts", done + 2, "--runs", tmp_path / "runs", "--quiet"
    )

    assert isinstance(result.exception, UserError)
    message = str(result.exception)
    assert message.startswith(
        f"run {store.id} cannot go on: the budgets cannot hold one gate: the rollout budget allows 2 more"
    )
    assert int(message.rpartition("to at least ")[2]) > done + 2
    assert len(RunStore(store.folder).rows("rollouts")) == done, "nothing ran"


def test_after_one_slow_run_the_main_command_starts_with_a_warning_instead_of_refusing(tmp_path: Path, cli):
    world.register()
    config = world.config()
    config.save(tmp_path / "evolve.toml")
    pace.record(config, "evolve-slow", rollouts=10, seconds=600)

    result = cli("evolve", "--config", tmp_path / "evolve.toml", "--runs", tmp_path / "runs", "--quiet")

    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    assert (
        "warning: the wall time may end before any edit is gated: 15 min hold about 15 rollouts at 60 s each" in output
    )
    assert "stopped: 1 iterations done" in output
