"""Harvesting, a move without a model: solved episodes of the run's own passed train rollouts become `examples/`, and
examples the rollouts that retrieved them kept failing with are removed.

An example quotes the train task it came from, so the gate never measures it there: the edit names its `sources`,
which the gate plan leaves out, and it is gated on the other train tasks whose retrieved examples it changes.
"""

import re
from collections import Counter
from collections.abc import Callable, Collection
from itertools import accumulate
from pathlib import Path

from pydantic import BaseModel

from harness_evo.agent.episodes import as_example
from harness_evo.agent.executor import Executor
from harness_evo.agent.session import RunSession
from harness_evo.agent.trajectory import Trajectory, stored
from harness_evo.errors import UserError
from harness_evo.harness import Delete, Edit, Harness, Write
from harness_evo.harness.actions import DONE_MARKER
from harness_evo.harness.examples import render_example
from harness_evo.harness.settings_edit import set_setting
from harness_evo.store import Rollout, RunStore
from harness_evo.taskset import Task, load_suite

EXAMPLES_SHOWN = 2
"""`[agent] examples` a harvest sets when the parent shows none."""
SETTING_ROOM = 100
"""Characters of the size budget a harvest leaves for the `examples` setting it may add."""
HARMFUL_AFTER = 2
"""An example retrieved by this many failed rollouts, and by no passed one, is removed."""
SOLUTIONS = "solutions"
"""The run folder's store of reference-solution episodes."""
WRITES = re.compile(r"(?<![0-9&])>|\btee\b|\bsed\s+-i|\b(?:mv|cp|touch|mkdir|rm|chmod|ln|install)\b")
"""A command that changes a file rather than reading one."""


class Harvested(BaseModel):
    """An `examples` edit with what it came from."""

    edit: Edit
    sources: list[str]
    """The train tasks whose episodes the edit adds: its gate leaves them out."""
    removed: list[str]
    """The examples the edit removes."""
    rationale: str


def thorough(trajectory: Trajectory) -> bool:
    """The rollout looked at its input before changing anything, and checked the result after its last change."""
    commands = [step.action.replace(f"echo {DONE_MARKER}", "") for step in trajectory.steps if step.action is not None]
    changes = [k for k, command in enumerate(commands) if WRITES.search(command)]
    if not changes:
        return False
    looked = changes[0] > 0
    checked = any(command.strip(" ;&") for command in commands[changes[-1] + 1 :])
    return looked and checked


def choose_episodes(
    trajectories: list[Trajectory], train: Collection[str], taken: Collection[str] = ()
) -> list[Trajectory]:
    """One passed rollout per train task not in `taken`: a thorough one first (see `thorough`), then the shortest,
    then the lowest trial. Rollouts of other tasks (dev, test) are never chosen."""
    best: dict[str, Trajectory] = {}
    for trajectory in trajectories:
        if not trajectory.passed or trajectory.task_id not in train or trajectory.task_id in taken:
            continue
        if not trajectory.steps or not trajectory.steps[-1].finished:
            continue
        rank = (not thorough(trajectory), len(trajectory.steps), trajectory.trial)
        held = best.get(trajectory.task_id)
        if held is None or rank < (not thorough(held), len(held.steps), held.trial):
            best[trajectory.task_id] = trajectory
    return [best[task] for task in sorted(best)]


def harmful_examples(trajectories: list[Trajectory], names: Collection[str], after: int = HARMFUL_AFTER) -> list[str]:
    """Examples of `names` that at least `after` failed rollouts retrieved and no passed one did."""
    helpful = Counter(name for trajectory in trajectories if trajectory.passed for name in trajectory.examples)
    harmful = Counter(name for trajectory in trajectories if not trajectory.passed for name in trajectory.examples)
    return sorted(name for name in names if harmful[name] >= after and not helpful[name])


def harvest(
    parent: Harness,
    trajectories: list[Trajectory],
    tasks: dict[str, Task],
    train: Collection[str],
    taken: Collection[str] = (),
    shown: int = EXAMPLES_SHOWN,
    limit: Callable[[list[str]], list[str]] | None = None,
    max_chars: int | None = None,
) -> Harvested | None:
    """The edit that adds an example per train task solved in `trajectories`: none for tasks the parent already has an
    example of or in `taken`; `limit` picks the tasks to take among the others; as many as keep the harness within
    `max_chars` (the critic's size budget). It shows `shown` per task if the parent shows none. Without any to add, the
    edit removing harmful examples; None when there is neither."""
    have = {example.task for example in parent.examples} | {example.name for example in parent.examples}
    chosen = choose_episodes(trajectories, train, set(taken) | have)
    if limit is not None:
        kept = set(limit([trajectory.task_id for trajectory in chosen]))
        chosen = [trajectory for trajectory in chosen if trajectory.task_id in kept]
    examples = [as_example(trajectory, tasks[trajectory.task_id], parent) for trajectory in chosen]
    writes = [Write(path=example.path, text=render_example(example)) for example in examples]
    if max_chars is not None:
        room = max_chars - parent.size - SETTING_ROOM
        writes = [
            write for write, spent in zip(writes, accumulate(len(write.text) for write in writes)) if spent <= room
        ]
    if writes:
        sources = [example.task for example in examples[: len(writes)]]
        ops = writes + (
            [
                Write(
                    path="harness.toml", text=set_setting(parent.components["harness.toml"], "agent", "examples", shown)
                )
            ]
            if parent.agent.examples == 0
            else []
        )
        return Harvested(
            edit=Edit(ops=ops, rationale=f"worked examples from passed rollouts of {', '.join(sources)}"),
            sources=sources,
            removed=[],
            rationale=f"harvested {len(sources)} solved episode(s)",
        )
    removed = harmful_examples(trajectories, [example.name for example in parent.examples])
    if removed:
        ops = [Delete(path=f"examples/{name}.md") for name in removed]
        return Harvested(
            edit=Edit(ops=ops, rationale=f"examples retrieved only by failed rollouts: {', '.join(removed)}"),
            sources=[],
            removed=removed,
            rationale=f"removed {len(removed)} example(s) that kept failing",
        )
    return None


def retrieving_tasks(parent: Harness, child: Harness, tasks: list[Task], sources: Collection[str]) -> list[str]:
    """The tasks (but `sources`) whose retrieved examples differ between parent and child: those the edit can change."""

    def names(harness: Harness, task: Task) -> list[str]:
        return [example.name for example in harness.examples_for(task.instruction)]

    return sorted(task.id for task in tasks if task.id not in sources and names(parent, task) != names(child, task))


def train_trajectories(store: RunStore, node: str, read: dict[str, Trajectory] | None = None) -> list[Trajectory]:
    """The train rollouts of harness `node` in the run, in the order they were recorded; `read` keeps the trajectories
    already read by rollout id (a finished rollout's trajectory does not change),
    so a later call reads only new ones."""
    return stored(store, store.records(Rollout, order_by="rowid", harness_hash=node, split="train"), read)


class Episodes:
    """The solved episodes a harvest of a run takes examples from (`search.examples_from`): a node's train rollouts,
    and the train tasks' reference solutions, run one command per step with the root harness once per run into the run
    folder's own `solutions/` store (its rows are no rollouts of the run's nodes or budget)."""

    def __init__(self, run: RunSession, root: Harness, train: list[Task]):
        self.run, self.root, self.train = run, root, train
        self.read: dict[str, Trajectory] = {}
        """Trajectories read so far, by rollout id."""
        self.solved: list[Trajectory] | None = None
        """The reference solutions' episodes, once run."""

    def of(self, node: str) -> list[Trajectory]:
        """The node's train rollouts in the order they were recorded, then the reference solutions' episodes (each
        when `search.examples_from` names it)."""
        sources = self.run.config.search.examples_from
        rollouts = train_trajectories(self.run.store, node, self.read) if "rollouts" in sources else []
        return rollouts + (self.solutions() if "solutions" in sources else [])

    def solutions(self) -> list[Trajectory]:
        if self.solved is not None:
            return self.solved
        folder = self.run.store.folder / SOLUTIONS
        store = (
            RunStore(folder)
            if (folder / "run.db").is_file()
            else RunStore.create(self.run.store.folder, "eval", run_id=SOLUTIONS)
        )
        config = self.run.config.with_options({"agent": "solution", "executor.workers": 2, "executor.backend": "local"})
        Executor.from_config(store, config, self.run.suite, self.run.llm, self.run.backend).run(
            self.root, self.train, [0]
        )
        self.solved = train_trajectories(store, self.root.hash)
        return self.solved


def harvest_into(store: RunStore, parent: Harness, out: Path, tasks: Path, shown: int = EXAMPLES_SHOWN) -> Harvested:
    """Write `parent` with an example of every train task of suite `tasks` that a rollout of it in `store` passed
    (see `harvest`) to the new or empty folder `out`, showing `shown` examples per task if `parent` shows none."""
    if out.exists() and any(out.iterdir()):
        raise UserError(f"{out}: not empty; pass a new or empty folder to write the harness to")
    suite = load_suite(tasks)
    train = {task.id: task for task in suite.split("train")}
    trajectories = [t for t in train_trajectories(store, parent.hash) if t.task_id in train]
    harvested = harvest(parent, trajectories, train, set(train), shown=shown)
    if harvested is None or not harvested.sources:
        passed = sum(t.passed for t in trajectories)
        raise UserError(
            f"run {store.id} has {len(trajectories)} train rollout(s) of {parent.short_hash}, {passed} passed: "
            "no solved episode to make an example of (eval it on --split train first)"
        )
    parent.apply(harvested.edit).save(out)
    return harvested
