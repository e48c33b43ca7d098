"""The evidence engine: gates one candidate, or races several of one parent, against the parent's pool, look by look.

Each look the task choice (choice.py) picks up to `batch` tasks from the candidates' plans (scope.py); each task's
next trial in the pool's fixed order (pool.py) is the key. The parent runs the keys its pool lacks, each candidate
still running runs the keys of its plan, and the sequential test (sequential.py) judges each candidate on its pairs.

The budget counts the candidates' rollouts: the parent's fresh ones come on top (at most one per key) and stay in its
pool for the gates of its next children. Counting them would make how long a gate runs depend on which keys the pool
happened to hold; this way every choice and every stop depends only on the guide and on the pairs already made.

A race shares its keys, so the parent's side of a key is paid once for all; it drops a candidate as soon as another
beats it on the keys both ran (their own e-value of one against the other at `drop_alpha`), gives the rollouts left to
the survivors, and accepts at most one: the first to reach its bar, the one with the largest e-value when several do
at one look. Each candidate is tested at alpha / n (Bonferroni), so the chance that the race accepts any candidate
that changes nothing is at most alpha, whichever of them are inert.

When `measure` raises `Halt` (the run's budget ran out mid-look), the candidates still running stop as `interrupted`
and the engine raises `Interrupted` with the decision so far: each candidate's evidence up to its last whole look.

With `cost_alpha` above 0 and a `cost` to read what each side's rollout at a key cost, a candidate may also be accepted
as cheaper (sequential.py); a race prefers a candidate accepted on passes.
"""

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from harness_evo import stats
from harness_evo.config import EvidenceConfig
from harness_evo.errors import ConfigError, HarnessError, UserError
from harness_evo.evolve.acceptance import Tally
from harness_evo.evolve.evidence.choice import Informative, TaskChoice
from harness_evo.evolve.evidence.pool import Key, ParentPool, Passes
from harness_evo.evolve.evidence.scope import Candidate, Plan, TrainTask, plan
from harness_evo.evolve.evidence.sequential import CostPair, SequentialTest
from harness_evo.evolve.evidence.verdict import Choice, Decision, GateVerdict, Spend, Stop
from harness_evo.stats import Pair

PARENT = "parent"
"""The parent's side in `measure` calls."""


@dataclass
class Measurement:
    """What `measure` returns: each side's rewards (1.0 a pass) at its keys, a key left out not scored (an
    infrastructure failure, not paired); and the sides whose harness failed at run time, with why."""

    rewards: dict[str, dict[Key, float]] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)


Measure = Callable[[Mapping[str, list[Key]]], Measurement]
"""`measure(keys)`: the rewards of each side (PARENT or a candidate's id) at its keys, running or fetching their
rollouts in one go, so that no side waits for another's slowest rollout; `Halt` when it cannot measure any more."""


class Halt(Exception):
    """What `measure` raises when it cannot go on (the run's budget ran out); its message says why."""


class Interrupted(Exception):
    """A decision `Halt` cut short: the verdicts so far, those still running stopped as `interrupted`."""

    def __init__(self, decision: "Decision", why: str):
        super().__init__(why)
        self.decision = decision


Cost = Callable[[str, Key], float | None]
"""`cost(side, key)`: what the rollout of `side` at `key` that `measure` returned cost, in tokens (None: unknown)."""

ACCEPTS = (Stop.ACCEPTED, Stop.CHEAPER)
"""The stops that accept a candidate."""


@dataclass
class Track:
    """One candidate's part in a decision."""

    candidate: Candidate
    plan: Plan
    rewards: dict[Key, float] = field(default_factory=dict)
    pairs: list[Pair] = field(default_factory=list)
    costs: list[CostPair] = field(default_factory=list)
    """(parent, child) tokens of the pairs whose costs are known."""
    rollouts: int = 0
    looks: int = 0
    verdict: GateVerdict | None = None


class Engine:
    """Gates and races candidates of one parent; see the module's docstring."""

    def __init__(self, config: EvidenceConfig, train: Sequence[TrainTask], choice: TaskChoice | None = None):
        self.config = config
        self.train = list(train)
        self.choice = choice or Informative(config.prior_strength)
        self.check(1)

    def check(self, candidates: int) -> None:
        """Refuse a configuration whose budget cannot reach its alpha even if every pair were fixed."""
        config, threshold = self.config, candidates / self.config.alpha
        need = stats.fewest_wins(threshold, tuple(config.alternatives))
        tested = f"alpha {config.alpha:g}" + (f" split over {candidates} candidates" if candidates > 1 else "")
        if need is None or need > config.max_rollouts:
            best = stats.mixture_e_value(config.max_rollouts, 0, config.alternatives)
            raise ConfigError(
                f"evidence.max_rollouts = {config.max_rollouts} cannot reach {tested}: even "
                f"{config.max_rollouts} pairs, all fixed, give e = {best:.3g} < {threshold:g}; set "
                f"evidence.max_rollouts to at least {need} or raise evidence.alpha"
            )
        keys = len(self.train) * config.max_trials
        if need > keys:
            best = stats.mixture_e_value(keys, 0, config.alternatives)
            raise ConfigError(
                f"evidence.max_trials = {config.max_trials} over {len(self.train)} train tasks allows "
                f"{keys} pairs, and even {keys} fixed pairs give e = {best:.3g} < {threshold:g} ({tested}); "
                f"set evidence.max_trials to at least {-(-need // max(1, len(self.train)))} or raise "
                "evidence.alpha"
            )

    def gate(
        self, pool: ParentPool, candidate: Candidate, measure: Measure, rng: random.Random, cost: Cost | None = None
    ) -> Decision:
        """One candidate against the parent, at `alpha`."""
        return self.decide(pool, [candidate], measure, rng, cost)

    def race(
        self,
        pool: ParentPool,
        candidates: Sequence[Candidate],
        measure: Measure,
        rng: random.Random,
        cost: Cost | None = None,
    ) -> Decision:
        """Two or more candidates of one parent on shared keys, each at alpha / n; at most one is accepted."""
        if len(candidates) < 2:
            raise UserError(
                f"a race needs two or more candidates of one parent, got {len(candidates)}: gate a single "
                "candidate with Engine.gate"
            )
        ids = [candidate.id for candidate in candidates]
        if len(set(ids)) < len(ids) or PARENT in ids:
            raise UserError(f"race candidates need distinct ids other than {PARENT!r}, got {', '.join(ids)}")
        self.check(len(candidates))
        return self.decide(pool, candidates, measure, rng, cost)

    def decide(
        self,
        pool: ParentPool,
        candidates: Sequence[Candidate],
        measure: Measure,
        rng: random.Random,
        cost: Cost | None = None,
    ) -> Decision:
        """Gate or race `candidates` (unchecked: `gate` and `race` check them); without `cost`, passes alone decide."""
        guide = pool.guide()
        tracks = [Track(candidate, plan(candidate, self.train, guide, self.config, rng)) for candidate in candidates]
        cost_alpha = self.config.cost_alpha / len(candidates) if cost is not None else 0.0
        test = SequentialTest(self.config, self.config.alpha / len(candidates), cost_alpha)
        return Race(self.config, test, self.choice, pool, measure, rng, tracks, cost).run(guide)


@dataclass
class Race:
    """One decision's state: the candidates' tracks, the keys taken, what was seen and spent."""

    config: EvidenceConfig
    test: SequentialTest
    choice: TaskChoice
    pool: ParentPool
    measure: Measure
    rng: random.Random
    tracks: list[Track]
    cost: Cost | None = None
    choices: list[Choice] = field(default_factory=list)
    taken: Counter[str] = field(default_factory=Counter)
    """Keys taken per task (paired or lost)."""
    trials: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    """Trials taken per task."""

    def __post_init__(self) -> None:
        self.budget = self.config.max_rollouts * len(self.tracks)
        self.spend = Spend(children={track.candidate.id: 0 for track in self.tracks})

    @property
    def running(self) -> list[Track]:
        return [track for track in self.tracks if track.verdict is None]

    def run(self, guide: dict[str, Passes]) -> Decision:
        seen = {task: passes.model_copy() for task, passes in guide.items()}
        for track in self.tracks:
            if not set(track.plan.tasks) - track.plan.protected:
                self.stop(
                    track,
                    Stop.SPENT,
                    "nothing to test it on: none of the tasks it is for is a train task left to measure",
                )
        look = 0
        try:
            while self.running:
                look += 1
                keys = self.next_keys(look, seen)
                if not keys:
                    break
                self.measure_look(keys, seen)
                self.judge()
                self.drop_outraced()
        except Halt as halt:
            for track in self.running:
                self.undecided(track, Stop.INTERRUPTED, f"the run stopped ({halt})")
            raise Interrupted(self.decision(), str(halt)) from halt
        return self.decision()

    def decision(self) -> Decision:
        return Decision(verdicts=[track.verdict for track in self.tracks], choices=self.choices, spend=self.spend)

    @property
    def left(self) -> int:
        """The candidates' rollouts the budget still allows."""
        return self.budget - sum(self.spend.children.values())

    def next_keys(self, look: int, seen: Mapping[str, Passes]) -> list[Key]:
        """The look's keys, within the budget were every running candidate to run every key; none when the budget or
        the plans' trials are spent, after stopping the candidates still running."""
        running = self.running
        n = min(self.config.batch, self.left // len(running))
        picks = self.choice.choose([track.plan for track in running], seen, self.taken, n, self.rng) if n > 0 else []
        if not picks:
            why = "the budget is spent" if n <= 0 else "every task of its plan has its trials"
            for track in running:
                self.undecided(track, Stop.SPENT, why)
            return []
        keys = []
        for task, reason in picks:
            key = self.pool.next_key(task, self.trials[task])
            self.trials[task].append(key[1])
            self.taken[task] += 1
            self.choices.append(Choice(task=task, trial=key[1], look=look, reason=reason))
            keys.append(key)
        return keys

    def measure_look(self, keys: list[Key], seen: dict[str, Passes]) -> None:
        """Run the parent's lacking keys and each running candidate's keys, pair them, and add what was revealed to
        `seen` (each key's parent reward once)."""
        lacking = self.pool.lacking(keys)
        if lacking:  # first, so that a child's requests the parent's rollout made are answered by the response cache
            parent = self.measure({PARENT: lacking})
            if PARENT in parent.broken:
                raise HarnessError(f"the parent harness fails at run time: {parent.broken[PARENT]}")
            got = parent.rewards.get(PARENT, {})
            self.pool.add({key: got[key] for key in lacking if key in got})
            self.spend.parent += len(lacking)
        running = self.running
        for key in keys:
            if key in self.pool.rewards:
                seen.setdefault(key[0], Passes()).add(self.pool.rewards[key])
        requests = {
            track.candidate.id: mine
            for track in running
            if (mine := [key for key in keys if key[0] in track.plan.tasks])
        }
        children = self.measure(requests) if requests else Measurement()
        for track in running:
            mine = requests.get(track.candidate.id)
            if not mine:
                continue
            track.looks += 1
            track.rollouts += len(mine)
            self.spend.children[track.candidate.id] += len(mine)
            if track.candidate.id in children.broken:
                why = children.broken[track.candidate.id]
                self.stop(track, Stop.BROKEN, f"the edited harness fails at run time: {why}")
                continue
            got = children.rewards.get(track.candidate.id, {})
            for key in mine:
                if key in got and key in self.pool.rewards:
                    track.rewards[key] = got[key]
                    track.pairs.append(Pair(task_id=key[0], trial=key[1], a=self.pool.rewards[key], b=got[key]))
                    seen.setdefault(key[0], Passes()).add(got[key])
                    self.add_cost(track, key)

    def add_cost(self, track: Track, key: Key) -> None:
        """The pair's costs, when both sides' are known."""
        if self.cost is None:
            return
        parent, child = self.cost(PARENT, key), self.cost(track.candidate.id, key)
        if parent is not None and child is not None:
            track.costs.append((parent, child))

    def judge(self) -> None:
        """Stop each running candidate its pairs call for; of those that reach their bar, accept the strongest (one
        accepted on passes before one accepted as cheaper, the larger e-value first); the others are outraced."""
        running = self.running
        judged = {
            id(track): self.test.judge(
                track.pairs, track.plan.protected, self.pairs_left(track, len(running)), track.costs
            )
            for track in running
        }
        winners = [track for track in running if judged[id(track)] and judged[id(track)][0] in ACCEPTS]

        def rank(track: Track) -> tuple[bool, float, float]:
            return judged[id(track)][0] is Stop.ACCEPTED, self.e_value(track), self.cost_e(track)

        best = max(winners, key=rank, default=None)
        for track in running:
            if best is not None and track is not best:
                self.stop(
                    track,
                    Stop.OUTRACED,
                    f"candidate {best.candidate.id} reached its bar first: {self.tested(track)}, "
                    f"e = {self.e_value(track):.3g}",
                )
            elif judged[id(track)] is not None:
                self.stop(track, *judged[id(track)])

    def drop_outraced(self) -> None:
        """Drop each running candidate another one beats on the keys both ran, at `drop_alpha`."""
        running = self.running
        bar = 1 / self.config.drop_alpha
        for track in running:
            for other in running:
                shared = track.rewards.keys() & other.rewards.keys()
                if other is track or other.verdict is not None or not shared:
                    continue
                wins = sum(other.rewards[key] > track.rewards[key] for key in shared)
                losses = sum(other.rewards[key] < track.rewards[key] for key in shared)
                e = stats.mixture_e_value(wins, losses, self.config.alternatives)
                if e >= bar:
                    self.stop(
                        track,
                        Stop.OUTRACED,
                        f"outraced by candidate {other.candidate.id}: on {len(shared)} shared keys "
                        f"it won {wins} and lost {losses} against it (e = {e:.3g} >= {bar:g})",
                    )
                    break

    def pairs_left(self, track: Track, running: int) -> float:
        """The tested pairs the track may still make: its plan's trials left, and its share of the rollouts left."""
        keys = sum(
            max(0, cap - self.taken[task]) for task, cap in track.plan.cap.items() if task not in track.plan.protected
        )
        return min(keys, self.left / max(1, running))

    def tested(self, track: Track) -> Tally:
        return self.test.evidence(track.pairs, track.plan.protected)[0]

    def e_value(self, track: Track) -> float:
        return self.test.evidence(track.pairs, track.plan.protected)[1]

    def cost_e(self, track: Track) -> float:
        return self.test.cheaper(track.costs)[2]

    def undecided(self, track: Track, stop: Stop, when: str) -> None:
        """Stop a track before its evidence was decisive, saying what it had."""
        self.stop(track, stop, f"undecided when {when}: {self.tested(track)}, e = {self.e_value(track):.3g}")

    def stop(self, track: Track, stop: Stop, reason: str) -> None:
        tally, e, harm = self.test.evidence(track.pairs, track.plan.protected)
        cheaper, dearer, cost_e = self.test.cheaper(track.costs)
        track.verdict = GateVerdict(
            candidate=track.candidate.id,
            accepted=stop in ACCEPTS,
            stop=stop,
            reason=reason,
            fixed=tally.fixed,
            broken=tally.broken,
            ties=tally.ties,
            looks=track.looks,
            e_value=e,
            threshold=self.test.threshold,
            harm_e_value=harm,
            rollouts=track.rollouts,
            tasks=sorted({pair.task_id for pair in track.pairs}),
            cheaper=cheaper,
            dearer=dearer,
            cost_e_value=cost_e,
            cost_threshold=self.test.cost_threshold,
        )
