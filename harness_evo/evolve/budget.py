"""Budgets of an evolution run (rollouts, dollars per role, wall time, iterations, patience) and the pre-flight
estimate.

Spend is read from the store, so a resumed run counts what it already paid for, and a rollout or model call
answered from a cache costs nothing.
"""

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import litellm
from pydantic import BaseModel, Field

from harness_evo.config import RoleModel, RunConfig
from harness_evo.evolve.pace import Pace
from harness_evo.store import Rollout, RunStore

ROLES = ("solver", "analyzer", "proposer", "critic")
PROMPT_TOKENS_GUESS = 1500
ACCEPT_SHARE_GUESS = 0.3
FAIL_SHARE_GUESS = 0.5
SECOND_LOOK_SHARE_GUESS = 0.5
FREE_PREFIXES = ("local/", "scripted/", "vllm/", "hosted_vllm/", "ollama/")
WALL, ROLLOUTS, ITERATIONS = "wall time", "rollout budget", "iteration budget"


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
    def session_s(self) -> float:
        """The wall time of this session alone."""
        return time.monotonic() - self.clock

    @property
    def remaining_s(self) -> float:
        return max(0.0, self.config.max_wall_s - self.elapsed_s)

    def rollouts(self) -> int:
        return self.store.count(Rollout)

    def model_calls(self) -> tuple[int, int]:
        """(model calls, those answered from the response cache) recorded so far."""
        spend = self.store.spend().values()
        return sum(role.calls for role in spend), sum(role.cached for role in spend)

    def spend(self) -> dict[str, float]:
        """Dollars spent per role."""
        return {role: round(spend.cost, 6) for role, spend in self.store.spend().items()}

    @contextmanager
    def deadline(self, interrupt: Callable[[], None]) -> Iterator[None]:
        """Inside the block, `interrupt` is called once the wall time runs out (rollouts in flight stop then)."""
        timer = threading.Timer(self.remaining_s, interrupt)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            timer.cancel()

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
    """What a run will roughly cost, and which budget stops it, before it starts."""

    iterations: int
    rollouts: int
    dev_rollouts: int = 0
    """Of `rollouts`, those that score the root and the accepted nodes on dev."""
    model_calls: dict[str, int]
    dollars: dict[str, float | None]
    """None for a model whose price litellm does not know."""
    wall_minutes: float
    """The wall time the run has left (all of its limit, unless resumed)."""
    more: bool = False
    """The forecast is of what is left of a resumed run."""
    pace: Pace = Field(default_factory=Pace)
    """Wall seconds per rollout of the whole loop on this machine, that the wall time is divided by."""
    allows: dict[str, int] = Field(default_factory=dict)
    """Rollouts each budget would allow on its own, by name: `wall time`, `rollout budget`, `iteration budget`, `<role>
    dollar cap`."""
    binds: str = WALL
    """The budget that stops the run first (patience, which cannot be foreseen, may stop it sooner)."""
    first_gate: int = 0
    """The fewest rollouts before a first edit is gated: the root's dev scoring, a minibatch, and the child on the
    smallest pattern (`failures.promotion_support` tasks, `acceptance.trials` each)."""
    iterations_left: int = 0
    """The iteration budget, of what is left."""
    rollouts_done: int = 0
    """Rollouts a resumed run has already paid for (they count in its rollout budget)."""
    decides: int = 0
    """Edits the budgets can gate (each iteration gates at most one), at the pace of runs here."""
    gain_needs: int = 0
    """The fewest rollouts before the run can show a gain on dev: the first gate, then the accepted child scored on the
    dev split (a run whose gates reject most edits needs several times more)."""

    def sentence(self) -> str:
        known = [d for d in self.dollars.values() if d is not None]
        price = f"about ${sum(known):.2f}" + (" (some prices unknown)" if len(known) < len(self.dollars) else "")
        more = "more " if self.more else ""
        text = (
            f"about {self.rollouts} {more}rollouts (about {self.dev_rollouts} of them scoring harnesses on dev), about "
            f"{sum(self.model_calls.values())} {more}model calls, {price} with these models, in up to "
            f"{self.iterations} {more}iteration{'s' * (self.iterations != 1)}"
        )
        if self.binds in self.allows:
            others = [self.allowance(name) for name in self.allows if name != self.binds]
            text += f"; the {self.binds} binds: {self.allowance(self.binds)}" + (
                f" ({'; '.join(others)})" if others else ""
            )
        if self.iterations_left:
            minutes = math.ceil(self.gain_needs * self.pace.seconds_per_rollout / 60)
            text += (
                f"; it can decide about {self.decides} edit{'s' * (self.decides != 1)}, and a gain shown on dev needs "
                f"at least {self.gain_needs} {more}rollouts (about {minutes} min at this pace; more, as most gated "
                "edits are rejected)"
            )
        return text + (f"; {warning}" if (warning := self.warning()) else "")

    def allowance(self, name: str) -> str:
        """What the budget `name` allows, in words."""
        more = "more " if self.more else ""
        n = self.allows[name]
        if name == WALL:
            return (
                f"{self.wall_minutes:g} {more}min hold about {n} rollouts at {self.pace.seconds_per_rollout:g} s each, "
                f"{self.pace.basis()}"
            )
        if name == ROLLOUTS:
            return f"the rollout budget allows {n}" + (" more" if self.more else "")
        if name == ITERATIONS:
            return f"{self.iterations_left} {more}iterations would take about {n}"
        return f"the {name} allows about {n}"

    def short(self) -> dict[str, int]:
        """The budgets (but the iteration budget) that hold fewer rollouts than the first gate needs; none when no
        iteration is asked."""
        if not self.iterations_left:
            return {}
        return {name: n for name, n in self.allows.items() if name != ITERATIONS and n < self.first_gate}

    def refusal(self) -> str | None:
        """Why budgets that are counted (rollouts, dollars) cannot hold one gate, with the budget to raise; None when
        they can. The wall time is a forecast at the pace of earlier runs, so a short one is a `warning` instead."""
        short = {name: n for name, n in self.short().items() if name != WALL}
        if not short:
            return None
        name = min(short, key=short.get)
        if name == ROLLOUTS:
            raise_it = (
                f"raise --budget-rollouts (budget.max_rollouts) to at least {self.rollouts_done + self.first_gate}"
            )
        else:
            raise_it = f"raise budget.max_dollars.{name.removesuffix(' dollar cap')}"
        return f"the budgets cannot hold one gate: {self.allowance(name)}, and {self.first_gate_words()}: {raise_it}"

    def warning(self) -> str | None:
        """That the wall time may not hold one gate at the pace of earlier runs, with the budget that would; None when
        it holds one (or no iteration is asked)."""
        if WALL not in self.short():
            return None
        minutes = math.ceil(self.first_gate * self.pace.seconds_per_rollout / 60)
        return (
            f"warning: the wall time may end before any edit is gated: {self.allowance(WALL)}, and "
            f"{self.first_gate_words()}; --budget-minutes {minutes} would hold one"
        )

    def first_gate_words(self) -> str:
        return (
            f"a first edit is gated only after at least {self.first_gate} (the root's dev scoring, a minibatch and the "
            "child's gate on the smallest pattern)"
        )


def estimate(
    config: RunConfig,
    n_dev: int,
    step_limit: int,
    rollouts_done: int = 0,
    iterations_done: int = 0,
    minutes_done: float = 0.0,
    pace: Pace | None = None,
    n_train: int | None = None,
    spent: dict[str, float] | None = None,
) -> Estimate:
    """A rough forecast from the budgets and the pace of runs here: per iteration a minibatch, a gate (child and
    parent; sometimes a second look) and sometimes a dev scoring. Each budget's rollouts on its own; the fewest bind.
    For a resumed run, of what its budgets leave after what it has done."""
    pace = pace or Pace()
    minibatch = min(config.curriculum.minibatch, n_train or config.curriculum.minibatch)
    acceptance = config.acceptance
    gate_tasks = min(acceptance.pattern_tasks + acceptance.regression_sample, n_train or 10**9)
    gate = gate_tasks * (acceptance.trials + SECOND_LOOK_SHARE_GUESS * acceptance.extra_trials)
    dev_per_accept = ACCEPT_SHARE_GUESS * n_dev * config.search.dev_trials
    per_iteration = minibatch + 2 * gate + dev_per_accept
    start = 0 if rollouts_done else n_dev * config.search.dev_trials
    calls_per_iteration = {
        "solver": per_iteration * max(1, step_limit // 2),
        "analyzer": minibatch * FAIL_SHARE_GUESS,
        "proposer": 1 + config.search.revisions // 2,
        "critic": config.search.candidates if config.reviews_edits() else 0,
    }
    wall_minutes = round(max(0.0, config.budget.max_wall_s / 60 - minutes_done), 1)
    iterations_left = max(0, config.budget.max_iterations - iterations_done)
    allows = {
        WALL: int(wall_minutes * 60 / pace.seconds_per_rollout),
        ROLLOUTS: max(0, config.budget.max_rollouts - rollouts_done),
    }
    for role, cap in config.budget.max_dollars.items():
        per_iteration_dollars = price(config.models.role(role), calls_per_iteration[role])
        if per_iteration_dollars:
            allows[f"{role} dollar cap"] = int(
                max(0.0, cap - (spent or {}).get(role, 0.0)) * per_iteration / per_iteration_dollars
            )
    binds = min(allows, key=allows.get)
    iterations = max(0, min(iterations_left, int((allows[binds] - start) // max(per_iteration, 1)) + 1))
    allows[ITERATIONS] = int(start + iterations_left * per_iteration)
    if allows[ITERATIONS] < allows[binds]:
        binds = ITERATIONS
    rollouts = int(min(allows[binds], start + iterations * per_iteration))
    dev_rollouts = int(min(rollouts, start + iterations * dev_per_accept))
    calls = {
        role: int(rollouts * max(1, step_limit // 2)) if role == "solver" else int(iterations * n)
        for role, n in calls_per_iteration.items()
    }
    dollars = {role: price(config.models.role(role), n) for role, n in calls.items()}
    first_gate = start + minibatch + config.failures.promotion_support * acceptance.trials
    decides = (
        min(iterations_left, 1 + int((allows[binds] - first_gate) // max(per_iteration, 1)))
        if allows[binds] >= first_gate
        else 0
    )
    return Estimate(
        iterations=iterations,
        rollouts=rollouts,
        dev_rollouts=dev_rollouts,
        model_calls=calls,
        dollars=dollars,
        wall_minutes=wall_minutes,
        more=bool(rollouts_done or iterations_done),
        pace=pace,
        allows=allows,
        binds=binds,
        first_gate=first_gate,
        iterations_left=iterations_left,
        rollouts_done=rollouts_done,
        decides=decides,
        gain_needs=int(start + minibatch + 2 * gate + n_dev * config.search.dev_trials),
    )


def price(role: RoleModel, calls: float) -> float | None:
    """Dollars for `calls` calls of a typical size; 0 for models run here, None when litellm has no price."""
    if role.model.startswith(FREE_PREFIXES):
        return 0.0
    try:
        prompt, completion = litellm.cost_per_token(
            model=role.model, prompt_tokens=PROMPT_TOKENS_GUESS, completion_tokens=role.max_tokens // 2
        )
    except Exception:  # noqa: BLE001 - litellm raises a bare Exception for a model it has no price for
        return None
    return round(calls * (prompt + completion), 4)
