"""Is the agent still reading the task? An input-conditioning gauge over stored rollouts (no new rollouts).

A closed loop can keep raising the pass rate while the agent's behaviour drifts into one template that no longer
depends on the task (a tool it now calls on every task, whatever the task is about). Three measures, each with the
number of rollouts it stands on:

- *task identifiability*: each rollout's action sequence (programs and arguments as words) is a TF-IDF vector; the
  share of rollouts whose nearest other rollout (cosine) is of the same task, against the share a random neighbour
  would give (`chance`). Only tasks with at least two rollouts count. Ties share the hit: identical rollouts of every
  task score chance;
- *category dependence*: the normalised mutual information between a task's category and the programs its rollouts
  run (one sample per rollout and program); 0 when every category runs the same programs;
- *template share*: the share of rollouts whose opening (the programs of the first `OPENING` commands) also opens a
  rollout of another category.
"""

import re
from collections import Counter
from collections.abc import Iterable, Mapping

import numpy as np

from harness_evo.agent.actions import OPERATOR_CHARS, command_lines, programs, words
from harness_evo.agent.trajectory import Trajectory, stored
from harness_evo.harness.actions import DONE_MARKER
from harness_evo.store import Rollout, RunStore
from harness_evo.store.gauge import Conditioning, Measure, NodeGauge

DONE = re.compile(rf"(?:&&|;)?\s*echo\s+['\"]?{DONE_MARKER}['\"]?")
OPENING = 1
"""Commands whose programs make a rollout's opening."""


def actions(trajectory: Trajectory) -> list[str]:
    """The commands a rollout ran, in order, without the done marker (the harness's protocol, the same on every
    task)."""
    commands = [DONE.sub("", step.action).strip() for step in trajectory.steps if step.action]
    return [command for command in commands if command.strip(";&| \n")]


def tokens(commands: list[str]) -> list[str]:
    """Programs and arguments of the commands, as words (shell operators left out)."""
    return [
        word
        for command in commands
        for line in command_lines(command)
        for word in words(line)
        if not set(word) <= set(OPERATOR_CHARS)
    ]


def gauge(trajectories: Iterable[Trajectory], categories: Mapping[str, str]) -> Conditioning:
    """The three measures over these rollouts; `categories` maps a task id to its category."""
    rows = [
        (trajectory.task_id, categories.get(trajectory.task_id, "uncategorized"), actions(trajectory))
        for trajectory in trajectories
    ]
    identifiable, chance = identifiability([(task, commands) for task, _, commands in rows])
    return Conditioning(
        rollouts=len(rows),
        identifiability=identifiable,
        chance=chance,
        dependence=dependence([(category, commands) for _, category, commands in rows]),
        categories=len({category for _, category, _ in rows}),
        template=template_share([(category, commands) for _, category, commands in rows]),
    )


def identifiability(rows: list[tuple[str, list[str]]]) -> tuple[Measure, float | None]:
    """Leave-one-out nearest neighbour over (task, commands): the share of same-task neighbours, and chance."""
    counts = Counter(task for task, _ in rows)
    kept = [(task, commands) for task, commands in rows if counts[task] >= 2]
    if len({task for task, _ in kept}) < 2:
        return Measure(n=len(kept)), None
    # scikit-learn is imported here, not at the top: the views only read a gauge, the loop computes one
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    tasks = np.array([task for task, _ in kept])
    documents = [tokens(commands) for _, commands in kept]
    if not any(documents):
        similarity = np.zeros((len(kept), len(kept)))
    else:
        vectors = TfidfVectorizer(analyzer=lambda document: document).fit_transform(documents)
        similarity = cosine_similarity(vectors)
    hits, chances = [], []
    for k in range(len(kept)):
        others = np.arange(len(kept)) != k
        nearest = others & np.isclose(similarity[k], similarity[k][others].max())
        hits.append(float(np.mean(tasks[nearest] == tasks[k])))
        chances.append((np.sum(tasks == tasks[k]) - 1) / (len(kept) - 1))
    return Measure(value=float(np.mean(hits)), n=len(kept)), float(np.mean(chances))


def dependence(rows: list[tuple[str, list[str]]]) -> Measure:
    """Normalised mutual information between (category, program) over each rollout's distinct programs."""
    pairs = [
        (category, program)
        for category, commands in rows
        for program in sorted({program for command in commands for program in programs(command)})
    ]
    if len({category for category, _ in pairs}) < 2:
        return Measure(n=len(rows))
    from sklearn.metrics import normalized_mutual_info_score

    value = normalized_mutual_info_score([category for category, _ in pairs], [program for _, program in pairs])
    return Measure(value=float(value), n=len(rows))


def opening(commands: list[str]) -> tuple[str, ...]:
    """The programs of the first `OPENING` commands."""
    return tuple(program for command in commands[:OPENING] for program in programs(command))


def template_share(rows: list[tuple[str, list[str]]]) -> Measure:
    """Share of rollouts (that ran a command) whose opening also opens a rollout of another category."""
    opened = [(category, opening(commands)) for category, commands in rows if commands]
    by_opening: dict[tuple[str, ...], set[str]] = {}
    for category, start in opened:
        by_opening.setdefault(start, set()).add(category)
    if len({category for category, _ in opened}) < 2:
        return Measure(n=len(opened))
    shared = sum(len(by_opening[start] - {category}) > 0 for category, start in opened)
    return Measure(value=shared / len(opened), n=len(opened))


def trajectories(store: RunStore, rollouts: Iterable[Rollout]) -> list[Trajectory]:
    """The stored trajectories of the scored rollouts among `rollouts`."""
    return stored(store, [rollout for rollout in rollouts if rollout.scored])


def node_gauge(store: RunStore, node: str, split: str, categories: Mapping[str, str]) -> NodeGauge:
    """The gauge of a node's scored rollouts of `split`, computed once per count of them: recorded in `conditioning`
    and read back while the node has no new rollouts."""
    rows = [row for row in store.records(Rollout, harness_hash=node, split=split) if row.scored]
    key = f"{node}/{split}"
    known = store.record(NodeGauge, key)
    if known is not None and known.scored == len(rows):
        return known
    found = NodeGauge(
        id=key, node_id=node, split=split, scored=len(rows), **gauge(trajectories(store, rows), categories).model_dump()
    )
    store.put(found)
    return found
