"""`harness-evo watch RUN`: a run that another process is writing, refreshed from its run.db until it stops running."""

import time
from collections import deque
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field
from rich.console import Group
from rich.panel import Panel
from rich.text import Text

from harness_evo.evolve import nodes as run_nodes
from harness_evo.stats import Score
from harness_evo.store import Edit, EditStatus, Iteration, Node, PatternStatus, Rollout, RunStatus, RunStore, Spend
from harness_evo.views import query, style
from harness_evo.views.query import RunFacts, SplitCounts

RECENT = 10
"""Happenings listed at the bottom of the view."""
TOLD = ["rollout", "edit", "iteration", "pattern", "run"]
"""Event kinds the view tells one by one (model calls and node updates are too frequent)."""


def frames(store: RunStore, interval: float = 1.0) -> Iterator[Group]:
    """A fresh view every `interval` seconds; ends after the first view that shows the run no longer running."""
    recent: deque[str] = deque(maxlen=RECENT)
    told = None
    seen = max(0, store.last_event()[0] - 50 * RECENT)
    while True:
        for event in store.events(TOLD, after=seen):
            seen = event["seq"]
            line = tell(event["kind"], event["data"])
            if line and line != told:
                recent.append(f"{time.strftime('%H:%M:%S', time.localtime(event['ts']))}  {line}")
            told = line or told
        facts = collect(store)
        yield render(facts, list(recent))
        if facts.status != RunStatus.RUNNING:
            return
        time.sleep(interval)


class BestScores(BaseModel):
    id: str
    scores: dict[str, Score] = Field(default_factory=dict)


class WatchFacts(RunFacts):
    """What `harness-evo watch` shows at each refresh."""

    splits: dict[str, SplitCounts] = Field(default_factory=dict)
    nodes: int = 0
    best: BestScores | None = None
    edits: dict[str, int] = Field(default_factory=dict)
    """Edits per status."""
    iteration: Iteration | None = None
    """The latest iteration."""
    spend: dict[str, Spend] = Field(default_factory=dict)


def collect(store: RunStore) -> WatchFacts:
    best = run_nodes.best(store)
    latest = store.records(Iteration, order_by="id DESC", limit=1)
    return WatchFacts(
        **query.run_facts(store).model_dump(),
        splits=query.split_scores(store),
        nodes=store.count(Node),
        best=BestScores(id=best, scores=query.node_scores(store, best)) if best else None,
        edits=store.tally(Edit, "status"),
        iteration=latest[0] if latest else None,
        spend=query.spend(store),
    )


def tell(kind: str, data: dict[str, Any]) -> str | None:
    """One line for an event worth telling, else None."""
    if kind == "rollout" and data.get("exit_reason"):
        rollout = Rollout.model_validate(data)
        verdict = "passed" if rollout.passed else "infra" if rollout.infra else "failed"
        return (
            f"rollout {rollout.task_id}#{rollout.trial} ({rollout.split}) on {style.short(rollout.node_id)}: "
            f"{verdict}, {rollout.exit_reason}"
        )
    if kind == "edit" and data.get("status") and EditStatus(data["status"]).final:
        return f"edit {data.get('id')} [{data.get('pattern_id')}]: {data['status'].replace('_', ' ')}"
    if kind == "iteration":
        if data.get("outcome"):
            return f"iteration {data.get('id')} done: {data['outcome']}"
        if data.get("arm"):
            return (
                f"iteration {data.get('id')} started: arm {data['arm']}, node {style.short(data.get('node_id'))}, "
                f"{style.plural(len(data.get('tasks') or []), 'task')}"
            )
    if kind == "pattern" and data.get("status") and data.get("description"):
        return f"pattern {data.get('id')} {data['status']}: {style.clip(data['description'], 80)}"
    if kind == "pattern" and data.get("status") and data["status"] != PatternStatus.CANDIDATE:
        return f"pattern {data.get('id')} {data['status']}"
    if kind == "run" and data.get("status"):
        return f"run {data['status']}"
    return None


def render(facts: WatchFacts, recent: list[str]) -> Group:
    title = Text.assemble(
        f"run {facts.id} ({facts.kind}, ", style.status(facts.status), f", {style.duration(facts.duration_s)})"
    )
    lines = Text()
    for split, row in facts.splits.items():
        lines.append(
            f"{split:<5} rollouts {row.rollouts:>5}: {row.passed} passed, {row.scored - row.passed} failed, "
            f"{row.infra} infra  (pass rate {style.score_of(row.pass_rate)})\n"
        )
    if not facts.splits:
        lines.append("no rollout finished yet\n")
    if facts.kind == "evolve":
        iteration = facts.iteration
        if iteration:
            lines.append(
                f"iteration {iteration.id}: arm {iteration.arm}, node {style.short(iteration.node_id)}, "
                + (iteration.outcome or "running")
                + "\n"
            )
        best = facts.best
        if best:
            scores = "  ".join(f"{split} {style.score_of(score)}" for split, score in best.scores.items())
            lines.append(f"tree: {style.plural(facts.nodes, 'node')}; best {style.short(best.id)}  {scores}\n")
        edits = facts.edits
        lines.append(
            f"edits: {sum(edits.values())} proposed, {edits.get(EditStatus.ACCEPTED, 0)} accepted, "
            f"{sum(n for status, n in edits.items() if EditStatus(status).rejected)} rejected or invalid\n"
        )
    lines.append(
        "model calls: "
        + (
            ", ".join(f"{role} {row.calls:,} ({style.dollars(row.cost)})" for role, row in facts.spend.items())
            or "none yet"
        )
    )
    parts: list[Any] = [Panel(lines, title=title, title_align="left")]
    parts += [Text(line, style="dim") for line in recent]
    if facts.quiet_s:
        parts.append(Text(style.quiet_warning(facts.id, facts.quiet_s), style="yellow"))
    if facts.status == RunStatus.RUNNING:
        parts.append(Text("refreshing from run.db; Ctrl-C stops watching (the run goes on)", style="dim italic"))
    return Group(*parts)
