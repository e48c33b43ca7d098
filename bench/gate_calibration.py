"""How often the empirical gate keeps an edit that does nothing, and how often one that helps (a benchmark, not a test).

1. False accepts per gate, on A/A edits (a child no model would tell from its parent):
   a. in the synthetic world of bench/curriculum_sim.py: a child identical to its parent in truth, each rollout noisy
      with the world's REPLAY share of shared random numbers, judged by the real gate (`make_rule(AcceptanceConfig())`)
      on tasks chosen as `try_candidate` chooses them (`pattern_sample` of a pattern the parent's trial-0 rollouts
      found, and a protected regression sample of tasks it passed), with its second look; each gate with outcomes
      of its own, in one of 1000 worlds.
   b. with the embedded solver on train tasks of tasks/core: harnesses/bash-agent against a copy whose system prompt
      has one more blank line between two paragraphs (rendered, so every sampled reply differs, but nothing to act
      on). Each side runs K tasks x T fresh trials once through the Executor, the parent one trial more (the one that
      chose the gate's tasks, as trial 0 does in a run); gates are then drawn from that pool as the gate would pick
      tasks and trials. Gates drawn from one pool are not independent.
2. False accepts per run: G A/A gates against one parent, with the parent's gate rollouts reused by every child (as
   the loop's cache does) and with fresh parent trials for each gate: the chance that at least one is accepted.
3. Power: the share of gates that accept a child whose true pass rate on the pattern's tasks is higher by +15 or +30
   points (up to 100%), the regression tasks unchanged.

    python bench/gate_calibration.py [--gates 20000] [--runs 400] [--seed 0] [--workers 2] [--skip-embedded]
        [--tasks 10 | --tasks ID,ID,...] [--pool-trials 6] [--run RUN]
"""

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Collection
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from curriculum_sim import Harness as SimHarness
from curriculum_sim import Run, make_world
from rich.console import Console
from rich.table import Table

from harness_evo import stats
from harness_evo.config import AcceptanceConfig, RunConfig
from harness_evo.evolve.acceptance import AcceptanceRule, Verdict, make_rule, pair_rollouts
from harness_evo.evolve.plan import across_categories, pattern_sample
from harness_evo.evolve.target import Target
from harness_evo.stats import Pair
from harness_evo.store import Rollout, RunStatus, RunStore, StoreError
from harness_evo.taskset import Task

ACCEPTANCE = AcceptanceConfig()
LIFTS = (0.15, 0.30)
"""True gains in pass rate on the pattern's tasks whose power is measured."""
RUN_GATES = (10, 30, 70)
"""Gates against one parent in a run."""
PROMOTION = 2
"""Distinct train tasks that promote a pattern (`FailuresConfig.promotion_support`)."""
WORLDS = 1000
"""Distinct worlds the simulated parents live in; each parent draws its own outcomes."""
SYSTEM = "prompts/system.md.j2"


@dataclass(frozen=True)
class Gated:
    """A gate's verdict and how many looks it took."""

    verdict: Verdict
    looks: int


def two_looks(gate: AcceptanceRule, look: Callable[[int], list[Pair]], protected: Collection[str]) -> Gated:
    """`try_candidate`'s decision: a look on `trials` trials of every gate task, and, when it leaves the child ahead but
    undecided, one on `trials + extra_trials`; `look(n)` pairs the first n trials of every task."""
    verdict = gate.decide(look(ACCEPTANCE.trials), protected)
    if verdict.undecided and ACCEPTANCE.extra_trials:
        return Gated(gate.decide(look(ACCEPTANCE.trials + ACCEPTANCE.extra_trials), protected), 2)
    return Gated(verdict, 1)


# --- the synthetic world ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimTask:
    """What `pattern_sample` and `across_categories` read of a task."""

    id: str
    category: str
    difficulty: str


class Parent:
    """A parent harness in a world of bench/curriculum_sim.py. Its trial-0 rollouts of every train task found the
    patterns and the tasks it passes, as a run's minibatches do; every rollout is kept by (harness, task, trial), as
    the executor keeps them, so gates on the same keys reuse the parent's."""

    def __init__(self, seed: int):
        world = world_of(seed % WORLDS)
        start = SimHarness(0, tuple(defect.severity for defect in world.defects))
        self.run = Run(world, 10**12, random.Random(seed), start, noise=random.Random(seed * 31 + 7))
        self.tasks = [
            SimTask(str(t), str(world.category[t]), "easy" if world.base[t] >= 0.5 else "hard") for t in world.train
        ]
        self.outcomes: dict[tuple[int, int, int], bool] = {}
        self.failures: Counter[int] = Counter()
        self.solved: set[int] = set()
        self.passing: set[int] = set()
        """Train tasks the parent passed in any of its rollouts (what `regression_sample` draws from)."""
        self.children = 0
        for task in world.train:
            self.passed(start, task, 0)
        members = {d: tasks for d, tasks in self.run.members.items() if len(tasks) >= PROMOTION}
        failed = sorted(task for task in world.train if not self.outcomes[0, task, 0])
        self.patterns = [[str(t) for t in sorted(tasks)] for _, tasks in sorted(members.items())] or [
            [str(t) for t in failed]
        ]

    @property
    def harness(self) -> SimHarness:
        return self.run.incumbent

    def passed(self, harness: SimHarness, task: int, trial: int, rescue: float = 0.0) -> bool:
        """One rollout's outcome (run once per key); a failure is turned into a pass with chance `rescue`."""
        key = (harness.version, task, trial)
        if key not in self.outcomes:
            passed = self.run.rollout(harness, task, trial).passed
            passed = passed or (rescue > 0 and self.run.noise.random() < rescue)
            self.outcomes[key] = passed
            if passed:
                self.solved.add(task)
                if harness is self.harness:
                    self.passing.add(task)
            else:
                self.failures[task] += 1
        return self.outcomes[key]

    def unsolved(self) -> set[str]:
        return {
            str(task) for task, n in self.failures.items() if n >= ACCEPTANCE.unsolved_after and task not in self.solved
        }

    def gate(
        self, gate: AcceptanceRule, rng: random.Random, first_trial: int = 1, lift: float = 0.0
    ) -> tuple[Gated, float]:
        """Gate a child against this parent on trials from `first_trial`; the child passes the pattern's tasks `lift`
        more often than the parent does in truth (up to always). Returns the result and the mean true lift."""
        self.children += 1
        child = replace(self.harness, version=self.children)
        pattern = Target(description="a simulated pattern", task_ids=rng.choice(self.patterns))
        regression = across_categories(
            sorted(str(t) for t in self.passing - {int(t) for t in pattern.task_ids}),
            self.tasks,
            ACCEPTANCE.regression_sample,
            rng,
        )
        targets = pattern_sample(pattern, self.tasks, ACCEPTANCE.pattern_tasks, rng, self.unsolved())
        chances = {int(t): 1 - self.harness.pass_rate(self.run.world, int(t)) for t in targets}
        rescue = {task: min(1.0, lift / chance) if chance else 0.0 for task, chance in chances.items()}

        def look(n: int) -> list[Pair]:
            return [
                Pair(
                    task,
                    trial,
                    a=float(self.passed(self.harness, int(task), trial)),
                    b=float(self.passed(child, int(task), trial, rescue.get(int(task), 0.0))),
                )
                for task in targets + regression
                for trial in range(first_trial, first_trial + n)
            ]

        true_lift = statistics.fmean(min(lift, chance) for chance in chances.values()) if chances else 0.0
        return two_looks(gate, look, regression), true_lift


world_of = lru_cache(maxsize=WORLDS)(make_world)


@dataclass(frozen=True)
class GateResult:
    accepted: bool
    looks: int
    pairs: int
    discordant: int
    lift: float


def one_gate(args: tuple[int, float]) -> GateResult:
    """A gate in a world of its own (seed), against a child `lift` better on the pattern's tasks."""
    seed, lift = args
    gated, true_lift = Parent(seed).gate(make_rule(ACCEPTANCE), random.Random(f"{seed}:gate"), lift=lift)
    verdict = gated.verdict
    return GateResult(
        verdict.accepted,
        gated.looks,
        verdict.fixed + verdict.broken + verdict.ties,
        verdict.fixed + verdict.broken,
        true_lift,
    )


def one_run(args: tuple[int, bool]) -> list[bool]:
    """max(RUN_GATES) A/A gates against one parent; the parent's trials are reused by every gate, or fresh for each."""
    seed, reuse = args
    parent, gate, rng = Parent(seed), make_rule(ACCEPTANCE), random.Random(f"{seed}:gate")
    span = ACCEPTANCE.trials + ACCEPTANCE.extra_trials
    return [
        parent.gate(gate, rng, first_trial=1 if reuse else 1 + k * span)[0].verdict.accepted
        for k in range(max(RUN_GATES))
    ]


def simulate(options: argparse.Namespace, console: Console) -> None:
    started = time.perf_counter()
    base = options.seed * 1_000_003
    with ProcessPoolExecutor(options.workers) as pool:
        by_lift = {
            lift: list(pool.map(one_gate, [(base + g, lift) for g in range(options.gates)], chunksize=200))
            for lift in (0.0, *LIFTS)
        }
        runs = {
            reuse: list(pool.map(one_run, [(base + 500_000 + r, reuse) for r in range(options.runs)], chunksize=4))
            for reuse in (True, False)
        }
    alpha, per_look = ACCEPTANCE.alpha, ACCEPTANCE.alpha / 2
    console.print(
        f"[bold]Simulation[/] (bench/curriculum_sim.py's world, REPLAY share of shared randomness): the real gate, "
        f"make_rule(AcceptanceConfig()): sign test at alpha {alpha:g}, {ACCEPTANCE.trials} trials per side per task, "
        f"{ACCEPTANCE.extra_trials} more on a second look (p <= {ACCEPTANCE.second_look_p:g}), each look at {per_look:g}; "
        f"up to {ACCEPTANCE.pattern_tasks} pattern tasks + {ACCEPTANCE.regression_sample} protected regression tasks"
    )
    table = Table(
        title=f"1a, 3. Per gate: share of gates accepting the child ({WORLDS} worlds, each gate its own outcomes)"
    )
    for column in (
        "child (true gain on the pattern tasks)",
        "gates",
        "accepted [95%]",
        "at look 1",
        "at look 2",
        "second looks",
        "pairs per gate",
        "differing pairs",
    ):
        table.add_column(column, justify="left" if column.startswith("child") else "right")
    for lift, results in by_lift.items():
        n = len(results)
        name = (
            "A/A: identical in truth"
            if not lift
            else (f"+{lift * 100:.0f} pp asked, +{statistics.fmean(r.lift for r in results) * 100:.1f} pp true")
        )
        table.add_row(
            name,
            str(n),
            str(stats.rate(sum(r.accepted for r in results), n)),
            str(sum(r.accepted and r.looks == 1 for r in results)),
            str(sum(r.accepted and r.looks == 2 for r in results)),
            f"{sum(r.looks == 2 for r in results) / n:.0%}",
            f"{statistics.fmean(r.pairs for r in results):.1f}",
            f"{statistics.fmean(r.discordant for r in results):.1f}",
        )
    console.print(table)
    false_accept = stats.rate(sum(r.accepted for r in by_lift[0.0]), len(by_lift[0.0]))
    console.print(calibration_line(false_accept, alpha))

    table = Table(
        title=f"2. Per run: {options.runs} runs of A/A gates against one parent: share with at least one accept",
        caption=f"expected false accepts at most G x alpha (both looks) = G x {alpha:g}; G x per-look alpha = G x {per_look:g}",
    )
    for column in (
        "gates G",
        "parent trials reused [95%]",
        "mean accepts",
        "fresh per gate [95%]",
        "mean accepts",
        "independent gates 1-(1-p)^G",
        "G x per-look alpha",
        "G x alpha",
    ):
        table.add_column(column, justify="right")
    for g in RUN_GATES:
        cells = []
        for reuse in (True, False):
            firsts = [accepts[:g] for accepts in runs[reuse]]
            cells += [
                str(stats.rate(sum(any(a) for a in firsts), len(firsts))),
                f"{statistics.fmean(sum(a) for a in firsts):.2f}",
            ]
        independent = 1 - (1 - false_accept.value) ** g
        table.add_row(
            str(g),
            *cells,
            f"{independent:.0%}",
            f"{stats.expected_false_accepts([per_look] * g):.1f}",
            f"{stats.expected_false_accepts([alpha] * g):.1f}",
        )
    console.print(table)
    console.print(f"simulation: {time.perf_counter() - started:.0f} s")


def calibration_line(measured: stats.Rate, alpha: float) -> str:
    """Whether a measured false-accept rate is within the configured alpha."""
    if measured.low > alpha:
        return (
            f"[bold red]FALSE ACCEPTS EXCEED ALPHA[/]: {measured} > {alpha:g} beyond the interval; the gate does not hold "
            "its level here"
        )
    verdict = "within" if measured.high <= alpha else "not distinguishable from"
    return f"false accepts per gate {measured}: {verdict} alpha {alpha:g}"


# --- the embedded pool ------------------------------------------------------------------------------------------------


def inert_copy(harness):
    """The harness with one more blank line after the system prompt's first paragraph: the rendered prompt differs, so
    does every sampled reply, its meaning does not. A trailing blank line would not do: `Harness.render` strips what it
    renders, so the model would see the very same prompt and its seeded replies would repeat the parent's."""
    from harness_evo.errors import UserError
    from harness_evo.harness import Harness

    text = harness.components[SYSTEM]
    child = Harness({**harness.components, SYSTEM: text.replace("\n\n", "\n\n\n", 1)})
    if child.render("system.md.j2") == harness.render("system.md.j2"):
        raise UserError(
            f"{harness.where(SYSTEM)}: no blank line between paragraphs to double; the inert copy would render the same"
        )
    return child


@dataclass
class Pool:
    """K tasks x T trials of a parent and its inert copy, in a run folder; the parent has one trial more, `first_trial`,
    which chose the gates' tasks (pattern tasks are those it failed, regression tasks those it passed)."""

    tasks: list[Task]
    parent: object
    child: object
    first_trial: int
    trials: int

    @property
    def gate_trials(self) -> list[int]:
        return list(range(self.first_trial + 1, self.first_trial + 1 + self.trials))

    def spec(self) -> dict:
        return {
            "tasks": [task.id for task in self.tasks],
            "parent": self.parent.hash,
            "child": self.child.hash,
            "first_trial": self.first_trial,
            "trials": self.trials,
        }


def history(runs_dir: Path, model: str) -> dict[str, list[int]]:
    """Train task -> [passed, scored] over every run's rollouts with this solver (read-only: runs may be running)."""
    seen: dict[str, list[int]] = {}
    for folder in RunStore.folders(runs_dir):
        try:
            store = RunStore(folder, readonly=True)
            rows = store.records(Rollout, model=model, split="train")
            store.close()
        except StoreError:
            continue
        for row in rows:
            if row.scored:
                counts = seen.setdefault(row.task_id, [0, 0])
                counts[0] += row.passed
                counts[1] += 1
    return seen


def choose_tasks(
    train: list[Task], k: int, seen: dict[str, list[int]], rng: random.Random, have: Collection[str] = ()
) -> list[Task]:
    """Easy train tasks, first those the solver passed sometimes but not always in earlier runs (they make differing
    pairs; nearest half first), then ones never tried, then ones always passed, then ones never passed."""

    def rank(task: Task) -> tuple:
        passed, n = seen.get(task.id, (0, 0))
        share = passed / n if n else 0.5
        group = 1 if not n else 0 if 0 < passed < n else 2 if passed == n else 3
        return group, task.difficulty != "easy", abs(share - 0.5), rng.random()

    return sorted((task for task in train if task.id not in have), key=rank)[: max(0, k - len(have))]


def open_pool(options: argparse.Namespace, store, suite, config: RunConfig, console: Console) -> Pool:
    """The pool of `--run` (extended by `--tasks` and `--pool-trials`), or a new one in `store`."""
    from harness_evo.errors import UserError
    from harness_evo.harness import Harness

    train = suite.split("train")
    spec = next(reversed([event["data"] for event in store.events(["gate_pool"])]), None)
    if spec:
        parent = Harness.load(store.folder / "harnesses" / spec["parent"])
        have = [suite.tasks[task_id] for task_id in spec["tasks"]]
    else:
        parent, have = Harness.load(config.harness), []
    if options.tasks and not options.tasks.isdigit():
        ids = [task_id.strip() for task_id in options.tasks.split(",") if task_id.strip()]
        unknown = [task_id for task_id in ids if task_id not in suite.tasks]
        if unknown:
            raise UserError(f"--tasks: no task {', '.join(unknown)} in {config.tasks}")
        tasks = have + [suite.tasks[task_id] for task_id in ids if task_id not in {task.id for task in have}]
    else:
        k = int(options.tasks) if options.tasks else max(len(have), 10)
        seen = history(options.runs_dir, config.models.solver.model)
        tasks = have + choose_tasks(train, k, seen, random.Random(options.seed), {task.id for task in have})
        for task in tasks:
            passed, n = seen.get(task.id, (0, 0))
            console.print(
                f"  {task.id} ({task.difficulty}): {f'{passed} of {n} passed in earlier runs' if n else 'not tried in earlier runs'}"
            )
    trials = options.pool_trials or (spec["trials"] if spec else 6)
    pool = Pool(tasks, parent, inert_copy(parent), spec["first_trial"] if spec else options.first_trial, trials)
    store.emit("gate_pool", pool.spec())
    return pool


def fill(pool: Pool, executor, console: Console) -> None:
    """Run what the pool still lacks, trial by trial, both sides in turn, so a pool cut short is balanced."""
    executor.run(pool.parent, pool.tasks, [pool.first_trial], node_id=pool.parent.hash)
    for trial in pool.gate_trials:
        for harness in (pool.parent, pool.child):
            executor.run(harness, pool.tasks, [trial], node_id=harness.hash)


def pool_gates(pool: Pool, rows: list[Rollout], gates: int, seed: int) -> tuple[list[Gated], int]:
    """Gates drawn from the pool: the parent's `first_trial` makes its tasks pattern (failed) or regression (passed)
    tasks, each gate takes them as `try_candidate` does and draws the trials of each task (without replacement) that
    stand for trials 1, 2, 3 (and 4, 5, 6 on a second look). Returns the gates and the distinct rollouts they used."""
    by_key = {(row.harness_hash, row.task_id, row.trial): row for row in rows}
    chose = [by_key.get((pool.parent.hash, task.id, pool.first_trial)) for task in pool.tasks]
    passing = sorted(task.id for task, row in zip(pool.tasks, chose) if row and row.passed)
    failing = Target(
        description="the pool's failed tasks",
        task_ids=sorted(task.id for task, row in zip(pool.tasks, chose) if row and not row.passed),
    )
    gate, used, results = make_rule(ACCEPTANCE), set(), []
    for g in range(gates):
        rng = random.Random(f"{seed}:pool:{g}")
        regression = across_categories(passing, pool.tasks, ACCEPTANCE.regression_sample, rng)
        tasks = pattern_sample(failing, pool.tasks, ACCEPTANCE.pattern_tasks, rng) + regression
        order = {task: rng.sample(pool.gate_trials, len(pool.gate_trials)) for task in tasks}

        def look(n: int) -> list[Pair]:
            keys = [(task, trial) for task in tasks for trial in order[task][:n]]  # noqa: B023 (called in this iteration)
            sides = [
                [by_key[key] for task, trial in keys if (key := (harness.hash, task, trial)) in by_key]
                for harness in (pool.parent, pool.child)
            ]
            used.update((row.harness_hash, row.task_id, row.trial) for side in sides for row in side)
            return pair_rollouts(*sides)

        results.append(two_looks(gate, look, regression))
    return results, len(used)


def embedded(options: argparse.Namespace, console: Console) -> None:
    from harness_evo.agent.session import session
    from harness_evo.errors import UserError
    from harness_evo.sandbox import get_backend
    from harness_evo.taskset import load_suite

    config = RunConfig(kind="compare", split="train", seed=options.seed)
    suite = load_suite(config.tasks, seed=config.seed)
    store = (
        RunStore.find(options.run, options.runs_dir) if options.run else RunStore.create(options.runs_dir, "gatecal")
    )
    if not options.run:
        config.save(store.folder / "config.toml")
    console.print(
        f"\n[bold]Embedded pool[/] in {store.folder} ({config.models.solver.model}, temperature "
        f"{config.models.solver.temperature:g}); resume or extend it with --run {store.id}"
    )
    try:
        get_backend(config.sandbox, run_id=store.id)  # a machine without Docker or the base image skips this part
    except UserError as e:
        console.print(f"skipped: {e}")
        return
    pool = open_pool(options, store, suite, config, console)
    console.print(
        f"  {len(pool.tasks)} tasks x {pool.trials} trials per side (trials {pool.gate_trials[0]}-{pool.gate_trials[-1]}), "
        f"the parent's trial {pool.first_trial} choosing pattern vs regression tasks: "
        f"{len(pool.tasks) * (2 * pool.trials + 1)} rollouts in all; child = parent + one blank line in {SYSTEM}"
    )
    started, paid = time.perf_counter(), []

    def progress(kind: str, row: Rollout) -> None:
        if kind == "finished":
            paid.append(row.duration_s)
            side = "parent" if row.harness_hash == pool.parent.hash else "child "
            outcome = "pass" if row.passed else f"fail ({row.exit_reason})"
            console.print(
                f"  [{len(paid)}] {side} {row.task_id} trial {row.trial}: {outcome}, {row.duration_s:.0f} s, "
                f"{(time.perf_counter() - started) / 60:.1f} min so far"
            )

    try:
        with session(store, config, on_progress=progress) as run:
            fill(pool, run.executor, console)
    except KeyboardInterrupt:
        console.print(f"stopped; continue with --run {store.id}")
        raise SystemExit(130) from None
    elapsed = time.perf_counter() - started
    rows = [
        row
        for row in store.records(Rollout)
        if row.harness_hash in (pool.parent.hash, pool.child.hash) and row.task_id in {task.id for task in pool.tasks}
    ]
    report_pool(pool, rows, paid, elapsed, options, console)
    store.set_status(RunStatus.FINISHED, finished=time.time(), summary=pool.spec())


def report_pool(
    pool: Pool, rows: list[Rollout], paid: list[float], elapsed: float, options: argparse.Namespace, console: Console
) -> None:
    scored = {(row.harness_hash, row.task_id, row.trial): row.reward for row in rows if row.scored}
    durations = [row.duration_s for row in rows if row.duration_s]
    console.print(
        f"  {len(paid)} rollouts paid now in {elapsed / 60:.1f} min ({statistics.fmean(paid) if paid else 0:.0f} s each); "
        f"the pool holds {len(rows)} ({len(rows) - len(scored)} infrastructure failures), "
        f"median {statistics.median(durations) if durations else 0:.0f} s, mean {statistics.fmean(durations) if durations else 0:.0f} s"
    )
    table = Table(title="1b. The pool: passes per side on the gate trials, and the trial that chose the task's role")
    for column in ("task", "difficulty", "chose (parent)", "parent", "child", "fixed", "broken"):
        table.add_column(column, justify="left" if column in ("task", "difficulty") else "right")
    outcomes = []
    for task in pool.tasks:
        keys = [
            trial
            for trial in pool.gate_trials
            if (pool.parent.hash, task.id, trial) in scored and (pool.child.hash, task.id, trial) in scored
        ]
        pairs = [(scored[pool.parent.hash, task.id, t], scored[pool.child.hash, task.id, t]) for t in keys]
        outcomes += [stats.Pair(task.id, t, a, b) for t, (a, b) in zip(keys, pairs)]
        chose = scored.get((pool.parent.hash, task.id, pool.first_trial))
        table.add_row(
            task.id,
            task.difficulty,
            "-" if chose is None else "pass: regression" if chose else "fail: pattern",
            f"{sum(a for a, _ in pairs):g}/{len(pairs)}",
            f"{sum(b for _, b in pairs):g}/{len(pairs)}",
            str(sum(b > a for a, b in pairs)),
            str(sum(a > b for a, b in pairs)),
        )
    console.print(table)
    if outcomes:
        console.print(
            "  whole pool, child vs parent: "
            + stats.verdict("parent", "child", stats.paired(outcomes, seed=options.seed))
        )
    if pool.trials < ACCEPTANCE.trials + ACCEPTANCE.extra_trials:
        console.print(
            f"  [yellow]{pool.trials} pool trials per side: a second look draws all of them, not "
            f"{ACCEPTANCE.trials + ACCEPTANCE.extra_trials}[/]"
        )
    gates, used = pool_gates(pool, rows, options.gates, options.seed)
    accepted = stats.rate(sum(g.verdict.accepted for g in gates), len(gates))
    console.print(
        f"  {len(gates)} gates drawn from the pool: accepted {accepted}, {sum(g.looks == 2 for g in gates) / len(gates):.0%} "
        f"took a second look; configured alpha {ACCEPTANCE.alpha:g}"
    )
    console.print(
        f"  [bold]gates drawn from one pool are not independent[/]: they share {used} distinct rollouts (of "
        f"{len(rows)}), so the interval is that of the draws, not of another pool; a pool of {len(pool.tasks)} tasks "
        f"x {pool.trials} trials tells a rate near alpha from one of 2 x alpha only roughly"
    )
    console.print("  " + calibration_line(accepted, ACCEPTANCE.alpha))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--gates", type=int, default=10000, help="gates per row of the simulation, and drawn from the pool"
    )
    parser.add_argument("--runs", type=int, default=300, help="simulated runs per row of the run-level table")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="processes of the simulation")
    parser.add_argument("--skip-embedded", action="store_true", help="only the simulation")
    parser.add_argument("--skip-simulation", action="store_true", help="only the embedded pool")
    parser.add_argument(
        "--tasks",
        help="pool tasks: a number (default 10, easy train tasks the solver passed sometimes in "
        "earlier runs first) or comma-separated task ids",
    )
    parser.add_argument("--pool-trials", type=int, help="trials per side per task (default 6, or the --run pool's)")
    parser.add_argument(
        "--first-trial",
        type=int,
        default=1000,
        help="the parent's task-choosing trial; gate trials follow it (no earlier run used them: nothing is cached)",
    )
    parser.add_argument("--run", help="an existing pool run folder or id to resume or extend")
    parser.add_argument("--runs-dir", type=Path, default=Path("runs"))
    options = parser.parse_args()
    console = Console(width=max(Console().width, 150))
    if not options.skip_simulation:
        simulate(options, console)
    if not options.skip_embedded:
        embedded(options, console)


if __name__ == "__main__":
    main()
