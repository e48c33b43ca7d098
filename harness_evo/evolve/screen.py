"""The screen (`search.screen`): a look at each candidate before the gate, for a few model calls and no rollout.

The embedded solver's first command decides most of its episodes, so an edit that changes nothing the solver does at
its first step is unlikely to change a pass. The screen takes a few train tasks the parent failed (the targeted
pattern's first), renders each one's first prompt under the parent and under the child (with what workspace discovery
found in the parent's recorded rollout), and samples the solver's first action under both with the same seeds (seed k
is trial k's, so the parent's side is mostly answered from the response cache). An edit whose first prompt changed but
whose sampled actions are all the same is `inert`; under `"on"` it is dropped (`screened` in the ledger) and never
gated. An edit the first prompt does not show (a later turn's template, the loop guard, the step limit) is `unseen`: the
screen cannot tell, and the gate decides.
"""

import random
from collections.abc import Callable, Mapping

from harness_evo.agent.agents import opening, sampling_of
from harness_evo.agent.task_skills import bundled
from harness_evo.agent.trajectory import stored
from harness_evo.config import SearchConfig
from harness_evo.evolve.gate import Turn
from harness_evo.evolve.ledger import Candidate, Ledger
from harness_evo.harness import Harness
from harness_evo.harness.actions import FormatError, parse_bash_block
from harness_evo.harness.features import Finding
from harness_evo.llm import ContextTooLong
from harness_evo.store import Rollout, RunStore, ScreenResult
from harness_evo.taskset import Task

DISCOVERY = {"discovery", "discovery_commands", "discovery_head_lines", "command_timeout_s", "max_observation_chars"}
"""Settings that shape what workspace discovery finds: when the child's differ from the parent's, the parent's recorded
findings do not stand for the child's and the first prompt cannot be replayed."""


class Screen:
    """Looks at candidates before the gate; `mode` is `search.screen` (`off`, `on`, `audit`)."""

    def __init__(
        self,
        mode: str,
        tasks: int,
        samples: int,
        llm,
        store: RunStore,
        train: Mapping[str, Task],
        harness: Callable[[str], Harness],
        ledger: Ledger,
    ):
        self.mode, self.tasks, self.samples, self.llm = mode, tasks, samples, llm
        self.store, self.train, self.harness, self.ledger = store, train, harness, ledger

    @classmethod
    def of(
        cls,
        search: SearchConfig,
        llm,
        store: RunStore,
        train: list[Task],
        harness: Callable[[str], Harness],
        ledger: Ledger,
    ) -> "Screen":
        """The screen `search.screen` asks for, sampling on `train`."""
        by_id = {task.id: task for task in train}
        return cls(search.screen, search.screen_tasks, search.screen_samples, llm, store, by_id, harness, ledger)

    def sift(self, turn: Turn, candidates: list[Candidate]) -> tuple[list[Candidate], list[Candidate]]:
        """The candidates that go on to the gate, and those dropped as inert (none unless `mode` is `on`); each
        candidate's screen result is written into the ledger."""
        if self.mode == "off" or not candidates:
            return candidates, []
        parent, failed = self.harness(turn.node), self.failed(turn)
        kept, dropped = [], []
        for candidate in candidates:
            result = self.look(parent, candidate, failed)
            result.dropped = self.mode == "on" and result.verdict == "inert"
            candidate = self.ledger.screened(candidate, result)
            (dropped if result.dropped else kept).append(candidate)
        return kept, dropped

    def failed(self, turn: Turn) -> list[Rollout]:
        """One scored, failed train rollout of the turn's node per task (its lowest trial): the targeted pattern's
        tasks first, then the others in an order seeded by the iteration."""
        rows: dict[str, Rollout] = {}
        for row in self.store.records(Rollout, order_by="trial", harness_hash=turn.node, split="train"):
            if row.scored and not row.passed and row.task_id in self.train:
                rows.setdefault(row.task_id, row)
        targeted = set(turn.target.task_ids) if turn.target else set()
        order = sorted(rows)
        random.Random(f"screen:{turn.iteration}:{turn.node}").shuffle(order)
        order.sort(key=lambda task: task not in targeted)
        return [rows[task] for task in order]

    def look(self, parent: Harness, candidate: Candidate, failed: list[Rollout]) -> ScreenResult:
        """The screen's verdict on one candidate, from the first actions sampled on up to `tasks` of `failed` (those
        its examples came from left out)."""
        child = candidate.child
        rows = [row for row in failed if row.task_id not in candidate.edit.sources][: self.tasks]
        if not rows:
            return ScreenResult(verdict="unseen", note="the parent has no failed train task to look at")
        if child.agent.discovery and (
            parent.agent.model_dump(include=DISCOVERY) != child.agent.model_dump(include=DISCOVERY)
        ):
            return ScreenResult(
                verdict="unseen",
                tasks=[row.task_id for row in rows],
                note="the child discovers the workspace otherwise, so the parent's recorded first prompts do not "
                "stand for its",
            )
        found = self.findings(parent, rows)
        firsts = {
            row.task_id: (
                first_prompt(parent, self.train[row.task_id], found.get(row.task_id, [])),
                first_prompt(child, self.train[row.task_id], found.get(row.task_id, [])),
            )
            for row in rows
        }
        tasks = list(firsts)
        if sampling_of(parent) == sampling_of(child) and all(before == after for before, after in firsts.values()):
            return ScreenResult(
                verdict="unseen",
                tasks=tasks,
                note="the first prompt and the sampling are the same under the child (it acts later in an episode)",
            )
        samples = changed = 0
        for before, after in firsts.values():
            for seed in range(self.samples):
                samples += 1
                changed += self.action(parent, before, seed) != self.action(child, after, seed)
        return ScreenResult(verdict="changed" if changed else "inert", tasks=tasks, samples=samples, changed=changed)

    def findings(self, parent: Harness, rows: list[Rollout]) -> dict[str, list[Finding]]:
        """Task -> what workspace discovery found in its rollout of `rows` (nothing when the parent does not
        discover)."""
        if not parent.agent.discovery:
            return {}
        return {trajectory.task_id: trajectory.discovery for trajectory in stored(self.store, rows)}

    def action(self, harness: Harness, messages: list[dict], seed: int) -> str:
        """The solver's first action on `messages` under `harness`'s sampling, whitespace collapsed (the whole reply
        when it holds no well-formed action)."""
        try:
            reply = self.llm.complete("solver", messages, seed=seed, **sampling_of(harness)).text
        except ContextTooLong:
            return "(the first prompt is longer than the model's context)"
        try:
            return " ".join(parse_bash_block(reply).split())
        except FormatError:
            return " ".join(reply.split())


def first_prompt(harness: Harness, task: Task, discovery: list[Finding]) -> list[dict]:
    """The messages of an episode's first reply under `harness`, as the agent loop renders them (`discovery`, what the
    parent's rollout found, only when `harness` discovers)."""
    skills = [*harness.skills, *bundled(task)[0]]
    found = discovery if harness.agent.discovery else []
    return opening(harness, task, harness.examples_for(task.instruction), skills, found)
