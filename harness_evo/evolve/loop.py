"""The evolution loop, one iteration at a time (DESIGN.md, "One evolution iteration"):

1. the curriculum picks an arm and its minibatch of train tasks;
2. the search tree picks the node (harness version) to expand;
3. the executor runs the minibatch on it (cached by key: nothing is paid twice);
4. failed rollouts are analyzed and aggregated into patterns;
5. the proposer proposes edits against the targeted pattern;
6. the critic reviews them statically (sending them back a bounded number of times), survivors face the gate;
7. an accepted child becomes a node, is scored on dev, and the arm gets its reward;
8. every step is an event; the iteration ends with a checkpoint that `resume` restarts from.
"""

import random
import threading
import time

from harness_evo import stats
from harness_evo.agent.executor import Executor
from harness_evo.config import RunConfig
from harness_evo.curriculum import Pull, make_curriculum, similar_by_metadata
from harness_evo.errors import HarnessError
from harness_evo.evolve import events as ev
from harness_evo.evolve import pace
from harness_evo.evolve.acceptance import Verdict, make_gate, pair_rollouts
from harness_evo.evolve.budget import Budget, BudgetExhausted, estimate, time_spent
from harness_evo.evolve.conditioning import ConditioningCheck, conditioning_summary
from harness_evo.evolve.critic import Critic
from harness_evo.evolve.gate import Gating, make_gate_plan
from harness_evo.evolve.ledger import Candidate, Ledger
from harness_evo.evolve.moves import Harvest, KnobMove, MoveKind, move_chooser
from harness_evo.evolve.patterns import Patterns
from harness_evo.evolve.proposer import Proposer
from harness_evo.evolve.state import LoopState, NodeStats
from harness_evo.evolve.target import Target
from harness_evo.evolve.tree import BestNode, SearchTree, confirmed_best, node_selector
from harness_evo.failures.conditioning import node_gauge
from harness_evo.harness import Harness
from harness_evo.sandbox import SandboxBackend
from harness_evo.standins import SandboxTryout
from harness_evo.store import Edit, EditStatus, NodeStatus, Rollout, RunStatus, RunStore
from harness_evo.taskset import Suite, Task


class Evolution:
    """One evolution run in `store`, started from `harness`; `run()` starts it or continues it from its last checkpoint."""

    def __init__(self, store: RunStore, config: RunConfig, suite: Suite, harness: Harness, llm, backend: SandboxBackend,
                 callbacks: list[ev.Callback] = ()):
        self.store, self.config, self.suite, self.llm, self.backend = store, config, suite, llm, backend
        self.callbacks = list(callbacks)
        self.executor = Executor(store, backend, suite, llm, workers=config.rollout_workers(), agent=config.agent, cluster=config.executor,
                                 on_progress=lambda kind, row: self.emit(ev.RolloutProgress(kind, row)))
        self.train = suite.split("train")
        self.dev = dev_tasks(suite, config)
        self.patterns = Patterns(store, llm, config, suite)
        self.proposer = Proposer(llm, config.search, SandboxTryout(backend, suite.tasks))
        self.critic = Critic(config.search, self.train, backend, llm if config.reviews_edits() else None)
        self.gate = make_gate(config.acceptance)
        self.gate_plan = make_gate_plan(config.acceptance, self.train)
        self.ledger = Ledger(store, self.emit)
        self.categories = {task.id: task.category for task in suite.tasks.values()}
        self.conditioning = ConditioningCheck(config.acceptance, store, self.categories)
        self.selector = node_selector(config.search)
        self.moves, self.harvest, self.knob = move_chooser(config.search.move_policy), Harvest(self), KnobMove(self)
        self.harnesses = {harness.hash: harness}
        self.state = LoopState.last(store) or LoopState()
        self.curriculum = make_curriculum(config.curriculum, [task.id for task in self.train],
                                          similar_by_metadata(self.train), self.state.curriculum)
        self.budget = Budget(config, store, time_spent(store, self.state.elapsed_s))
        self.root = harness.hash

    def emit(self, event: ev.Event) -> None:
        for callback in self.callbacks:
            callback(event)

    def run(self) -> dict:
        rollouts_before, calls_before = self.budget.rollouts(), self.budget.model_calls()
        forecast = estimate(self.config, len(self.dev), self.harness(self.root).agent.step_limit, rollouts_done=rollouts_before,
                            iterations_done=self.state.iteration, minutes_done=self.budget.elapsed_s / 60,
                            pace=pace.pace(self.config), n_train=len(self.train), spent=self.budget.spend())
        self.emit(ev.RunStarted(self.store.id, forecast))
        deadline = threading.Timer(self.budget.remaining_s, self.executor.interrupt)  # rollouts in flight stop at the wall-time limit
        deadline.daemon = True
        deadline.start()
        try:
            self.score_root()
            while True:
                self.budget.check_iteration(self.state.iteration, self.state.idle)
                accepted = self.iterate(self.state.iteration)
                self.state.idle = 0 if accepted else self.state.idle + 1
                self.state.iteration += 1
                self.state.elapsed_s = self.budget.elapsed_s
                self.state.curriculum = self.curriculum.state
                self.state.save(self.store)
        except BudgetExhausted as e:
            stop = str(e)
        finally:
            deadline.cancel()
            self.store.emit("clock", elapsed_s=self.budget.elapsed_s)
            pace.record(self.config, self.store.id, self.budget.rollouts() - rollouts_before, self.budget.session_s,
                        replayed_share=pace.replayed(calls_before, self.budget.model_calls()))
        summary = self.summary(stop)
        self.store.set_status(RunStatus.FINISHED, finished=time.time(), best_node=summary["best_node"], summary=summary)
        self.emit(ev.RunFinished(summary))
        return summary

    def iterate(self, i: int) -> bool:
        """One iteration; True when an edit was accepted."""
        rng = random.Random(f"{self.config.seed}:{i}")
        started = time.time()
        arm = self.curriculum.choose(rng)                                                    # 1
        tasks = self.curriculum.minibatch(arm, rng)
        self.store.emit("arm", self.curriculum.state.arms[arm.id].model_dump(mode="json"))
        tree = SearchTree(self.state.nodes.values())
        node = self.selector.select(tree)                                                    # 2
        self.state.put_node(self.store, node, expansions=self.state.nodes[node].expansions + 1)
        self.store.emit("iteration", id=i, arm=arm.id, node_id=node, tasks=tasks, started=started)
        self.emit(ev.IterationStarted(i, arm.id, node, tasks))
        rows = self.rollouts(node, tasks, [0])                                               # 3
        self.patterns.analyze(rows, node)                                                    # 4
        self.sync_arms()
        pattern = self.patterns.target(arm.id, rows, self.curriculum.probabilities())
        verdict, outcome = None, "no promoted failure pattern to work on yet"
        available = self.available_moves(node, pattern)
        move = self.moves.choose(available, self.store.records(Edit, order_by="rowid")) if available else None
        if move == "harvest":
            verdict, outcome = self.harvest.run(i, node, rng)                                 # 5: harvest, 6, 7
        elif move == "knob":
            verdict, outcome = self.knob.run(i, node, pattern, rng)                           # 5: a knob step, 6, 7
        elif move == "proposer":
            candidates = self.propose_and_review(i, node, pattern)                           # 5, 6
            outcome = f"no edit against pattern {pattern.id} passed the critic"
            for candidate in candidates:
                verdict, outcome = self.try_candidate(i, node, pattern, candidate, rng)     # 6, 7
                if verdict.accepted:
                    break
        gated = verdict.model_dump(include={"accepted", "fixed", "broken", "ties"}) if verdict is not None else {}
        self.curriculum.reward(Pull(arm=arm.id, pattern=pattern.id if pattern else None,                  # 7
                                    found=self.patterns.promoted_share(rows), **gated))
        self.measure(node)
        spend = self.budget.spend()
        self.store.emit("iteration", id=i, finished=time.time(), outcome=outcome, spend=spend)          # 8
        self.emit(ev.IterationFinished(i, outcome, spend))
        return verdict is not None and verdict.accepted

    def available_moves(self, node: str, pattern: Target | None) -> list[MoveKind]:
        """The moves of `search.moves` that have something to do on `node`: the proposer and a knob step need a targeted
        pattern (a knob step, one that addresses its category); harvesting, passed train rollouts not harvested yet. With
        none of them, a harvest still may remove examples that kept failing, or say it found nothing."""
        moves = self.config.search.moves
        available: list[MoveKind] = [move for move in moves if pattern is not None and (
            move == "proposer" or (move == "knob" and self.knob.step(node, pattern) is not None))
            or (move == "harvest" and self.harvest.harvestable(node))]
        return available or (["harvest"] if "harvest" in moves else [])

    def propose_and_review(self, i: int, node: str, pattern: Target) -> list[Candidate]:
        """Proposals that passed the static critic; rejected ones go back to the proposer with their reasons."""
        parent = self.harness(node)
        evidence = self.patterns.evidence(pattern.id, self.config.search.evidence)
        feedback: list[Edit] = []
        for revision in range(self.config.search.revisions + 1):
            self.budget.check()
            seed = self.config.seed * 10_000 + i * 10 + revision
            proposals = self.proposer.propose(pattern, evidence, parent, self.ledger.tried(pattern.id, before=i), feedback, seed)
            passed, feedback = [], []
            for k, proposal in enumerate(proposals):
                candidate = self.ledger.propose(i, revision, k, node, pattern.id, proposal)
                judgement = self.critic.judge(parent, proposal.edit, pattern, seed, self.known(node)) if proposal.edit else None
                candidate = self.ledger.judged(candidate, judgement)
                if candidate.status is EditStatus.PROPOSED:
                    passed.append(candidate)
                    self.harnesses[candidate.child.hash] = candidate.child
                else:
                    feedback.append(candidate.edit)
            if passed:
                return passed
        return []

    def known(self, node: str) -> dict[str, str]:
        """Harnesses an edit of `node` must not make again -> why: its children proposed so far, and the tree's nodes."""
        return self.ledger.children(node) | {hash: "already a node of the tree" for hash in self.state.nodes}

    def try_candidate(self, i: int, node: str, pattern: Target, candidate: Candidate, rng: random.Random) -> tuple[Verdict, str]:
        """The empirical gate: child vs parent on the (task, trial) keys the gate plan chooses."""
        child = candidate.child
        gating = self.gate_plan.plan(self.harness(node), child, pattern, self.train_outcomes([node]), self.train_outcomes(self.state.stats), rng)
        verdict, rows = self.look(node, child, gating, gating.trials)
        if (trials := self.gate_plan.second_look(verdict)) is not None:
            verdict, rows = self.look(node, child, gating, trials)
        drop = self.conditioning.compare(*rows)
        if verdict.accepted and drop is not None and drop.fell:  # the agent reads the task less: is there a gain on dev?
            self.score_dev(child.hash)
            verdict = self.conditioning.judge(verdict, drop, self.dev_difference(node, child.hash))
        self.ledger.gated(candidate, verdict, gating.tasks, drop)
        if not verdict.accepted:
            return verdict, f"edit {candidate.edit.id} rejected by the gate: {verdict.reason}"
        self.state.put_node(self.store, child.hash, parent_id=node, edit_id=candidate.edit.id, iteration=i, status=NodeStatus.ACCEPTED)
        self.score_dev(child.hash)
        self.emit_node(child.hash)
        return verdict, f"edit {candidate.edit.id} accepted: {verdict.reason}"

    def look(self, node: str, child: Harness, gating: Gating, trials: list[int]) -> tuple[Verdict, tuple[list[Rollout], list[Rollout]]]:
        """The gate's decision on child and parent rollouts over the gated tasks x `trials` (rollouts already run are not
        paid again), and those rollouts."""
        parent_rows = self.rollouts(node, gating.tasks, trials)
        try:
            child_rows = self.rollouts(child.hash, gating.tasks, trials, harness=child)
        except HarnessError as e:
            return Verdict(accepted=False, fixed=0, broken=0, ties=0, reason=f"the edited harness fails at run time: {e}"), (parent_rows, [])
        return self.gate.decide(pair_rollouts(parent_rows, child_rows), protected=gating.protected), (parent_rows, child_rows)

    def score_dev(self, node: str) -> None:
        """Score a harness on the dev tasks (once: its rollouts are cached by key)."""
        if not self.state.stats.get(node, NodeStats()).dev:
            self.rollouts(node, self.dev, list(range(self.config.search.dev_trials)), split="dev")

    def dev_difference(self, node: str, child: str) -> stats.Difference | None:
        """Child minus parent on the dev keys both scored (None when they share none)."""
        parent, other = self.state.stats[node].outcomes("dev"), self.state.stats[child].outcomes("dev")
        return stats.paired_on(parent, other) if parent.keys() & other.keys() else None

    def score_root(self) -> None:
        if self.root not in self.state.nodes:
            self.state.put_node(self.store, self.root, parent_id=None, iteration=-1, status=NodeStatus.ROOT)
            self.score_dev(self.root)
            self.emit_node(self.root)
            self.state.save(self.store)

    def rollouts(self, node: str, tasks, trials: list[int], harness: Harness | None = None, split: str = "train") -> list[Rollout]:
        """Run (or fetch from the cache) rollouts of a node and add them to its scores."""
        self.budget.check()
        tasks = [self.suite.tasks[task] if isinstance(task, str) else task for task in tasks]
        rows = self.executor.run(harness or self.harness(node), tasks, trials, node_id=node)
        if self.executor.stop.is_set():
            raise BudgetExhausted(f"wall time reached ({self.config.budget.max_wall_s / 60:.0f} min) with rollouts in flight")
        self.state.stats.setdefault(node, NodeStats()).add(rows, split)
        if node in self.state.nodes:
            self.state.put_node(self.store, node)
        return rows

    def train_outcomes(self, nodes) -> list[tuple[str, bool]]:
        """(task id, passed) of every scored train rollout of `nodes`, from the loop's state rather than the store, so a
        resumed iteration sees what the interrupted one saw."""
        return [(task, passed) for node in nodes if node in self.state.stats
                for (task, _), passed in self.state.stats[node].outcomes("train").items()]

    def harness(self, node: str) -> Harness:
        if node not in self.harnesses:
            self.harnesses[node] = Harness.load(self.store.folder / "harnesses" / node)
        return self.harnesses[node]

    def sync_arms(self) -> None:
        for arm in self.curriculum.sync_arms(self.patterns.views()):
            self.store.emit("arm", arm.model_dump(mode="json"))

    def best(self) -> BestNode:
        """The root, unless a node beats it on the dev keys both ran by the paired test (see `confirmed_best`)."""
        dev = {node: {key: float(passed) for key, passed in node_stats.outcomes("dev").items()}
               for node, node_stats in self.state.stats.items() if node in self.state.nodes}
        tokens = {node: row.tokens_per_rollout for node, row in self.state.nodes.items()}
        return confirmed_best(self.root, dev, tokens, self.config.acceptance.alpha)

    def measure(self, node: str) -> None:
        """Record the input-conditioning gauge of a node's train and dev rollouts (measured again only when it has more)."""
        for split in ("train", "dev"):
            node_gauge(self.store, node, split, self.categories)

    def emit_node(self, node: str) -> None:
        self.measure(node)
        best = self.best().node
        self.store.emit("run", id=self.store.id, best_node=best)
        self.emit(ev.NodeScored(self.state.nodes[node], best))

    def summary(self, stop: str) -> dict:
        tree = SearchTree(self.state.nodes.values())
        best = self.best()
        fates = self.ledger.fates()
        gates = sum(n for status, n in fates.items() if EditStatus(status).gated)
        start, end = tree.node(self.root), tree.node(best.node)
        return {
            "run_id": self.store.id, "stop": stop, "iterations": self.state.iteration, "root": self.root, "best_node": best.node,
            "start_dev": start.get("dev_score"), "start_dev_n": start.get("dev_n") or 0,
            "best_dev": end.get("dev_score"), "best_dev_n": end.get("dev_n") or 0,
            "dev_comparison": dev_comparison(best), "gates": gates,
            "expected_false_accepts": round(stats.expected_false_accepts([self.config.acceptance.alpha] * gates), 2),
            "proposals": sum(fates.values()), "fates": fates, "accepted_by_move": self.ledger.accepted_by_move(), "nodes": len(tree),
            "rollouts": self.budget.rollouts(), "spend": self.budget.spend(), "elapsed_s": round(self.budget.elapsed_s, 1),
            "conditioning": conditioning_summary(self.store, self.root, best.node),
        }


def dev_comparison(best: BestNode) -> dict | None:
    """The summary's paired dev result of the best node (or the runner-up) against the root, with its verdict."""
    if best.versus_root is None:
        return None
    diff = best.versus_root
    verdict = stats.verdict("the starting harness", f"node {best.challenger[:12]}", diff, best.alpha)
    return {"node": best.challenger, "shown_gain": best.node == best.challenger, "n": diff.n, "tasks": diff.tasks, "diff": diff.diff,
            "low": diff.low, "high": diff.high, "b_better": diff.b_better, "a_better": diff.a_better,
            "p_value": diff.p_value, "alpha": best.alpha, "verdict": verdict}


def dev_tasks(suite: Suite, config: RunConfig) -> list[Task]:
    """The dev tasks nodes are scored on: all of the dev split, or a sample of `search.dev_sample` drawn once from the
    run's seed."""
    dev = suite.split("dev")
    n = config.search.dev_sample
    if n is None or n >= len(dev):
        return dev
    return sorted(random.Random(f"{config.seed}:dev").sample(dev, n), key=lambda task: task.id)
