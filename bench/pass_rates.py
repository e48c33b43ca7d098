"""Per-task pass rates of an eval run on the train split, as the data file bench/gate_calibration.py simulates from.

Make the run, then the file (the embedded 1.5B solver, 68 train tasks x 3 trials):

    harness-evo eval --harness harnesses/bash-agent --tasks tasks/core --split train --trials 3
    python bench/pass_rates.py RUN [--out bench/data/pass_rates.json]

The file (JSON): `synthetic` (false here), `command` (the eval command that made the run), `run` (its id), `solver`
(the solver model), `harness` (the harness hash), and `tasks`: task id -> {"passed": k, "n": n, "category": c, "difficulty": d}, over
the run's scored train rollouts (infrastructure failures left out).
"""

import argparse
from pathlib import Path

from pydantic import BaseModel

DATA = Path(__file__).parent / "data"
REAL = DATA / "pass_rates.json"
"""The embedded solver's measured rates: the bench's default."""
SYNTHETIC = DATA / "pass_rates.SYNTHETIC.json"
"""Made-up rates of the same tasks to develop with: never a result."""


class TaskRate(BaseModel):
    passed: int
    n: int
    category: str
    difficulty: str = "medium"


class PassRates(BaseModel):
    """The data file's content."""

    synthetic: bool
    """True for a made-up file: the bench prints no figure from it as a result."""
    command: str
    run: str | None = None
    solver: str | None = None
    harness: str | None = None
    tasks: dict[str, TaskRate]

    @classmethod
    def read(cls, path: Path) -> "PassRates":
        return cls.model_validate_json(path.read_text())


def from_run(run: str, runs_dir: Path) -> PassRates:
    """The pass rates of a run's scored train rollouts."""
    from harness_evo.config import RunConfig
    from harness_evo.errors import UserError
    from harness_evo.store import Rollout, RunStore
    from harness_evo.taskset import load_suite

    store = RunStore.find(run, runs_dir)
    config = RunConfig.load(store.folder / "config.toml")
    suite = load_suite(config.tasks, seed=config.seed)
    rows = [row for row in store.records(Rollout) if row.split == "train" and row.scored]
    if not rows:
        raise UserError(
            f"run {store.id} has no scored train rollout; make one with `harness-evo eval --split train --trials 3`"
        )
    counts: dict[str, list[int]] = {}
    for row in rows:
        counts.setdefault(row.task_id, [0, 0])
        counts[row.task_id][0] += row.passed
        counts[row.task_id][1] += 1
    hashes = sorted({row.harness_hash for row in rows if row.harness_hash})
    trials = max((n for _, n in counts.values()), default=0)
    agent = f" --agent {config.agent}" if config.agent != "model" else f" --model {config.models.solver.model}"
    command = (
        f"harness-evo eval --harness {config.harness} --tasks {config.tasks} --split train --trials {trials}{agent}"
    )
    return PassRates(
        synthetic=False,
        command=command,
        run=store.id,
        solver=config.models.solver.model,
        harness=",".join(hashes) or None,
        tasks={
            task: TaskRate(passed=k, n=n, category=suite.tasks[task].category, difficulty=suite.tasks[task].difficulty)
            for task, (k, n) in sorted(counts.items())
        },
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="the eval run's id or folder")
    parser.add_argument("--runs-dir", type=Path, default=Path("runs"))
    parser.add_argument("--out", type=Path, default=REAL)
    options = parser.parse_args()
    from harness_evo.errors import UserError

    try:
        rates = from_run(options.run, options.runs_dir)
    except UserError as e:
        raise SystemExit(f"pass_rates.py: {e}") from None
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(rates.model_dump_json(indent=1) + "\n")
    passed = sum(rate.passed for rate in rates.tasks.values())
    n = sum(rate.n for rate in rates.tasks.values())
    print(f"{options.out}: {len(rates.tasks)} train tasks, {passed} of {n} rollouts passed, from run {rates.run}")


if __name__ == "__main__":
    main()
