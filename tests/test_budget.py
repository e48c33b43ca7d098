"""The pre-flight estimate a user reads before an evolution run starts: what each budget allows at the pace of runs on
this machine, which one binds, and a refusal of budgets that cannot hold one gate."""

from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.config import RunConfig
from harness_evo.evolve import pace
from harness_evo.evolve.budget import estimate, time_spent
from harness_evo.evolve.pace import Pace
from harness_evo.store import RunStore

pytestmark = pytest.mark.usefixtures("user_cache")
MEASURED = Pace(seconds_per_rollout=14.3, rollouts=212, runs=3)


def evolve_config(**acceptance) -> RunConfig:
    config = RunConfig(kind="evolve")
    config.acceptance = config.acceptance.model_copy(update=acceptance)
    config.budget = config.budget.model_copy(update={"max_iterations": 5, "max_rollouts": 10_000, "max_wall_s": 360_000.0})
    return config


def test_the_estimate_counts_gate_tasks_trials_and_second_looks():
    base = estimate(evolve_config(extra_trials=0), n_dev=6, step_limit=12)
    assert estimate(evolve_config(extra_trials=3), n_dev=6, step_limit=12).rollouts > base.rollouts, "second looks cost rollouts"
    assert estimate(evolve_config(extra_trials=0, pattern_tasks=8), n_dev=6, step_limit=12).rollouts > base.rollouts
    assert base.iterations == 5 and base.model_calls["proposer"] == 10


def test_the_estimate_counts_the_dev_rollouts_that_score_the_root_and_the_accepted_nodes():
    config = evolve_config()
    small, whole = estimate(config, n_dev=6, step_limit=12), estimate(config, n_dev=28, step_limit=12)
    assert whole.dev_rollouts >= 28, "the root is scored on every dev task"
    assert whole.rollouts - small.rollouts == whole.dev_rollouts - small.dev_rollouts, "dev tasks cost only dev rollouts"
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
    config.budget = config.budget.model_copy(update={"max_iterations": 40, "max_rollouts": 1000, "max_wall_s": 120 * 60})
    fresh = estimate(config, n_dev=6, step_limit=12)
    resumed = estimate(config, n_dev=6, step_limit=12, rollouts_done=600, iterations_done=20, minutes_done=90)

    assert resumed.rollouts <= 400 and resumed.iterations < fresh.iterations and resumed.wall_minutes == 30
    assert "rollouts" in fresh.sentence() and "more rollouts" not in fresh.sentence()
    assert f"about {resumed.rollouts} more rollouts" in resumed.sentence() and "30 more min hold about 180 rollouts" in resumed.sentence()


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
    assert ("about 62 rollouts (about 36 of them scoring harnesses on dev)" in wall.sentence()
            and "the wall time binds: 15 min hold about 62 rollouts at 14.3 s each, measured here over 212 rollouts of 3 "
                "earlier runs (the rollout budget allows 400; 20 iterations would take about" in wall.sentence())

    config.budget = config.budget.model_copy(update={"max_wall_s": 36_000.0, "max_rollouts": 150})
    assert estimate(config, n_dev=28, step_limit=12, pace=MEASURED, n_train=60).binds == "rollout budget"
    config.budget = config.budget.model_copy(update={"max_rollouts": 10_000, "max_iterations": 2})
    iterations = estimate(config, n_dev=28, step_limit=12, pace=MEASURED, n_train=60)
    assert iterations.binds == "iteration budget" and iterations.iterations == 2
    assert "the iteration budget binds: 2 iterations would take about" in iterations.sentence()


def test_a_dollar_cap_on_a_priced_model_can_bind():
    config = RunConfig(kind="evolve")
    config.models.solver.model = "gpt-4o-mini"
    config.budget = config.budget.model_copy(update={"max_wall_s": 36_000.0, "max_rollouts": 10_000, "max_dollars": {"solver": 0.05}})
    capped = estimate(config, n_dev=28, step_limit=12, pace=MEASURED, n_train=60)
    assert capped.binds == "solver dollar cap" and capped.rollouts < 100 and "the solver dollar cap binds" in capped.sentence()


def test_before_any_run_here_the_pace_is_the_documented_default_then_what_runs_measured():
    config = world.config()
    assert pace.pace(config) == Pace() and Pace().basis() == "a default until a run here measures it"
    pace.record(config, "evolve-a", rollouts=3, seconds=600)
    assert pace.pace(config) == Pace(), "a session of 3 rollouts says too little"
    pace.record(config, "evolve-b", rollouts=40, seconds=400)
    pace.record(config, "evolve-c", rollouts=60, seconds=800)
    assert pace.pace(config) == Pace(seconds_per_rollout=12.0, rollouts=100, runs=2)
    assert pace.pace(config.model_copy(update={"executor": config.executor.model_copy(update={"workers": 5})})) == Pace(), \
        "a pace is per solver and workers"


def test_a_session_that_replayed_its_model_calls_from_the_cache_does_not_set_the_pace():
    """A run started again on the same keys answers its first rollouts from the response cache, in no time."""
    config = world.config()
    pace.record(config, "evolve-a", rollouts=40, seconds=400)
    pace.record(config, "evolve-b", rollouts=40, seconds=40, replayed_share=pace.replayed((100, 10), (200, 90)))
    assert pace.pace(config) == Pace(seconds_per_rollout=10.0, rollouts=40, runs=1)
    pace.record(config, "evolve-c", rollouts=40, seconds=800, replayed_share=pace.replayed((100, 10), (200, 20)))
    assert pace.pace(config) == Pace(seconds_per_rollout=15.0, rollouts=80, runs=2), "10% replayed is kept"


def test_a_wall_time_too_small_for_one_gate_is_refused_with_the_budget_to_raise(tmp_path: Path, one_line_error):
    config_file = tmp_path / "evolve.toml"
    world.config().save(config_file)

    error = one_line_error("evolve", "--config", str(config_file), "--budget-minutes", "1", "--runs", str(tmp_path / "runs"))

    assert error == ("error: the budgets cannot hold one gate: 1 min hold about 6 rollouts at 10 s each, a default until a run here measures it, and a first "
                     "edit is gated only after at least 19 (the root's dev scoring, a minibatch and the child's gate on the "
                     "smallest pattern): raise --budget-minutes (budget.max_wall_s) to at least 4")
    assert not (tmp_path / "runs").exists(), "nothing is recorded for a refused run"


def test_a_budget_refused_at_the_pace_runs_here_measured(tmp_path: Path, one_line_error):
    config = world.config()
    config.save(tmp_path / "evolve.toml")
    pace.record(config, "evolve-slow", rollouts=10, seconds=600)

    error = one_line_error("evolve", "--config", str(tmp_path / "evolve.toml"), "--runs", str(tmp_path / "runs"))

    assert "15 min hold about 15 rollouts at 60 s each, measured here over 10 rollouts of 1 earlier run" in error
    assert error.endswith("raise --budget-minutes (budget.max_wall_s) to at least 19")
    assert "raise --budget-rollouts (budget.max_rollouts) to at least 19" in one_line_error(
        "evolve", "--config", str(tmp_path / "evolve.toml"), "--budget-minutes", "600", "--budget-rollouts", "10",
        "--runs", str(tmp_path / "runs"))
