"""Budgets of an evolution run (rollouts, dollars per role, wall time, iterations, patience) and the pre-flight estimate.

Spend is read from the store, so a resumed run counts what it already paid for, and a rollout or model call
answered from a cache costs nothing.
"""

import time

import litellm
from pydantic import BaseModel

from harness_evo.config import RoleModel, RunConfig
from harness_evo.store import RunStore

ROLES = ("solver", "analyzer", "proposer", "critic")
PROMPT_TOKENS_GUESS = 1500
ACCEPT_SHARE_GUESS = 0.3
FAIL_SHARE_GUESS = 0.5
SECOND_LOOK_SHARE_GUESS = 0.5
FREE_PREFIXES = ("local/", "scripted/", "vllm/", "hosted_vllm/", "ollama/")


class BudgetExhausted(Exception):
    """A budget ran out; the message says which."""


class Budget:
    def __init__(self, config: RunConfig, store: RunStore, elapsed_before_s: float = 0.0):
        self.config = config.budget
        self.store = store
        self.elapsed_before_s = elapsed_before_s
        self.clock = time.monotonic()

    @property
    def elapsed_s(self) -> float:
        return self.elapsed_before_s + time.monotonic() - self.clock

    @property
    def remaining_s(self) -> float:
        return max(0.0, self.config.max_wall_s - self.elapsed_s)

    def rollouts(self) -> int:
        return self.store.db.execute("SELECT count(*) FROM rollouts").fetchone()[0]

    def spend(self) -> dict[str, float]:
        """Dollars spent per role."""
        rows = self.store.db.execute("SELECT role, coalesce(sum(cost), 0) FROM llm_calls GROUP BY role ORDER BY role")
        return {role: round(cost, 6) for role, cost in rows}

    def check(self) -> None:
        """Raise BudgetExhausted when a limit on paid work (rollouts, dollars, time) is reached."""
        if self.rollouts() >= self.config.max_rollouts:
            raise BudgetExhausted(f"rollout budget reached ({self.config.max_rollouts})")
        for role, dollars in self.spend().items():
            cap = self.config.max_dollars.get(role)
            if cap is not None and dollars >= cap:
                raise BudgetExhausted(f"{role} spent ${dollars:.2f} of its ${cap:.2f}")
        if self.elapsed_s >= self.config.max_wall_s:
            raise BudgetExhausted(f"wall time reached ({self.config.max_wall_s / 60:.0f} min)")

    def check_iteration(self, iteration: int, idle: int) -> None:
        """Also stop on the iteration count and on patience (iterations since the last accepted edit)."""
        if iteration >= self.config.max_iterations:
            raise BudgetExhausted(f"{self.config.max_iterations} iterations done")
        if idle >= self.config.patience:
            raise BudgetExhausted(f"no accepted edit in {idle} iterations (patience)")
        self.check()


def time_spent(store: RunStore, checkpointed_s: float) -> float:
    """The run's wall time so far: as of its last checkpoint, or more when a session went on after it and was stopped
    (it leaves a `clock` event as it ends). A session killed with SIGKILL loses what it spent after its checkpoint."""
    return max([checkpointed_s, *(event["data"]["elapsed_s"] for event in store.events(["clock"]))])


class Estimate(BaseModel):
    """What a run will roughly cost, before it starts."""

    iterations: int
    rollouts: int
    dev_rollouts: int = 0
    """Of `rollouts`, those that score the root and the accepted nodes on dev."""
    model_calls: dict[str, int]
    dollars: dict[str, float | None]
    """None for a model whose price litellm does not know."""
    wall_minutes: float
    """The wall time the run has left (all of its limit, unless resumed), which may stop it before the other budgets do."""
    more: bool = False
    """The forecast is of what is left of a resumed run."""

    def sentence(self) -> str:
        known = [d for d in self.dollars.values() if d is not None]
        price = f"about ${sum(known):.2f}" + (" (some prices unknown)" if len(known) < len(self.dollars) else "")
        more = "more " if self.more else ""
        return (f"about {self.rollouts} {more}rollouts (about {self.dev_rollouts} of them scoring harnesses on dev), about {sum(self.model_calls.values())} {more}model calls, {price} with these "
                f"models (up to {self.iterations} {more}iterations, or {self.wall_minutes:g} {more}min of wall time if that comes first)")


def estimate(config: RunConfig, n_dev: int, step_limit: int, rollouts_done: int = 0, iterations_done: int = 0,
             minutes_done: float = 0.0) -> Estimate:
    """A rough forecast from the budgets: per iteration a minibatch, a gate (child and parent; sometimes a second look)
    and sometimes a dev scoring. For a resumed run, of what its budgets leave after what it has done."""
    minibatch = config.curriculum.minibatch
    acceptance = config.acceptance
    gate = (acceptance.pattern_tasks + acceptance.regression_sample) * (acceptance.trials + SECOND_LOOK_SHARE_GUESS * acceptance.extra_trials)
    per_iteration = minibatch + 2 * gate + ACCEPT_SHARE_GUESS * n_dev * config.search.dev_trials
    start = 0 if rollouts_done else n_dev * config.search.dev_trials
    rollouts_left = max(0, config.budget.max_rollouts - rollouts_done)
    iterations = max(0, min(config.budget.max_iterations - iterations_done, int((rollouts_left - start) // max(per_iteration, 1)) + 1))
    rollouts = int(min(rollouts_left, start + iterations * per_iteration))
    dev_rollouts = int(min(rollouts, start + iterations * ACCEPT_SHARE_GUESS * n_dev * config.search.dev_trials))
    calls = {
        "solver": int(rollouts * max(1, step_limit // 2)),
        "analyzer": int(iterations * minibatch * FAIL_SHARE_GUESS),
        "proposer": iterations * (1 + config.search.revisions // 2),
        "critic": iterations * config.search.candidates if config.reviews_edits() else 0,
    }
    dollars = {role: price(config.models.role(role), n) for role, n in calls.items()}
    return Estimate(iterations=iterations, rollouts=rollouts, dev_rollouts=dev_rollouts, model_calls=calls, dollars=dollars,
                    wall_minutes=round(max(0.0, config.budget.max_wall_s / 60 - minutes_done), 1), more=bool(rollouts_done or iterations_done))


def price(role: RoleModel, calls: int) -> float | None:
    """Dollars for `calls` calls of a typical size; 0 for models run here, None when litellm has no price."""
    if role.model.startswith(FREE_PREFIXES):
        return 0.0
    try:
        prompt, completion = litellm.cost_per_token(model=role.model, prompt_tokens=PROMPT_TOKENS_GUESS, completion_tokens=role.max_tokens // 2)
    except Exception:  # noqa: BLE001 - litellm raises a bare Exception for a model it has no price for
        return None
    return round(calls * (prompt + completion), 4)
