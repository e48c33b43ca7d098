"""The evolution loop, one iteration at a time (DESIGN.md, "One evolution iteration"):

1. the curriculum picks an arm and its minibatch of train tasks;
2. the search tree picks the node (harness version) to expand;
3. the executor runs the minibatch on it (a key already recorded is not paid again);
4. failed rollouts are analyzed and aggregated into patterns;
5. the move policy picks a move ready for the node, which makes candidate edits;
6. the critic reviews them (sending them back a bounded number of times); the gate decides on the survivors;
7. an accepted child becomes a node, is scored on dev, and the arm gets its reward;
8. every step is an event; the iteration ends with a checkpoint that `resume` restarts from.
"""

import random
import time

from harness_evo.agent.session import RunSession
from harness_evo.curriculum import Pull, make_curriculum, similar_by_metadata
from harness_evo.evolve import events as ev
from harness_evo.evolve import pace
from harness_evo.evolve.acceptance import make_rule
from harness_evo.evolve.budget import Budget, BudgetExhausted, estimate, time_spent
from harness_evo.evolve.conditioning import ConditioningCheck
from harness_evo.evolve.critic import Critic
from harness_evo.evolve.evidence import Engine
from harness_evo.evolve.evidence_gate import EvidenceGate
from harness_evo.evolve.gate import Gate, InTurn, Turn
from harness_evo.evolve.harvest import Episodes
from harness_evo.evolve.ledger import Candidate, Ledger
from harness_evo.evolve.move_policy import move_chooser
from harness_evo.evolve.moves import Kit, make_moves
from harness_evo.evolve.nodes import Harnesses
from harness_evo.evolve.patterns import Patterns
from harness_evo.evolve.plan import make_planner
from harness_evo.evolve.proposer import Proposer
from harness_evo.evolve.scorer import Scorer
from harness_evo.evolve.screen import Screen
from harness_evo.evolve.stage import Made, Stage
from harness_evo.evolve.state import LoopState
from harness_evo.evolve.summary import summarize
from harness_evo.evolve.tree import SearchTree, node_selector
from harness_evo.failures.gauge import node_gauge
from harness_evo.harness import Harness
from harness_evo.standins import SandboxTryout
from harness_evo.store import NodeStatus, RunStatus
from harness_evo.store.info import EvolutionSummary
from harness_evo.taskset import Task


class Evolution:
    """One evolution run, open in `run`, started from `root` and scoring nodes on `dev`; `run()` starts it or continues
    it from its last checkpoint."""

    def __init__(self, run: RunSession, root: Harness, dev: list[Task], callbacks: list[ev.Callback] = ()):
        config, store, self.callbacks = run.config, run.store, list(callbacks)
        self.store, self.config, self.executor, self.root, self.dev = store, config, run.executor, root.hash, dev
        self.train = run.suite.split("train")
        self.state = LoopState.last(store) or LoopState()
        self.budget = Budget(config, store, time_spent(store, self.state.elapsed_s))
        self.harnesses = Harnesses(store, root)
        self.scorer = Scorer(
            store, run.executor, run.suite, self.state, self.harnesses, self.budget, dev, config.search.dev_trials
        )
        self.patterns = Patterns(store, run.llm, config, run.suite)
        self.ledger = Ledger(store, self.emit)
        self.categories = {task.id: task.category for task in run.suite.tasks.values()}
        gate = self.gate(ConditioningCheck(config.acceptance, store, self.categories))
        critic = Critic(config.search, self.train, run.backend, run.llm if config.reviews_edits() else None)
        screen = Screen.of(config.search, run.llm, store, self.train, self.harnesses.__getitem__, self.ledger)
        self.stage = Stage(critic, self.ledger, self.harnesses, gate, self.state.nodes, screen)
        proposer = Proposer(run.llm, config.search, SandboxTryout(run.backend, run.suite.tasks))
        self.moves = make_moves(
            Kit(
                self.stage,
                config,
                proposer,
                lambda pattern: self.patterns.evidence(pattern, config.search.evidence),
                Episodes(run, root, self.train),
                self.train,
                self.budget.check,
                lambda node: self.scorer.train_passes([node]),
            )
        )
        self.chooser, self.selector = move_chooser(config.search.move_policy), node_selector(config.search)
        self.curriculum = make_curriculum(
            config.curriculum, [task.id for task in self.train], similar_by_metadata(self.train), self.state.curriculum
        )

    def gate(self, check: ConditioningCheck) -> Gate:
        """The gate `search.gate` names; the evidence engine's settings are checked here, before any rollout."""
        harness = self.harnesses.__getitem__
        if self.config.search.gate == "in-turn":
            acceptance = self.config.acceptance
            rule, planner = make_rule(acceptance), make_planner(acceptance, self.train)
            return InTurn(planner, rule, check, self.scorer, self.ledger, harness, acceptance.alpha)
        engine = Engine(self.config.evidence, self.train)
        return EvidenceGate(engine, check, self.scorer, self.ledger, harness, self.train, self.config.search.candidates)

    def emit(self, event: ev.Event) -> None:
        for callback in self.callbacks:
            callback(event)

    def run(self) -> EvolutionSummary:
        forecast = estimate(
            self.config,
            len(self.dev),
            self.harnesses[self.root].agent.step_limit,
            rollouts_done=self.budget.rollouts(),
            iterations_done=self.state.iteration,
            minutes_done=self.budget.elapsed_s / 60,
            pace=pace.pace(self.config),
            n_train=len(self.train),
            spent=self.budget.spend(),
        )
        self.emit(ev.RunStarted(self.store.id, forecast))
        try:
            with pace.measured(self.config, self.store.id, self.budget), self.budget.deadline(self.executor.interrupt):
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
            self.measure(self.root)  # the gauge counts the train rollouts of an iteration the budget cut short
        finally:
            self.store.emit("clock", elapsed_s=self.budget.elapsed_s)
        summary = summarize(
            self.store, stop, self.state, self.root, self.ledger, self.budget, self.config.acceptance.alpha, self.cost
        )
        self.store.set_status(RunStatus.FINISHED, finished=time.time(), best_node=summary.best_node, summary=summary)
        self.emit(ev.RunFinished(summary))
        return summary

    @property
    def cost(self) -> bool:
        """Whether a cheaper harness may be accepted and named best (`evidence.cost_alpha` of the evidence gate)."""
        return self.config.search.gate == "evidence" and self.config.evidence.cost_alpha > 0

    def iterate(self, i: int) -> bool:
        """One iteration; True when an edit was accepted."""
        rng = random.Random(f"{self.config.seed}:{i}")
        started = time.time()
        arm = self.curriculum.choose(rng)  # 1
        tasks = self.curriculum.minibatch(arm, rng)
        self.store.emit("arm", self.curriculum.state.arms[arm.id].model_dump(mode="json"))
        node = self.selector.select(SearchTree(self.state.nodes.values()))  # 2
        self.state.put_node(self.store, node, expansions=self.state.nodes[node].expansions + 1)
        self.store.emit("iteration", id=i, arm=arm.id, node_id=node, tasks=tasks, started=started)
        self.emit(ev.IterationStarted(i, arm.id, node, tasks))
        rows = self.scorer.run(node, tasks, [0])  # 3
        self.patterns.analyze(rows, node)  # 4
        self.sync_arms()
        turn = Turn(i, node, self.patterns.target(arm.id, rows, self.curriculum.probabilities()), rng)
        made = self.make(turn)  # 5, 6: a move, the critic
        decision = self.stage.decide(turn, made.candidates)  # 6: the gate
        if decision.accepted:
            self.accept(turn, decision.accepted)  # 7
        verdict, outcome = decision.last, decision.told() or made.reason
        gated = verdict.model_dump(include={"accepted", "fixed", "broken", "ties"}) if verdict is not None else {}
        self.curriculum.reward(
            Pull(
                arm=arm.id,
                pattern=turn.target.id if turn.target else None,
                found=self.patterns.promoted_share(rows),
                **gated,
            )
        )
        self.measure(node)
        spend = self.budget.spend()
        self.store.emit("iteration", id=i, finished=time.time(), outcome=outcome, spend=spend)  # 8
        self.emit(ev.IterationFinished(i, outcome, spend))
        return decision.accepted is not None

    def make(self, turn: Turn) -> Made:
        """What the move the policy picks makes, among the moves ready for the turn (or those made when none is)."""
        ready = [kind for kind, move in self.moves.items() if move.ready(turn)]
        ready = ready or [kind for kind, move in self.moves.items() if move.fallback]
        if not ready:
            return Made(reason="no promoted failure pattern to work on yet")
        # the earlier iterations' edits only: an iteration redone after a crash chooses as it first did
        return self.moves[self.chooser.choose(ready, self.ledger.history(before=turn.iteration))].make(turn)

    def accept(self, turn: Turn, candidate: Candidate) -> None:
        """The accepted child becomes a node of the tree, scored on dev."""
        child = candidate.child.hash
        self.state.put_node(
            self.store,
            child,
            parent_id=turn.node,
            edit_id=candidate.edit.id,
            iteration=turn.iteration,
            status=NodeStatus.ACCEPTED,
        )
        self.scorer.score_dev(child)
        self.emit_node(child)

    def score_root(self) -> None:
        if self.root not in self.state.nodes:
            self.state.put_node(self.store, self.root, parent_id=None, iteration=-1, status=NodeStatus.ROOT)
            self.scorer.score_dev(self.root)
            self.emit_node(self.root)
            self.state.save(self.store)

    def sync_arms(self) -> None:
        for arm in self.curriculum.sync_arms(self.patterns.views()):
            self.store.emit("arm", arm.model_dump(mode="json"))

    def measure(self, node: str) -> None:
        """Record the input-conditioning gauge of a node's train and dev rollouts (measured again only when it has
        more)."""
        for split in ("train", "dev"):
            node_gauge(self.store, node, split, self.categories)

    def emit_node(self, node: str) -> None:
        self.measure(node)
        best = self.state.best(self.root, self.config.acceptance.alpha, self.cost).node
        self.store.update_info(best_node=best)
        self.emit(ev.NodeScored(self.state.nodes[node], best))
