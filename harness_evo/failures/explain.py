"""Explain the failed rollouts of an eval run into failure patterns: the library behind `harness-evo analyze`."""

from collections.abc import Callable
from pathlib import Path

from harness_evo.config import RunConfig
from harness_evo.errors import UserError
from harness_evo.failures.analysis import FailureAnalysis
from harness_evo.llm import LLM, ModelUnavailable
from harness_evo.store import Failure, Rollout, RunStore
from harness_evo.taskset import load_suite


def eval_rollouts(store: RunStore) -> list[Rollout]:
    """The rollouts of an eval run in the order they were recorded; any other kind of run is refused."""
    if store.info.get("kind") != "eval":
        raise UserError(f"{store.id} is a {store.info.get('kind')} run; `analyze` explains eval runs (evolve runs analyze their own)")
    return store.records(Rollout, order_by="rowid")


def analyze_run(store: RunStore, rollouts: list[Rollout], model: str | None = None, all_splits: bool = False,
                on_rollout: Callable[[Rollout], None] | None = None) -> int:
    """Triage, explain and group `rollouts` of the eval run with its own settings (`model` names another analyzer);
    failures of dev and test tasks are only counted unless `all_splits`. Returns how many were only counted."""
    config_path = store.folder / "config.toml"
    config = (RunConfig.load(config_path) if config_path.is_file() else RunConfig()).with_options({"models.analyzer.model": model})
    suite = load_suite(config.tasks, seed=config.seed) if Path(config.tasks).is_dir() else None
    try:
        with LLM(config.run_models(), store=store) as llm:
            FailureAnalysis(store, llm, config.failures, suite, explain=("train", "dev", "test") if all_splits else ("train",)
                            ).process(rollouts, on_rollout=on_rollout)
    except ModelUnavailable as e:
        raise UserError(f"{e}; the failures analyzed so far are kept, `harness-evo analyze {store.id}` continues") from e
    return len(store.records(Failure, "source = 'counted'"))
