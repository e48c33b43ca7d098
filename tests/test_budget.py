"""The pre-flight estimate a user reads before an evolution run starts."""

from harness_evo.config import RunConfig
from harness_evo.evolve.budget import estimate, time_spent
from harness_evo.store import RunStore


def evolve_config(**acceptance) -> RunConfig:
    config = RunConfig(kind="evolve")
    config.acceptance = config.acceptance.model_copy(update=acceptance)
    config.budget = config.budget.model_copy(update={"max_iterations": 5, "max_rollouts": 10_000})
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
    assert f"about {resumed.rollouts} more rollouts" in resumed.sentence() and "or 30 more min of wall time" in resumed.sentence()


def test_the_time_a_stopped_session_spent_after_its_last_checkpoint_counts_when_the_run_is_resumed(tmp_path):
    store = RunStore.create(tmp_path, "evolve")
    assert time_spent(store, checkpointed_s=100.0) == 100.0
    store.emit("clock", elapsed_s=160.0)
    assert time_spent(store, checkpointed_s=100.0) == 160.0, "stopped 60 s into the iteration after the checkpoint"
    assert time_spent(store, checkpointed_s=200.0) == 200.0, "a later session checkpointed and was then killed"
