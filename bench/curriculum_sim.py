"""Compare curricula and acceptance rules on a synthetic world at equal rollout budgets (a benchmark, not a test).

The world: train, dev and test tasks in categories. Each task has a base success rate (a quarter of the tasks are
beyond the model whatever the harness) and may suffer from latent harness defects, each concentrated in one category;
an unfixed defect makes a rollout of a task it affects fail with its severity. Outcomes are noisy: a rollout shares
the random numbers of its (task, trial) key with other harness versions only half of the time, as an LLM agent whose
prompt changed only partly replays its earlier episode.

The analyzer blames a failure on one of the defects that struck it (and misses some); failures that are only the
model's limits are sometimes blamed on a *phantom* pattern that no edit can fix. A pattern seen on two distinct train
tasks is promoted, with a noisy phi (severity, fixability, breadth, side-effect risk) that cannot tell phantoms apart.
A proposal against a pattern is a general fix with the defect's fixability (it cuts the defect's severity on every
task), otherwise a task-specific accommodation (one member task mostly stops failing, nothing else changes) or a dud;
any proposal may carry a side effect (a new failure mode on one category) with the pattern's side-effect risk.
Each iteration runs parent and child on the arm's minibatch plus a regression sample of train tasks the parent
passed, on fresh identical (task, trial) keys, and the gate decides; an accepted child is scored on the dev split
(one trial per task, paid from the budget too). The result of a run is the node with the best dev score; its
held-out pass rate is its true (expected) pass rate on the test split, which nothing in the run ever saw.

Rows: the three curricula, and `oracle`, a reference that knows the world and always works on the active pattern
with the most to gain (true fixability x remaining severity x tasks affected x (1 - side-effect risk)).

    python bench/curriculum_sim.py [--seeds 120] [--budget 800] [--workers 2]
"""

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from statistics import fmean, pstdev

from rich.console import Console
from rich.table import Table

from harness_evo.config import AcceptanceConfig, CurriculumConfig
from harness_evo.curriculum import EXPLORE, Arm, PatternView, Pull, make_curriculum
from harness_evo.curriculum.base import ArmCurriculum
from harness_evo.evolve.acceptance import SignTest, StrictSum, make_rule
from harness_evo.stats import Pair

CATEGORIES = 8
TRAIN, DEV, TEST = 60, 25, 25
DEFECTS, PHANTOMS = 8, 2
SEVERITY, FIXABILITY = (0.3, 0.8), (0.05, 0.6)
"""Ranges of a real defect's severity (its chance to fail a task it affects) and fixability."""
BEYOND_MODEL = 0.25
"""Share of tasks the model fails on its own most of the time, whatever the harness."""
REPLAY = 0.5
"""Chance that a rollout replays the random numbers of its (task, trial) key from other harness versions."""
MISSED = 0.15
"""Chance the analyzer blames a defect's failure on nothing."""
PHANTOM_BLAME = 0.5
"""Chance that a model-limit failure in a phantom's scope is blamed on the phantom pattern."""
ACCOMMODATION = 0.3
"""Factor on every failure chance of the one task an accommodation targets."""
RESOLVED = 0.08
"""A defect whose severity fell below this no longer produces failures worth a pattern."""
TRIALS, MINIBATCH, REGRESSION = 3, 4, 4
MODEL, SIDE_EFFECT = -1, 1000
"""Cause ids besides the defects' own indices: the model's limit, and side effects from SIDE_EFFECT on."""
KINDS = ("general", "accommodation", "dud", "harmful")
"""What a proposal really is; `harmful` is a dud with a side effect."""


@dataclass(frozen=True)
class Defect:
    tasks: frozenset[int]
    severity: float
    """Chance it makes a rollout of a task it affects fail (0 for a phantom: it only collects blame)."""
    fixability: float
    """Chance a proposal against it is a general fix."""
    side_effect_risk: float
    phi: PatternView
    """The analyzer's scores of its pattern."""

    @property
    def phantom(self) -> bool:
        return self.severity == 0


@dataclass(frozen=True)
class World:
    seed: int
    category: tuple[int, ...]
    base: tuple[float, ...]
    """Chance the model succeeds on the task with a perfect harness."""
    defects: tuple[Defect, ...]
    """Real defects first, then phantoms."""

    train = range(TRAIN)
    dev = range(TRAIN, TRAIN + DEV)
    test = range(TRAIN + DEV, TRAIN + DEV + TEST)


def make_world(seed: int) -> World:
    rng = random.Random(seed)
    clip = lambda x: min(1.0, max(0.0, x))  # noqa: E731
    category = tuple(rng.randrange(CATEGORIES) for _ in range(TRAIN + DEV + TEST))
    base = tuple(rng.uniform(0.02, 0.2) if rng.random() < BEYOND_MODEL else rng.uniform(0.65, 0.98) for _ in category)
    defects = []
    for index in range(DEFECTS + PHANTOMS):
        home = rng.randrange(CATEGORIES)
        if index < DEFECTS:
            tasks = frozenset(t for t, c in enumerate(category) if rng.random() < (0.7 if c == home else 0.04))
            severity, fixability = rng.uniform(*SEVERITY), rng.uniform(*FIXABILITY)
            seen_severity, seen_fixability = clip(severity + rng.gauss(0, 0.15)), clip(fixability + rng.gauss(0, 0.2))
        else:
            tasks = frozenset(t for t, c in enumerate(category) if c == home and base[t] < 0.5)
            severity, fixability = 0.0, 0.0
            seen_severity, seen_fixability = rng.uniform(0.3, 0.8), rng.uniform(0.2, 0.6)
        risk = rng.uniform(0.0, 0.4)
        phi = PatternView(
            id=str(index),
            status="candidate",
            tasks=[],
            severity=seen_severity,
            fixability=seen_fixability,
            breadth=clip(len(tasks & set(World.train)) / 12 + rng.gauss(0, 0.1)),
            side_effect_risk=clip(risk + rng.gauss(0, 0.1)),
        )
        defects.append(Defect(tasks, severity, fixability, risk, phi))
    return World(seed, category, base, tuple(defects))


@dataclass(frozen=True)
class Harness:
    version: int
    severity: tuple[float, ...]
    """Remaining severity of each defect."""
    accommodated: frozenset[int] = frozenset()
    side_effects: tuple[tuple[frozenset[int], float], ...] = ()

    def failure_chances(self, world: World, task: int) -> list[tuple[int, float]]:
        """Each way a rollout of `task` can fail (a cause id) with its chance."""
        causes = [(MODEL, 1 - world.base[task])]
        causes += [(d, s) for d, s in enumerate(self.severity) if s > 0 and task in world.defects[d].tasks]
        causes += [(SIDE_EFFECT + i, chance) for i, (tasks, chance) in enumerate(self.side_effects) if task in tasks]
        factor = ACCOMMODATION if task in self.accommodated else 1.0
        return [(cause, chance * factor) for cause, chance in causes]

    def pass_rate(self, world: World, task: int) -> float:
        rate = 1.0
        for _, chance in self.failure_chances(world, task):
            rate *= 1 - chance
        return rate

    def teaches(self, world: World, task: int) -> bool:
        """A rollout of the task can still teach something: an unresolved real defect strikes it."""
        return any(s >= RESOLVED and task in world.defects[d].tasks for d, s in enumerate(self.severity))


@dataclass
class Outcome:
    passed: bool
    blamed: int | None
    """The pattern (defect index) the analyzer blames the failure on."""


class BudgetExhausted(Exception):
    """The next rollout would exceed the budget."""


@dataclass
class Run:
    """One evolution run: the incumbent harness, its rollouts, the patterns found, what was accepted."""

    world: World
    budget: int
    rng: random.Random
    incumbent: Harness
    members: dict[int, set[int]] = field(default_factory=dict)
    clean: dict[tuple[int, int], bool] = field(default_factory=dict)
    """(harness version, task) -> every rollout of it passed."""
    versions: int = 0
    trials_used: int = 0
    paid: int = 0
    teaching: int = 0
    accepted: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    nodes: list[tuple[float, int, Harness]] = field(default_factory=list)
    """Scored nodes: (dev score, -order, harness)."""
    noise: random.Random = field(default_factory=random.Random)
    """The outcomes' randomness, apart from the decisions' `rng`."""
    replayed: dict[tuple[int, int, int], float] = field(default_factory=dict)
    """(task, trial, cause) -> the random number every harness version draws when it replays that key."""
    teaches: dict[tuple[int, int], bool] = field(default_factory=dict)
    """(harness version, task) -> a rollout of it can still teach something."""

    def rollout(self, harness: Harness, task: int, trial: int) -> Outcome:
        """Pay for one rollout: which failure causes strike, and what the analyzer blames."""
        if self.paid >= self.budget:
            raise BudgetExhausted
        self.paid += 1
        if (harness.version, task) not in self.teaches:
            self.teaches[harness.version, task] = harness.teaches(self.world, task)
        self.teaching += self.teaches[harness.version, task]
        noise = self.noise
        replays = noise.random() < REPLAY
        struck = []
        for cause, chance in harness.failure_chances(self.world, task):
            if replays and (task, trial, cause) not in self.replayed:
                self.replayed[task, trial, cause] = noise.random()
            if (self.replayed[task, trial, cause] if replays else noise.random()) < chance:
                struck.append(cause)
        if not struck:
            return Outcome(True, None)
        defects = [cause for cause in struck if 0 <= cause < SIDE_EFFECT]
        if defects:
            return Outcome(False, noise.choice(defects) if noise.random() > MISSED else None)
        phantoms = [d for d in range(DEFECTS, DEFECTS + PHANTOMS) if task in self.world.defects[d].tasks]
        return Outcome(False, phantoms[0] if MODEL in struck and phantoms and noise.random() < PHANTOM_BLAME else None)

    def results(self, harness: Harness, tasks: list[int], trials: range) -> dict[tuple[int, int], Outcome]:
        """Outcomes by (task, trial); the incumbent's failures are analyzed into patterns."""
        results = {(task, trial): self.rollout(harness, task, trial) for task in tasks for trial in trials}
        for (task, _), outcome in results.items():
            self.clean[harness.version, task] = self.clean.get((harness.version, task), True) and outcome.passed
            if harness is self.incumbent and outcome.blamed is not None and task in self.world.train:
                self.members.setdefault(outcome.blamed, set()).add(task)
        return results

    def fresh_trials(self, n: int = TRIALS) -> range:
        """Trial keys never run before. The gate must not pair on the rollouts that chose its tasks: members were
        chosen for failing and the regression sample for passing, so reusing those results would favour the child
        (or the parent) by regression to the mean."""
        self.trials_used += n
        return range(self.trials_used - n, self.trials_used)

    def score_dev(self, harness: Harness) -> None:
        """An accepted node is scored on the dev split, one trial per task (DESIGN step 7);
        its failures are not analyzed."""
        results = self.results(harness, list(self.world.dev), self.fresh_trials(1))
        self.nodes.append((fmean(outcome.passed for outcome in results.values()), -len(self.nodes), harness))

    @property
    def best(self) -> Harness:
        """The node with the best dev score (the earliest on ties)."""
        return max(self.nodes, key=lambda node: node[:2])[2]

    def patterns(self) -> list[PatternView]:
        views = []
        for d, tasks in sorted(self.members.items()):
            resolved = self.incumbent.severity[d] < RESOLVED and not self.world.defects[d].phantom
            status = "resolved" if resolved else "promoted" if len(tasks) >= 2 else "candidate"
            views.append(
                self.world.defects[d].phi.model_copy(
                    update={"status": status, "tasks": [str(t) for t in sorted(tasks)]}
                )
            )
        return views

    def propose(self, pattern: int, evidence: list[int], kind: str | None = None) -> tuple[str, Harness]:
        """A child of the incumbent from a proposal against `pattern`; `kind` forces what it really is."""
        defect, rng = self.world.defects[pattern], self.rng
        if kind is None:
            kind = (
                "general"
                if rng.random() < defect.fixability
                else "accommodation"
                if evidence and rng.random() < 0.5
                else "dud"
            )
            kind = "harmful" if kind == "dud" and rng.random() < defect.side_effect_risk else kind
        self.versions += 1
        child = replace(self.incumbent, version=self.versions)
        if kind == "general":
            severity = list(child.severity)
            severity[pattern] *= rng.uniform(0.1, 0.5)
            child = replace(child, severity=tuple(severity))
        if kind == "accommodation":
            child = replace(child, accommodated=child.accommodated | {rng.choice(evidence)})
        if kind == "harmful" or (kind != "dud" and rng.random() < defect.side_effect_risk):
            home = rng.randrange(CATEGORIES)
            tasks = frozenset(t for t, c in enumerate(self.world.category) if c == home)
            child = replace(child, side_effects=child.side_effects + ((tasks, rng.uniform(0.15, 0.4)),))
        return kind, child

    def paired(self, child: Harness, batch: list[int]) -> tuple[list[Pair], set[str]]:
        """Parent and child on the minibatch plus a regression sample of tasks the parent passed, on fresh keys."""
        passing = sorted(t for t in self.world.train if self.clean.get((self.incumbent.version, t)) and t not in batch)
        regression = self.rng.sample(passing, min(REGRESSION, len(passing)))
        tasks, trials = batch + regression, self.fresh_trials()
        parent, children = self.results(self.incumbent, tasks, trials), self.results(child, tasks, trials)
        pairs = [
            Pair(str(task), trial, a=float(outcome.passed), b=float(children[task, trial].passed))
            for (task, trial), outcome in parent.items()
        ]
        return pairs, {str(task) for task in regression}


class OracleCurriculum(ArmCurriculum):
    """Knows the world: always the active pattern with the most to gain; explore only when there is none."""

    def __init__(self, run: Run, *args):
        super().__init__(*args)
        self.run = run

    def probabilities(self) -> dict[str, float]:
        best = max(self.active, key=self.gain)
        return {arm.id: float(arm is best) for arm in self.active}

    def gain(self, arm: Arm) -> float:
        if arm.id == EXPLORE:
            return 0.0
        defect, remaining = self.run.world.defects[int(arm.id)], self.run.incumbent.severity[int(arm.id)]
        return defect.fixability * remaining * len(defect.tasks) * (1 - defect.side_effect_risk)


def evolve(world: World, strategy: str, rule: str, budget: int) -> dict[str, float]:
    """One run on `world` until the budget is spent; what it achieved."""
    rng = random.Random(world.seed * 7919 + 1)
    run = Run(
        world,
        budget,
        rng,
        Harness(0, tuple(d.severity for d in world.defects)),
        noise=random.Random(world.seed * 31 + 7),
    )
    by_category = {c: [str(t) for t in world.train if world.category[t] == c] for c in range(CATEGORIES)}
    config = CurriculumConfig(strategy="random" if strategy == "oracle" else strategy, minibatch=MINIBATCH)
    arguments = (config, [str(t) for t in world.train], lambda task_id: by_category[world.category[int(task_id)]])
    curriculum = OracleCurriculum(run, *arguments) if strategy == "oracle" else make_curriculum(*arguments)
    gate = make_rule(AcceptanceConfig(rule=rule))
    try:
        run.score_dev(run.incumbent)
        while True:
            curriculum.sync_arms(run.patterns())
            arm = curriculum.choose(rng)
            batch = [int(t) for t in curriculum.minibatch(arm, rng)]
            if arm.id == EXPLORE:
                found = run.results(run.incumbent, batch, run.fresh_trials())
                promoted = {int(p.id) for p in run.patterns() if p.status == "promoted"}
                share = len({task for (task, _), o in found.items() if o.blamed in promoted}) / len(batch)
                curriculum.reward(Pull(arm=EXPLORE, found=share))
                continue
            kind, child = run.propose(int(arm.id), [t for t in batch if t in run.members[int(arm.id)]])
            pairs, protected = run.paired(child, batch)
            verdict = gate.decide(pairs, protected)
            curriculum.reward(
                Pull(arm=arm.id, pattern=arm.id, **verdict.model_dump(include={"accepted", "fixed", "broken", "ties"}))
            )
            if verdict.accepted:
                run.incumbent = child
                run.accepted[kind] += 1
                run.score_dev(child)
    except BudgetExhausted:
        pass
    return {
        "teaching": run.teaching / run.paid,
        "general": run.accepted["general"],
        "accommodation": run.accepted["accommodation"],
        "other": run.accepted["dud"] + run.accepted["harmful"],
        "test": fmean(run.best.pass_rate(world, t) for t in world.test),
    }


STRATEGIES = ("learning-progress", "fixed", "random", "oracle")
RULES = ("sign-test", "strict-sum")
GATES = {
    "strict-sum": StrictSum(),
    **{f"sign-test a={alpha:g}": SignTest(alpha) for alpha in (0.05, 0.1, 0.2, 0.3, 0.5)},
}


def gate_candidates(world: World) -> dict[tuple[str, str], list[bool]]:
    """Every gate judges the same candidates of each kind against each pattern of the starting harness."""
    run = Run(
        world,
        10**9,
        random.Random(world.seed),
        Harness(0, tuple(d.severity for d in world.defects)),
        noise=random.Random(world.seed + 1),
    )
    run.results(run.incumbent, list(world.train), run.fresh_trials())
    curriculum = make_curriculum(
        CurriculumConfig(strategy="random", minibatch=MINIBATCH), [str(t) for t in world.train]
    )
    curriculum.sync_arms(run.patterns())
    verdicts: dict[tuple[str, str], list[bool]] = {}
    for arm in curriculum.active:
        if arm.id == EXPLORE:
            continue
        for kind in KINDS:
            if kind == "general" and world.defects[int(arm.id)].phantom:
                continue
            batch = [int(t) for t in curriculum.minibatch(arm, run.rng)]
            _, child = run.propose(int(arm.id), [t for t in batch if t in run.members[int(arm.id)]] or batch, kind)
            pairs, protected = run.paired(child, batch)
            for name, gate in GATES.items():
                verdicts.setdefault((name, kind), []).append(gate.decide(pairs, protected).accepted)
    return verdicts


def one_world(args: tuple[int, int]) -> dict:
    seed, budget = args
    world = make_world(seed)
    start = Harness(0, tuple(d.severity for d in world.defects))
    return {
        "runs": {(s, r): evolve(world, s, r, budget) for s in STRATEGIES for r in RULES},
        "start": fmean(start.pass_rate(world, t) for t in world.test),
        "gates": gate_candidates(world),
    }


def mean_sd(values: list[float], scale: float = 1.0) -> str:
    return f"{fmean(values) * scale:.1f} ± {pstdev(values) * scale:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=120, help="worlds")
    parser.add_argument("--budget", type=int, default=800, help="rollouts per run")
    parser.add_argument("--workers", type=int, default=2)
    options = parser.parse_args()
    started = time.perf_counter()
    with ProcessPoolExecutor(options.workers) as pool:
        worlds = list(pool.map(one_world, [(seed, options.budget) for seed in range(options.seeds)], chunksize=2))

    runs = Table(
        title=f"Evolution runs: {options.seeds} worlds, {options.budget} rollouts each, mean ± sd over worlds",
        caption=f"held-out (test) pass rate of the starting harness: {mean_sd([w['start'] for w in worlds], 100)} %; "
        "Δ vs random: paired difference in held-out pass points, mean ± standard error",
    )
    for column in (
        "curriculum",
        "gate",
        "budget on teaching tasks %",
        "general fixes accepted",
        "accommodations accepted",
        "duds/harmful accepted",
        "held-out pass %",
        "Δ vs random",
    ):
        runs.add_column(column, justify="left" if column in ("curriculum", "gate") else "right")
    for strategy in STRATEGIES:
        for rule in RULES:
            results = [w["runs"][strategy, rule] for w in worlds]
            deltas = [(w["runs"][strategy, rule]["test"] - w["runs"]["random", rule]["test"]) * 100 for w in worlds]
            runs.add_row(
                strategy,
                rule,
                mean_sd([r["teaching"] for r in results], 100),
                *(mean_sd([r[key] for r in results]) for key in ("general", "accommodation", "other")),
                mean_sd([r["test"] for r in results], 100),
                f"{fmean(deltas):+.1f} ± {pstdev(deltas) / len(deltas) ** 0.5:.1f}",
            )

    gates = Table(
        title="The gates on identical candidates (each pattern of the starting harness, one of each kind): % accepted",
        caption="general fixes accepted are true positives; the other kinds are false improvements",
    )
    gates.add_column("gate")
    for kind in KINDS:
        gates.add_column(kind, justify="right")
    for name in GATES:
        shares = {kind: [v for w in worlds for v in w["gates"].get((name, kind), [])] for kind in KINDS}
        gates.add_row(
            name,
            *(
                f"{100 * fmean(shares[kind]):.0f} (n={len(shares[kind])})" if shares[kind] else "- (n=0)"
                for kind in KINDS
            ),
        )

    console = Console(width=max(Console().width, 150))
    console.print(runs)
    console.print(gates)
    console.print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
