"""The pre-flight check of a run that is resumed: what its budgets leave, forecast as the loop will when it starts,
refused before anything runs when a counted budget (rollouts, dollars) cannot hold one more gate."""

from harness_evo.errors import UserError
from harness_evo.evolve.budget import Budget, Estimate, estimate, time_spent
from harness_evo.evolve.pace import pace
from harness_evo.evolve.session import dev_tasks, load_run_config
from harness_evo.evolve.state import LoopState
from harness_evo.harness import Harness
from harness_evo.store import RunStore
from harness_evo.taskset import load_suite


def resumed(store: RunStore) -> Estimate:
    """The forecast of what a resumed run's budgets leave, at the pace of runs here."""
    config = load_run_config(store)
    suite = load_suite(config.tasks, seed=config.seed)
    state = LoopState.last(store) or LoopState()
    budget = Budget(config, store, time_spent(store, state.elapsed_s))
    root = Harness.load(store.folder / "harnesses" / store.info.root)
    return estimate(
        config,
        len(dev_tasks(suite, config)),
        root.agent.step_limit,
        rollouts_done=budget.rollouts(),
        iterations_done=state.iteration,
        minutes_done=budget.elapsed_s / 60,
        pace=pace(config),
        n_train=len(suite.split("train")),
        spent=budget.spend(),
    )


def check_resume(store: RunStore) -> None:
    """Refuse to resume a run whose rollout budget (or a dollar cap) left cannot hold one more gate, naming the budget
    to raise; a wall time that may be short is said when the run starts (`Estimate.warning`)."""
    if refusal := resumed(store).refusal():
        raise UserError(f"run {store.id} cannot go on: {refusal}")
