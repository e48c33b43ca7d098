"""How many more rollouts a minute a gate's looks get when each look's keys go into one queue (a benchmark, not a test).

Replays the looks of a recorded evidence-gate race (bench/data/gate_looks.json: the keys it chose, look by look, and
the knob step of each candidate) for the parent and every candidate, in two arms on one machine and one solver server:
- `a queue per side and trial`: the parent's keys, then each candidate's, each side's trials one after another
  (`Executor.run` per trial), so every group waits for its slowest rollout before the next starts;
- `one queue per look`: the parent's keys in one queue, then every candidate's keys in one (`Executor.run_each`), as
  the evidence gate runs a look.
The arms alternate look by look (which goes first alternates too), each with its own run folder, and the response cache
is off, so neither replays the other's replies: both pay for the same keys with the same seeds. Printed per arm:
rollouts, wall time, rollouts a minute, the mean number of rollouts running at once, the solver's tokens (the work
done) and tokens a second, and the ratios. Ctrl-C compares the looks both arms have finished.

    python bench/gate_queue.py [--looks 3] [--tasks tasks/core] [--harness harnesses/bash-agent]
        [--model local/qwen2.5-coder-1.5b] [--workers 3] [--data bench/data/gate_looks.json] [--runs DIR]
"""

import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from harness_evo import world
from harness_evo.agent.executor import Executor, Side
from harness_evo.config import RunConfig
from harness_evo.harness import Harness
from harness_evo.harness.settings_edit import setting_edit
from harness_evo.llm import LLM
from harness_evo.sandbox import get_backend
from harness_evo.store import Rollout, RunStore
from harness_evo.taskset import Suite, Task, load_suite

ROOT = Path(__file__).parents[1]
PER_SIDE, ONE_QUEUE = "a queue per side and trial", "one queue per look"

app = typer.Typer(add_completion=False)
console = Console(width=150)

Look = list[tuple[Task, int]]


@dataclass
class Arm:
    """One way of running the looks, and what each finished look took."""

    name: str
    executor: Executor
    looks: list[tuple[list[Rollout], float]] = field(default_factory=list)
    """Each finished look's rollouts and wall time, in seconds."""

    def run(self, sides: list[Harness], look: Look) -> None:
        started, rows = time.monotonic(), []
        if self.name == PER_SIDE:
            trials: dict[int, list[Task]] = defaultdict(list)
            for task, trial in look:
                trials[trial].append(task)
            for harness in sides:
                for trial, tasks in sorted(trials.items()):
                    rows += self.executor.run(harness, tasks, [trial])
        else:
            parent, *candidates = sides
            for group in ([parent], candidates):
                ran, broken = self.executor.run_each([(Side(harness), look) for harness in group])
                if broken:
                    raise typer.BadParameter(f"a harness fails at run time: {next(iter(broken.values()))}")
                rows += [row for side_rows in ran for row in side_rows]
        self.looks.append((rows, time.monotonic() - started))

    def first(self, n: int) -> tuple[list[Rollout], float]:
        """The rollouts and wall time of the first `n` looks."""
        return [row for rows, _ in self.looks[:n] for row in rows], sum(wall for _, wall in self.looks[:n])


def looks_of(data: dict, suite: Suite, count: int) -> list[Look]:
    missing = sorted({task for look in data["looks"] for task, _ in look} - suite.tasks.keys())
    if missing:
        raise typer.BadParameter(f"the looks name tasks the suite lacks: {', '.join(missing[:5])}")
    return [[(suite.tasks[task], trial) for task, trial in look] for look in data["looks"][:count]]


def measure(
    config: RunConfig, sides: list[Harness], looks: list[Look], runs: Path, say: Callable[[str], None]
) -> list[Arm]:
    """Each arm's run of every look, the arms alternating (and which goes first) look by look."""
    suite = load_suite(config.tasks, seed=config.seed)
    workers = config.executor.workers or 3
    with LLM(config.run_models(workers), cache=False) as llm:
        if config.models.solver.model.startswith("local/"):  # the embedded server's start is not timed
            llm.complete("solver", [{"role": "user", "content": "Say ok."}], max_tokens=1)
        arms = []
        for name in (PER_SIDE, ONE_QUEUE):
            store = RunStore.create(runs, "eval")
            backend = get_backend(config.sandbox, run_id=store.id)
            arms.append(Arm(name, Executor(store, backend, suite, llm, workers, config.agent)))
        try:
            for i, look in enumerate(looks):
                for arm in arms if i % 2 == 0 else arms[::-1]:
                    arm.run(sides, look)
                    rows, wall = arm.first(len(arm.looks))
                    say(f"look {i + 1}/{len(looks)}, {arm.name}: {len(rows)} rollouts in {wall:.0f} s")
        except KeyboardInterrupt:
            say("stopped: the looks both arms finished are compared")
    return arms


def report(arms: list[Arm]) -> None:
    """The arms side by side over the looks both finished."""
    n = min(len(arm.looks) for arm in arms)
    if not n:
        console.print("no look was finished by both arms: nothing to compare")
        return
    grid = Table(title=f"a gate's looks ({n} of them): one queue against a queue per side and trial")
    columns = ("arm", "rollouts", "wall", "rollouts / min", "running at once", "solver tokens", "tokens / s", "passed")
    for column in columns:
        grid.add_column(column, justify="left" if column == "arm" else "right")
    rates, speeds = [], []
    for arm in arms:
        rows, wall = arm.first(n)
        tokens = sum(row.tokens_in + row.tokens_out for row in rows)
        rates.append(len(rows) / wall * 60)
        speeds.append(tokens / wall)
        grid.add_row(
            arm.name,
            str(len(rows)),
            f"{wall:.0f} s",
            f"{rates[-1]:.2f}",
            f"{sum(row.duration_s or 0.0 for row in rows) / wall:.2f}",  # rollouts running at once, on average
            f"{tokens:,}",
            f"{speeds[-1]:.0f}",
            str(sum(row.passed for row in rows)),
        )
    console.print(grid)
    console.print(
        f"one queue / a queue per side and trial: {rates[1] / rates[0]:.2f}x the rollouts a minute, "
        f"{speeds[1] / speeds[0]:.2f}x the solver's tokens a second (a sampled rollout differs between the arms: "
        "llama-server's slots do not always repeat a reply for the same seed, so the arms' work differs somewhat)"
    )


@app.command()
def main(
    looks: Annotated[int, typer.Option(min=1, help="How many of the recorded looks to replay.")] = 3,
    tasks: Annotated[Path, typer.Option(help="The suite the looks' tasks are of.")] = ROOT / "tasks" / "core",
    harness: Annotated[Path, typer.Option(help="The parent harness.")] = ROOT / "harnesses" / "bash-agent",
    model: Annotated[str, typer.Option(help="The solver.")] = "local/qwen2.5-coder-1.5b",
    workers: Annotated[int, typer.Option(min=1, help="Rollouts at once.")] = 3,
    data: Annotated[Path, typer.Option(help="The recorded gate.")] = ROOT / "bench/data/gate_looks.json",
    runs: Annotated[
        Path | None, typer.Option(help="Where the arms' run folders go (default: a temporary folder).")
    ] = None,
) -> None:
    """Replay a recorded gate's looks with a queue per side and trial, and with one queue per look."""
    if model.startswith("scripted/world-"):
        world.register()  # the scripted world's solver (the tiny run of tests/test_bench.py)
    recorded = json.loads(data.read_text())
    config = RunConfig(harness=harness, tasks=tasks).with_options(
        {"models.solver.model": model, "executor.workers": workers}
    )
    parent = Harness.load(harness)
    toml = parent.components["harness.toml"]
    sides = [parent, *(parent.apply(setting_edit(toml, *change)) for change in recorded["candidates"].values())]
    chosen = looks_of(recorded, load_suite(tasks), looks)
    console.print(
        f"{len(chosen)} looks of {recorded['source']}; the parent and {', '.join(recorded['candidates'])}: "
        f"{sum(map(len, chosen)) * len(sides)} rollouts an arm, solver {model}, {workers} at once"
    )
    with tempfile.TemporaryDirectory() as scratch:
        report(measure(config, sides, chosen, runs or Path(scratch), console.print))


if __name__ == "__main__":
    app()
