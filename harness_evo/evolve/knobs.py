"""Knob steps, a move without a model: one setting of `harness.toml` moved one step from the parent's value, within
its bounds; gated like any edit. The steps that plausibly address a failure pattern's category (`ADDRESSES`) come first,
then every other setting with a meaningful step (`every_step`): a flag turned the other way, a number one step up or
down, a setting that only matters with another (the loop guard's repeats, worked examples shown) only where it does."""

from typing import Literal

from pydantic import BaseModel

from harness_evo.config import RoleModel
from harness_evo.harness import Edit, Harness, Write
from harness_evo.harness.settings_edit import set_setting

Direction = Literal["up", "down", "on", "off"]


class Knob(BaseModel):
    """A setting a knob step may move: `[section] key`, within [low, high],
    by `step` (added) or `factor` (multiplied)."""

    section: Literal["agent", "model"]
    key: str
    low: float = 0
    high: float = 1
    step: float | None = None
    factor: float | None = None
    integer: bool = False
    needs: str | None = None
    """What makes a step of it change anything (see `meaningful`): `examples` (the harness has some), or another
    `[agent]` flag that must be on."""

    @property
    def name(self) -> str:
        return f"{self.section}.{self.key}"

    def moved(self, value, direction: Direction):
        """`value` one step in `direction`, or None when that leaves the bounds or changes nothing."""
        if direction in ("on", "off"):
            return None if bool(value) == (direction == "on") else direction == "on"
        sign = 1 if direction == "up" else -1
        new = value + sign * self.step if self.step is not None else value * self.factor**sign
        new = round(new) if self.integer else round(new, 2)
        return new if self.low <= new <= self.high and new != value else None


KNOBS = {
    knob.name: knob
    for knob in [
        Knob(section="agent", key="discovery"),
        Knob(section="agent", key="loop_guard"),
        Knob(section="agent", key="missing_hint"),
        Knob(section="agent", key="confirm_done"),
        Knob(section="model", key="temperature", low=0.0, high=1.5, step=0.2),
        Knob(section="agent", key="step_limit", low=4, high=60, step=6, integer=True),
        Knob(section="model", key="max_tokens", low=128, high=2048, factor=2, integer=True),
        Knob(section="agent", key="max_observation_chars", low=500, high=16000, factor=2, integer=True),
        Knob(section="agent", key="loop_guard_repeats", low=1, high=6, step=1, integer=True, needs="loop_guard"),
        Knob(section="agent", key="examples", low=0, high=6, step=1, integer=True, needs="examples"),
        Knob(section="agent", key="discovery_head_lines", low=0, high=40, step=10, integer=True, needs="discovery"),
    ]
}
"""The settings knob steps move, with their bounds and step, in the order `every_step` offers them: the features the
loop enforces in code (`harness/features.py`) and `confirm_done` first, since small models were found to respond to
enforcement in code more than to prose; then the solver's sampling (temperature; `max_tokens`, the reply budget), the
loop's limits, and the settings that only matter with another."""

ADDRESSES: dict[str, list[tuple[str, Direction]]] = {
    "command-loop": [("model.temperature", "down")],
    "syntax-error-in-command": [("model.temperature", "down")],
    "format-errors": [("model.max_tokens", "up"), ("model.temperature", "down")],
    "premature-success": [("agent.confirm_done", "on")],
    "no-verification": [("agent.confirm_done", "on")],
    "incomplete-solution": [("agent.confirm_done", "on"), ("agent.step_limit", "up")],
    "gave-up": [("agent.step_limit", "up")],
    "step-limit": [("agent.step_limit", "up")],
    "context-limit": [("agent.max_observation_chars", "down")],
}
"""Failure category -> the knob steps that plausibly address it, in the order they are tried."""


class KnobStep(BaseModel):
    knob: str
    before: bool | int | float
    after: bool | int | float

    def describe(self) -> str:
        return f"{self.knob} {self.before} -> {self.after}"


def current(harness: Harness, knob: Knob, solver: RoleModel) -> bool | int | float:
    """The value the harness runs with: its own setting, or for one it leaves unset the run's solver setting."""
    if knob.name == "agent.confirm_done":
        return harness.confirms_done
    value = getattr(harness.sampling if knob.section == "model" else harness.agent, knob.key)
    return getattr(solver, knob.key) if value is None else value


def knob_steps(parent: Harness, category: str, solver: RoleModel) -> list[KnobStep]:
    """The knob steps from `parent` that address a pattern of `category`, in order; none for other categories."""
    steps = []
    for name, direction in ADDRESSES.get(category, []):
        knob = KNOBS[name]
        before = current(parent, knob, solver)
        after = knob.moved(before, direction)
        if after is not None:
            steps.append(KnobStep(knob=name, before=before, after=after))
    return steps


def meaningful(parent: Harness, knob: Knob) -> bool:
    """Whether a step of `knob` can change what `parent`'s agent does."""
    if knob.needs == "examples":
        return bool(parent.examples)
    return knob.needs is None or bool(getattr(parent.agent, knob.needs))


def every_step(parent: Harness, solver: RoleModel, value: dict[str, float] | None = None) -> list[KnobStep]:
    """A step of every setting that has a meaningful one from `parent`: flags turned the other way, numbers one step up
    and one down (within their bounds); the knobs worth more in `value` (knob name -> worth, 1 when absent: see
    `ledger.paid`) first, else in the order of `KNOBS`."""
    steps, value = [], value or {}
    for knob in sorted(KNOBS.values(), key=lambda knob: -value.get(knob.name, 1.0)):
        if not meaningful(parent, knob):
            continue
        before = current(parent, knob, solver)
        flag = knob.step is None and knob.factor is None
        directions: list[Direction] = [("off" if before else "on")] if flag else ["up", "down"]
        for direction in directions:
            if (after := knob.moved(before, direction)) is not None:
                steps.append(KnobStep(knob=knob.name, before=before, after=after))
    return steps


def knob_edit(parent: Harness, step: KnobStep, category: str | None = None) -> Edit:
    """The edit of `parent`'s `harness.toml` that makes `step`,
    against a pattern of `category` (None: for every task)."""
    knob = KNOBS[step.knob]
    toml = set_setting(parent.components["harness.toml"], knob.section, knob.key, step.after)
    why = f"against {category}" if category else "for every task"
    return Edit(ops=[Write(path="harness.toml", text=toml)], rationale=f"{step.describe()}, {why}")
