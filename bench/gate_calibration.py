"""How often the empirical gate keeps an edit that does nothing, and how often one that helps (a benchmark, not a test).

1. Today's gate and the evidence engine side by side (the default): one stream of candidates, mostly inert (A/A),
   some helping by +5, +10 or +15 pp, some hurting by 5 or 10 pp, half global and half targeted, judged by both in
   simulated worlds whose train tasks' pass rates are the embedded solver's own (bench/data/pass_rates.json, made by
   `--pass-rates RUN` from an eval run, below; see evolve/evidence/world.py for the world and what +d means). Today's
   gate is `make_planner` + `make_rule(AcceptanceConfig())` driven as `Evolution.try_candidate` drives them; the engine
   is `Engine(EvidenceConfig(), train).gate`. Each parent's run judges `--per-parent` candidates, each gate reusing the
   parent's rollouts (today: the executor's cache by key; the engine: its pool). Reported per gate: A/A false accepts,
   power at each effect, rollouts per decision, true accepts per 1000 rollouts, the share of accepts that were inert
   or harmful, and the expected false accepts of a run of 50 gates. Then a move's three alternatives (one +10 pp, two
   inert) raced by the engine against the same gated one by one (`--races` parents). A data file marked synthetic runs
   only with --synthetic (or --quick), every figure labelled.
2. With --curriculum-world, today's gate in the synthetic world of bench/curriculum_sim.py:
   a. false accepts per gate on A/A edits, judged by the real gate on tasks chosen as `try_candidate` chooses them;
   b. false accepts per run: G A/A gates against one parent, the parent's gate rollouts reused by every child (as the
      loop's cache does) and fresh for each gate: the chance that at least one is accepted;
   c. power: the share of gates that accept a child whose true pass rate on the pattern's tasks is higher by +15 or
      +30 points (up to 100%), the regression tasks unchanged.
3. With --embedded, false accepts with the embedded solver on train tasks of tasks/core: harnesses/bash-agent against
   a copy whose system prompt has one more blank line between two paragraphs (rendered, so every sampled reply
   differs, but nothing to act on). Each side runs K tasks x T fresh trials once through the Executor, the parent one
   trial more (the one that chose the gate's tasks, as trial 0 does in a run); gates are then drawn from that pool as
   the gate would pick tasks and trials. Gates drawn from one pool are not independent.

    python bench/gate_calibration.py [--gates 4000] [--per-parent 10] [--races 300] [--seed 0] [--workers 2]
        [--data FILE] [--synthetic] [--quick] [--skip-simulation] [--curriculum-world [--runs 300]]
        [--embedded [--tasks 10 | --tasks ID,ID,...] [--pool-trials 6] [--run RUN]]

The pass-rate file. Make an eval run of the embedded 1.5B on the train split (68 tasks x 3 trials), then the file:

    harness-evo eval --harness harnesses/bash-agent --tasks tasks/core --split train --trials 3
    python bench/gate_calibration.py --pass-rates RUN [--out bench/data/pass_rates.json]

It is JSON: `synthetic` (false for a measured file), `command` (the eval command that made the run), `run` (its id),
`solver` (the solver model), `harness` (the harness hash), and `tasks`: task id -> {"passed": k, "n": n, "category": c,
"difficulty": d}, over the run's scored train rollouts (infrastructure failures left out).
bench/data/pass_rates.SYNTHETIC.json holds made-up rates of the same tasks, to develop with; never a result.
"""

import argparse
import json
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
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.table import Table

from harness_evo import stats
from harness_evo.config import AcceptanceConfig, EvidenceConfig, RunConfig, one_line
from harness_evo.errors import first_line
from harness_evo.evolve.acceptance import AcceptanceRule, Verdict, make_rule, pair_rollouts
from harness_evo.evolve.evidence import PARENT, Candidate, Engine, ParentPool
from harness_evo.evolve.evidence.world import Effect, SimTask, TodayGate, World, draw_rates, guide_patterns
from harness_evo.evolve.plan import across_categories, pattern_sample
from harness_evo.evolve.target import Target
from harness_evo.harness import Harness
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


# --- the pass-rate file ----------------------------------------------------------------------------------------------


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
    harness, tasks = here(config.harness), here(config.tasks)
    command = f"harness-evo eval --harness {harness} --tasks {tasks} --split train --trials {trials}{agent}"
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


def here(path: Path) -> Path:
    """The path relative to the working folder when it lies inside it, so the recorded command runs from a checkout."""
    return path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path


MIN_TRIALS = 3
"""Scored trials a task of the pass-rate file should have."""


def write_pass_rates(options: argparse.Namespace, console: Console) -> None:
    """`--pass-rates RUN`: write the data file of an eval run's train rollouts."""
    from harness_evo.errors import UserError

    try:
        rates = from_run(options.pass_rates, options.runs_dir)
    except UserError as e:
        raise SystemExit(f"gate_calibration.py: {e}") from None
    out = options.out or REAL
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(rates.model_dump_json(indent=1) + "\n")
    passed, n = sum(rate.passed for rate in rates.tasks.values()), sum(rate.n for rate in rates.tasks.values())
    console.print(f"{out}: {len(rates.tasks)} train tasks, {passed} of {n} rollouts passed, from run {rates.run}")
    few = sorted(task for task, rate in rates.tasks.items() if rate.n < MIN_TRIALS)
    if few:
        console.print(
            f"warning: {len(few)} of these tasks have fewer than {MIN_TRIALS} scored trials: the eval is not finished; "
            f"its command run again completes it, reusing the rollouts recorded: {rates.command}"
        )


# --- today's gate and the evidence engine side by side ----------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """A kind of candidate in the stream: its scope, its true effect (see `world.Effect`),
    and its share of the stream."""

    scope: str
    delta: float
    weight: int

    def __str__(self) -> str:
        return f"{self.scope} {'A/A (inert)' if not self.delta else f'{self.delta * 100:+.0f} pp'}"


STREAM = (
    Kind("global", 0.0, 30),
    Kind("targeted", 0.0, 30),
    Kind("global", 0.05, 5),
    Kind("global", 0.10, 5),
    Kind("global", 0.15, 5),
    Kind("targeted", 0.05, 5),
    Kind("targeted", 0.10, 5),
    Kind("targeted", 0.15, 5),
    Kind("global", -0.05, 5),
    Kind("global", -0.10, 5),
)
"""The candidates both gates judge, by share: 60% inert, 30% helping, 10% hurting; half global, half targeted."""
ENGINES = ("today", "engine")
"""Today's gate (gate.py's plan, acceptance.py's rule, with its second look) and the evidence engine."""
A_A_RUN = 50
"""Gates of the run whose expected false accepts the side by side reports."""


@dataclass(frozen=True)
class Judged:
    """One gate's decision on one candidate of the stream."""

    engine: str
    kind: Kind
    world: int
    accepted: bool
    rollouts: int
    """Rollouts the decision paid: the child's and the parent's fresh ones (cached or pooled ones are free)."""
    pairs: int
    stop: str
    lift: float
    """The true mean change of the pass rate over the tasks the edit reaches."""


def stream(gates: int, seed: int) -> list[Kind]:
    """`gates` candidates in the shares of STREAM, in a seeded order."""
    total = sum(kind.weight for kind in STREAM)
    kinds = [kind for kind in STREAM for _ in range(round(gates * kind.weight / total))]
    kinds = (kinds + [STREAM[0]] * gates)[:gates]
    random.Random(f"{seed}:stream").shuffle(kinds)
    return kinds


@lru_cache(maxsize=4)
def load_rates(path: str) -> tuple[PassRates, tuple[float, float]]:
    """The data file and the Beta prior of pass rates over its tasks."""
    rates = PassRates.read(Path(path))
    return rates, stats.beta_binomial_fit([(rate.passed, rate.n) for rate in rates.tasks.values()])


@lru_cache(maxsize=1)
def bash_agent() -> Harness:
    return Harness.load(Path(__file__).parents[1] / "harnesses" / "bash-agent")


def lift(kind: Kind, rates: dict[str, float], child: dict[str, float], pattern: list[str]) -> float:
    reached = list(rates) if kind.scope == "global" else pattern
    return statistics.fmean(child[task] - rates[task] for task in reached) if reached else 0.0


def parent_world(
    path: str, seed: int, rng: random.Random
) -> tuple[dict[str, float], list[SimTask], World, dict[tuple[str, int], float]]:
    """A parent's true rates drawn from the data file, its train tasks, its world, and its trial-0 rollouts of every
    train task (the run's minibatch)."""
    data, prior = load_rates(path)
    rates = draw_rates({task: (rate.passed, rate.n) for task, rate in data.tasks.items()}, rng, prior)
    tasks = [SimTask(task, rate.category, rate.difficulty) for task, rate in data.tasks.items()]
    world = World(rates, seed)
    return rates, tasks, world, {(task, 0): world.reward(PARENT, rates, (task, 0)) for task in rates}


def one_world(args: tuple[str, int, list[Kind], EvidenceConfig]) -> list[Judged]:
    """A parent in a world of its own: its true rates drawn from the data file, its trial-0 rollouts of every train task
    (the run's minibatch: they found the patterns and are the engine's guide), and a run of candidates judged by both
    gates, each gate reusing the parent's rollouts across the run (cache or pool)."""
    path, seed, kinds, evidence = args
    rng = random.Random(f"{seed}:world")
    rates, tasks, world, guide = parent_world(path, seed, rng)
    patterns = guide_patterns(guide, tasks)
    today, pool, engine = (
        TodayGate(world, tasks, guide, bash_agent()),
        ParentPool(guide, spent=guide),
        Engine(evidence, tasks),
    )
    judged = []
    for i, kind in enumerate(kinds):
        pattern = rng.choice(patterns)
        effect = Effect(kind.delta, frozenset(pattern) if kind.scope == "targeted" else None)
        child, side = effect.rates(rates), f"w{seed}c{i}"
        true_lift = lift(kind, rates, child, pattern)
        old = today.decide(side, child, pattern, random.Random(f"{seed}:{i}:today"))
        judged.append(
            Judged(
                "today",
                kind,
                seed,
                old.verdict.accepted,
                old.rollouts,
                old.pairs,
                "accepted" if old.verdict.accepted else "rejected",
                true_lift,
            )
        )
        candidate = Candidate(id=side, scope=kind.scope, targets=pattern if kind.scope == "targeted" else [])
        decision = engine.gate(
            pool, candidate, world.measure({PARENT: rates, side: child}), random.Random(f"{seed}:{i}:engine")
        )
        verdict = decision.verdicts[0]
        judged.append(
            Judged(
                "engine",
                kind,
                seed,
                verdict.accepted,
                decision.spend.total,
                verdict.pairs,
                verdict.stop.value,
                true_lift,
            )
        )
    return judged


def changed(evidence: EvidenceConfig) -> str:
    """The settings of `evidence` that are not the defaults, as `key=value` words."""
    return " ".join(f"{key}={value}" for key, value in evidence.model_dump(exclude_defaults=True).items())


def evidence_setting(text: str) -> tuple[str, object]:
    """`KEY=VALUE` of --evidence, the value read as JSON where it parses (numbers, lists), else as text."""
    key, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE, e.g. futility=0.3")
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value


def side_by_side(options: argparse.Namespace, data: PassRates, console: Console) -> None:
    started = time.perf_counter()
    kinds = stream(options.gates, options.seed)
    per = options.per_parent
    jobs = [
        (str(options.data), options.seed * 1_000_003 + w, kinds[k : k + per], options.evidence)
        for w, k in enumerate(range(0, len(kinds), per))
    ]
    with ProcessPoolExecutor(options.workers) as pool:
        judged = [
            row
            for rows in pool.map(one_world, jobs, chunksize=max(1, len(jobs) // (8 * options.workers)))
            for row in rows
        ]
    label = "[bold red]SYNTHETIC pass rates: no result[/] " if data.synthetic else ""
    n, passed = sum(r.n for r in data.tasks.values()), sum(r.passed for r in data.tasks.values())
    console.print(
        f"\n{label}[bold]Today's gate and the evidence engine side by side[/] on {options.gates} candidates, "
        f"{per} per parent ({len(jobs)} parents), in worlds whose {len(data.tasks)} train tasks' pass rates are drawn "
        f"from {options.data.name} ({passed} of {n} passed: {data.command}); a global +d moves every task on the "
        "logit scale so that the mean rate rises by d, a targeted +d adds d to each of its pattern's tasks"
    )
    evidence = options.evidence
    console.print(
        f"  today: make_planner + make_rule(AcceptanceConfig()): alpha {ACCEPTANCE.alpha:g}, "
        f"{ACCEPTANCE.pattern_tasks} pattern + {ACCEPTANCE.regression_sample} regression tasks x {ACCEPTANCE.trials} "
        f"trials, a second look of {ACCEPTANCE.extra_trials} more; engine: EvidenceConfig({changed(evidence)}) "
        f"alpha {evidence.alpha:g}, at most {evidence.max_rollouts} rollouts, {evidence.batch} keys a look, "
        f"alternatives {evidence.alternatives}"
    )
    table = Table(title=f"{label}Per kind of candidate: share accepted [95%], rollouts and pairs per decision")
    for column in (
        "candidate",
        "gates",
        "true lift",
        *(f"{engine} {what}" for engine in ENGINES for what in ("accepted", "rollouts", "pairs")),
    ):
        table.add_column(column, justify="left" if column == "candidate" else "right")
    for kind in STREAM:
        rows = {engine: [r for r in judged if r.kind == kind and r.engine == engine] for engine in ENGINES}
        if not rows["engine"]:
            continue
        cells = [
            c
            for engine in ENGINES
            for c in (
                str(stats.rate(sum(r.accepted for r in rows[engine]), len(rows[engine]))),
                f"{statistics.fmean(r.rollouts for r in rows[engine]):.0f}",
                f"{statistics.fmean(r.pairs for r in rows[engine]):.0f}",
            )
        ]
        table.add_row(
            str(kind),
            str(len(rows["engine"])),
            f"{statistics.fmean(r.lift for r in rows['engine']) * 100:+.1f} pp",
            *cells,
        )
    console.print(table)
    stops = Counter(r.stop for r in judged if r.engine == "engine")
    console.print("  engine stops: " + ", ".join(f"{stop} {count}" for stop, count in stops.most_common()))
    summary(judged, label, options, console)
    if options.races:
        races(options, console, label)
    console.print(f"side by side: {time.perf_counter() - started:.0f} s")


RACE = (0.10, 0.0, 0.0)
"""The global effects of one move's alternatives in the race table: one helps by +10 pp, two are inert."""


@dataclass(frozen=True)
class Raced:
    """A move's alternatives judged by the engine, raced or gated one by one."""

    how: str
    helpful: bool
    """The helpful alternative was accepted."""
    inert: int
    """Inert alternatives accepted."""
    rollouts: int


def one_race(args: tuple[str, int, EvidenceConfig]) -> list[Raced]:
    """RACE's alternatives against one parent: a race of all of them, and each gated one by one on a pool of its own."""
    path, seed, evidence = args
    rng = random.Random(f"{seed}:race")
    rates, tasks, world, guide = parent_world(path, seed, rng)
    sides = {f"r{seed}c{i}": Effect(delta).rates(rates) for i, delta in enumerate(RACE)}
    measure, engine = world.measure({PARENT: rates, **sides}), Engine(evidence, tasks)
    candidates = [Candidate(id=side) for side in sides]
    raced = engine.race(ParentPool(guide, spent=guide), candidates, measure, random.Random(f"{seed}:raced"))
    pool = ParentPool(guide, spent=guide)
    alone = [engine.gate(pool, candidate, measure, random.Random(f"{seed}:{candidate.id}")) for candidate in candidates]
    return [
        Raced("raced", raced.verdicts[0].accepted, sum(v.accepted for v in raced.verdicts[1:]), raced.spend.total),
        Raced(
            "one by one",
            alone[0].verdicts[0].accepted,
            sum(d.verdicts[0].accepted for d in alone[1:]),
            sum(d.spend.total for d in alone),
        ),
    ]


def races(options: argparse.Namespace, console: Console, label: str) -> None:
    """The engine's race against the same candidates gated one by one."""
    jobs = [(str(options.data), options.seed * 1_000_003 + 700_000 + r, options.evidence) for r in range(options.races)]
    with ProcessPoolExecutor(options.workers) as pool:
        results = [
            row
            for rows in pool.map(one_race, jobs, chunksize=max(1, len(jobs) // (8 * options.workers)))
            for row in rows
        ]
    table = Table(
        title=f"{label}A move's {len(RACE)} alternatives (global {', '.join(f'{d * 100:+.0f} pp' for d in RACE)}), "
        f"{options.races} parents: raced (alpha split over them, at most one accepted) or gated one by one"
    )
    for column in ("engine", "helpful one accepted [95%]", "an inert one accepted [95%]", "rollouts per move"):
        table.add_column(column, justify="left" if column == "engine" else "right")
    for how in ("raced", "one by one"):
        rows = [r for r in results if r.how == how]
        table.add_row(
            how,
            str(stats.rate(sum(r.helpful for r in rows), len(rows))),
            str(stats.rate(sum(r.inert > 0 for r in rows), len(rows))),
            f"{statistics.fmean(r.rollouts for r in rows):.0f}",
        )
    console.print(table)


def summary(judged: list[Judged], label: str, options: argparse.Namespace, console: Console) -> None:
    """The issue's figures per gate and its goal."""
    figures = {engine: Figures.of([r for r in judged if r.engine == engine], options.seed) for engine in ENGINES}
    table = Table(title=f"{label}The figures of issue 45 (intervals 95%; per 1000 rollouts: bootstrap over parents)")
    for column in ("figure", *ENGINES, "goal"):
        table.add_column(column, justify="left" if column in ("figure", "goal") else "right")
    today, engine = figures["today"], figures["engine"]
    table.add_row(
        "A/A false accepts per gate",
        str(today.false_accepts),
        str(engine.false_accepts),
        f"within alpha {options.evidence.alpha:g}",
    )
    for kind in STREAM:
        if kind.delta > 0:
            table.add_row(
                f"power, {kind}",
                str(today.power[kind]),
                str(engine.power[kind]),
                "80% at <= 300 rollouts per decision" if (kind.scope, kind.delta) == ("global", 0.10) else "",
            )
    table.add_row("harmful edits accepted", str(today.harmful), str(engine.harmful), "")
    table.add_row("rollouts per decision", f"{today.rollouts:.0f}", f"{engine.rollouts:.0f}", "")
    table.add_row(
        "rollouts per decision, global +10 pp",
        f"{today.rollouts_at[GLOBAL_10]:.0f}",
        f"{engine.rollouts_at[GLOBAL_10]:.0f}",
        "<= 300",
    )
    table.add_row(
        "true accepts per 1000 rollouts", today.per_1000_text(), engine.per_1000_text(), "engine >= 3 x today"
    )
    table.add_row(
        "share of accepts inert or harmful",
        str(today.false_discoveries),
        str(engine.false_discoveries),
        "engine <= today",
    )
    table.add_row(
        f"expected false accepts, run of {A_A_RUN} A/A gates",
        today.run_text(),
        engine.run_text(),
        f"<= {A_A_RUN * options.evidence.alpha:g} ({A_A_RUN} x alpha)",
    )
    console.print(table)
    ratio = ratio_interval(judged, options.seed)
    console.print(f"  {label}true accepts per 1000 rollouts, engine / today: {ratio}")
    console.print(
        "  "
        + label
        + calibration_line(engine.false_accepts, options.evidence.alpha).replace(
            "false accepts per gate", "engine: false accepts per gate"
        )
    )


GLOBAL_10 = next(kind for kind in STREAM if (kind.scope, kind.delta) == ("global", 0.10))
BOOTSTRAP = 2000


@dataclass(frozen=True)
class Figures:
    """One gate's figures over the stream."""

    false_accepts: stats.Rate
    power: dict[Kind, stats.Rate]
    harmful: stats.Rate
    rollouts: float
    rollouts_at: dict[Kind, float]
    per_1000: float
    per_1000_interval: tuple[float, float]
    false_discoveries: stats.Rate

    @classmethod
    def of(cls, rows: list[Judged], seed: int) -> "Figures":
        def rate(selected: list[Judged]) -> stats.Rate:
            return stats.rate(sum(r.accepted for r in selected), len(selected))

        accepts = [r for r in rows if r.accepted]
        return cls(
            false_accepts=rate([r for r in rows if r.kind.delta == 0]),
            power={kind: rate([r for r in rows if r.kind == kind]) for kind in STREAM if kind.delta > 0},
            harmful=rate([r for r in rows if r.kind.delta < 0]),
            rollouts=statistics.fmean(r.rollouts for r in rows),
            rollouts_at={
                kind: statistics.fmean([r.rollouts for r in rows if r.kind == kind] or [0]) for kind in STREAM
            },
            per_1000=per_1000(rows),
            per_1000_interval=bootstrap(rows, per_1000, seed),
            false_discoveries=stats.rate(sum(r.kind.delta <= 0 for r in accepts), len(accepts)),
        )

    def per_1000_text(self) -> str:
        low, high = self.per_1000_interval
        return f"{self.per_1000:.2f} [{low:.2f}, {high:.2f}]"

    def run_text(self) -> str:
        rate = self.false_accepts
        return f"{A_A_RUN * rate.value:.2f} [{A_A_RUN * rate.low:.2f}, {A_A_RUN * rate.high:.2f}]"


def per_1000(rows: list[Judged]) -> float:
    """Accepts of helpful edits per 1000 rollouts paid."""
    paid = sum(r.rollouts for r in rows)
    return 1000 * sum(r.accepted and r.kind.delta > 0 for r in rows) / paid if paid else 0.0


def by_world(rows: list[Judged]) -> list[list[Judged]]:
    worlds: dict[int, list[Judged]] = {}
    for row in rows:
        worlds.setdefault(row.world, []).append(row)
    return list(worlds.values())


def bootstrap(rows: list[Judged], figure: Callable[[list[Judged]], float], seed: int) -> tuple[float, float]:
    """The 95% interval of `figure` by resampling parents (a parent's gates share its pool, so they go together)."""
    worlds, rng = by_world(rows), random.Random(f"{seed}:bootstrap")
    values = sorted(
        figure([r for world in rng.choices(worlds, k=len(worlds)) for r in world]) for _ in range(BOOTSTRAP)
    )
    return values[int(0.025 * BOOTSTRAP)], values[int(0.975 * BOOTSTRAP) - 1]


def ratio_interval(judged: list[Judged], seed: int) -> str:
    """The engine's true accepts per 1000 rollouts over today's, with a bootstrap interval over parents."""

    def ratio(rows: list[Judged]) -> float:
        today = per_1000([r for r in rows if r.engine == "today"])
        return per_1000([r for r in rows if r.engine == "engine"]) / today if today else float("inf")

    low, high = bootstrap(judged, ratio, seed)
    return f"{ratio(judged):.1f}x [{low:.1f}x, {high:.1f}x]"


def read_data(options: argparse.Namespace, console: Console) -> PassRates | None:
    """The pass-rate file the side by side simulates from; None (with a line saying why) when it cannot run."""
    if options.data is None:
        options.data = REAL if REAL.exists() or not (options.synthetic or options.quick) else SYNTHETIC
    if not options.data.exists():
        console.print(
            f"[red]{options.data}: no pass-rate file; make it from an eval run with --pass-rates RUN (see this "
            f"script's docstring), or pass --synthetic to develop with {SYNTHETIC.name}[/]"
        )
        return None
    try:
        data = PassRates.read(options.data)
    except ValueError as e:
        console.print(
            f"[red]{options.data}: not a pass-rate file ({first_line(e)}); its format is in this script's docstring[/]"
        )
        return None
    if data.synthetic and not (options.synthetic or options.quick):
        console.print(
            f"[red]{options.data} holds made-up pass rates: its figures are no result; pass --synthetic to run on it "
            "anyway (every figure is then labelled SYNTHETIC)[/]"
        )
        return None
    return data


# --- the curriculum world ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CurriculumTask:
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
            CurriculumTask(str(t), str(world.category[t]), "easy" if world.base[t] >= 0.5 else "hard")
            for t in world.train
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
        pattern = Target(description="a pattern of the curriculum world", task_ids=rng.choice(self.patterns))
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
        f"{ACCEPTANCE.extra_trials} more on a second look (p <= {ACCEPTANCE.second_look_p:g}), each look at "
        f"{per_look:g}; up to {ACCEPTANCE.pattern_tasks} pattern tasks + {ACCEPTANCE.regression_sample} protected "
        "regression tasks"
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
        caption=(
            f"expected false accepts at most G x alpha (both looks) = G x {alpha:g}; G x per-look alpha = G x "
            f"{per_look:g}"
        ),
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
            f"[bold red]FALSE ACCEPTS EXCEED ALPHA[/]: {measured} > {alpha:g} beyond the interval; the gate does not "
            "hold its level here"
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
                f"  {task.id} ({task.difficulty}): "
                f"{f'{passed} of {n} passed in earlier runs' if n else 'not tried in earlier runs'}"
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
        f"  {len(pool.tasks)} tasks x {pool.trials} trials per side (trials "
        f"{pool.gate_trials[0]}-{pool.gate_trials[-1]}), the parent's trial {pool.first_trial} choosing pattern vs "
        f"regression tasks: {len(pool.tasks) * (2 * pool.trials + 1)} rollouts in all; child = parent + one blank line "
        f"in {SYSTEM}"
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
        f"  {len(paid)} rollouts paid now in {elapsed / 60:.1f} min ({statistics.fmean(paid) if paid else 0:.0f} s "
        f"each); the pool holds {len(rows)} ({len(rows) - len(scored)} infrastructure failures), "
        f"median {statistics.median(durations) if durations else 0:.0f} s, mean "
        f"{statistics.fmean(durations) if durations else 0:.0f} s"
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
        f"  {len(gates)} gates drawn from the pool: accepted {accepted}, "
        f"{sum(g.looks == 2 for g in gates) / len(gates):.0%} took a second look; configured alpha {ACCEPTANCE.alpha:g}"
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
        "--gates",
        type=int,
        help="candidates of the side by side (default 4000); gates per row of the "
        "curriculum world and drawn from the embedded pool (default 10000)",
    )
    parser.add_argument(
        "--per-parent", type=int, default=10, help="candidates judged against one parent in the side by side"
    )
    parser.add_argument(
        "--races", type=int, help="parents whose move's alternatives the engine races (default 300; 10 with --quick)"
    )
    parser.add_argument("--data", type=Path, help=f"the pass-rate file (default {REAL.name} in bench/data)")
    parser.add_argument(
        "--synthetic", action="store_true", help="allow a data file marked synthetic (figures labelled, no result)"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a tiny run that checks the bench works (20 candidates unless "
        "--gates; the synthetic file when no real one exists)",
    )
    parser.add_argument(
        "--runs", type=int, default=300, help="simulated runs per row of the curriculum world's run-level table"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="processes of the simulations")
    parser.add_argument(
        "--curriculum-world", action="store_true", help="also today's gate in bench/curriculum_sim.py's world"
    )
    parser.add_argument(
        "--embedded", action="store_true", help="also the embedded pool (runs the embedded solver for hours)"
    )
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
    parser.add_argument(
        "--skip-simulation", action="store_true", help="no side by side (with --embedded: only the pool)"
    )
    parser.add_argument(
        "--pass-rates", metavar="RUN", help="write the pass-rate file of an eval run (see above) and stop"
    )
    parser.add_argument("--out", type=Path, help=f"where --pass-rates writes (default {REAL.name} in bench/data)")
    parser.add_argument(
        "--evidence",
        type=evidence_setting,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an [evidence] setting of the engine other than its default (repeatable), e.g. futility=0.3",
    )
    options = parser.parse_args()
    try:
        options.evidence = EvidenceConfig(**dict(options.evidence))
    except ValidationError as error:
        parser.error(f"--evidence {one_line(error)}")
    console = Console(width=max(Console().width, 150))
    if options.pass_rates:
        write_pass_rates(options, console)
        return
    if not options.skip_simulation:
        data = read_data(options, console)
        if data is None:
            raise SystemExit(2)
        side_gates = options.gates or (20 if options.quick else 4000)
        races_n = options.races if options.races is not None else (10 if options.quick else 300)
        side_by_side(argparse.Namespace(**{**vars(options), "gates": side_gates, "races": races_n}), data, console)
    options.gates = options.gates or 10000
    if options.curriculum_world:
        simulate(options, console)
    if options.embedded:
        embedded(options, console)


if __name__ == "__main__":
    main()
