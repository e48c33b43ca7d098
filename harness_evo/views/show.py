"""`harness-evo show RUN`: what a run did: starting vs best harness (scores and input-conditioning gauge), edits that
made the agent read the task less, scores over iterations, spend, failure patterns."""

from collections import Counter
from typing import Any

from pydantic import BaseModel, Field
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness_evo import stats
from harness_evo.agent.actions import runs_program
from harness_evo.evolve import nodes as run_nodes
from harness_evo.evolve.conditioning import reads_less
from harness_evo.evolve.tree import SearchTree
from harness_evo.failures import patterns as failure_patterns
from harness_evo.stats import Score
from harness_evo.store import Edit, EditStatus, Iteration, LlmCall, Node, Rollout, RunStatus, RunStore, Spend
from harness_evo.store.gauge import NodeGauge
from harness_evo.store.info import EvolutionSummary, Fork, ReadsLess
from harness_evo.views import query, style
from harness_evo.views.query import RunFacts, SplitCounts

PATTERNS_SHOWN = 10


class NodeFacts(BaseModel):
    """A node as `show` gives it: its scores and input-conditioning gauge per split."""

    id: str
    iteration: int | None = None
    status: str | None = None
    tokens_per_rollout: float | None = None
    scores: dict[str, Score] = Field(default_factory=dict)
    conditioning: dict[str, NodeGauge] = Field(default_factory=dict)


class Step(BaseModel):
    """An accepted edit on the path from the root to the best node."""

    node: str
    edit: str | None = None
    move: str | None = None
    pattern: str | None = None
    rationale: str | None = None


class Progress(BaseModel):
    """The best score so far at the end of each iteration, per split (the first point: the starting harness)."""

    iterations: int = 0
    train: list[float | None] = Field(default_factory=list)
    dev: list[float | None] = Field(default_factory=list)
    scores: dict[str, list[Score | None]] = Field(default_factory=dict)
    """Split -> each point's pass rate (of the node with the most rollouts among those tied best)."""


class ToolUse(BaseModel):
    """How the agent ran one tool of the best harness in one node's train rollouts."""

    tool: str
    harness: str
    """best or start."""
    node: str
    rollouts: int
    calling: int
    """Rollouts that ran the tool."""
    tasks: int
    """Tasks of those rollouts."""
    pass_calling: Score
    pass_others: Score
    calls: int
    calls_failed: int


class ShownPattern(BaseModel):
    id: str
    status: str
    support: int | None = None
    description: str | None = None
    infra: bool = False


class PatternCounts(BaseModel):
    counts: dict[str, int] = Field(default_factory=dict)
    """Patterns per status."""
    shown: list[ShownPattern] = Field(default_factory=list)
    """The first live patterns, in the one order (`Pattern.order`)."""


class ShowFacts(RunFacts):
    """What `harness-evo show` says of a run."""

    harness: str | None = None
    tasks: str | None = None
    split: str | None = None
    forked_from: Fork | None = None
    models: dict[str, str] = Field(default_factory=dict)
    """Role -> the model(s) it called."""
    stop: str | None = None
    """Why a finished evolution run stopped."""
    on_dev: str | None = None
    """A finished evolution run's best node against its root on dev, in a sentence (`DevComparison.verdict`)."""
    start: NodeFacts | None = None
    best: NodeFacts | None = None
    lineage: list[Step] = Field(default_factory=list)
    progress: Progress = Progress()
    edits: dict[str, int] = Field(default_factory=dict)
    """Edits per status."""
    interrupted: int = 0
    """Edits still `proposed` whose gate the run's stop interrupted (their evidence so far is in the ledger)."""
    splits: dict[str, SplitCounts] = Field(default_factory=dict)
    exit_reasons: dict[str, int] = Field(default_factory=dict)
    spend: dict[str, Spend] = Field(default_factory=dict)
    patterns: PatternCounts = PatternCounts()
    tools: list[ToolUse] = Field(default_factory=list)
    reads_less: list[ReadsLess] = Field(default_factory=list)


def collect(store: RunStore) -> ShowFacts:
    info = store.info
    nodes = store.records(Node)
    root, best = run_nodes.root(store), run_nodes.best(store)
    finished = info.status == RunStatus.FINISHED and isinstance(info.summary, EvolutionSummary)
    return ShowFacts(
        **query.run_facts(store).model_dump(),
        harness=info.harness,
        tasks=info.tasks,
        split=info.split,
        forked_from=info.forked_from,
        models=models(store),
        stop=(info.summary.stop or None) if finished else None,
        on_dev=info.summary.dev_comparison.verdict if finished and info.summary.dev_comparison else None,
        start=node_facts(store, root) if root else None,
        best=node_facts(store, best) if best else None,
        lineage=lineage(store, nodes, best),
        progress=progress(store, nodes),
        edits=store.tally(Edit, "status"),
        interrupted=sum(edit.interrupted for edit in store.records(Edit, status=EditStatus.PROPOSED)),
        splits=query.split_scores(store),
        exit_reasons={reason: n for reason, n in store.tally(Rollout, "exit_reason").items() if reason},
        spend=query.spend(store),
        patterns=patterns(store),
        tools=tool_use(store, root, best) if info.kind == "evolve" and root and best else [],
        reads_less=reads_less(store),
    )


def models(store: RunStore) -> dict[str, str]:
    """Role -> the model(s) it called; the solver from the rollouts when no call was recorded (oracle, noop, cached)."""
    found: dict[str, set[str]] = {}
    for role, model in store.tally(LlmCall, "role", "model"):
        if model is not None:
            found.setdefault(role, set()).add(model)
    if "solver" not in found:
        found["solver"] = {model for model in store.tally(Rollout, "model") if model}
    return {role: ", ".join(sorted(names)) for role, names in sorted(found.items()) if names}


def node_facts(store: RunStore, node: str) -> NodeFacts:
    row = store.record(Node, node) or Node(id=node)
    return NodeFacts(
        id=node,
        iteration=row.iteration,
        status=row.status,
        tokens_per_rollout=row.tokens_per_rollout,
        scores=query.node_scores(store, node),
        conditioning=query.conditioning(store, node),
    )


def lineage(store: RunStore, nodes: list[Node], best: str | None) -> list[Step]:
    """The accepted edits that lead from the root to the best node."""
    if not nodes or best not in {row.id for row in nodes}:
        return []
    tree = SearchTree(nodes)
    steps = []
    for node in tree.lineage(best)[1:]:
        edit = store.record(Edit, tree.node(node).edit_id)
        steps.append(
            Step(
                node=node,
                edit=edit and edit.id,
                move=edit and edit.move,
                pattern=edit and edit.pattern_id,
                rationale=edit and edit.rationale,
            )
        )
    return steps


def progress(store: RunStore, nodes: list[Node]) -> Progress:
    """Best score so far at the end of each iteration, per split (train and dev are never combined): the curve of
    values, and under `scores` each point's pass rate (of the node with the most rollouts among those tied best)."""
    last = max(
        [row.id for row in store.records(Iteration)] + [style.iteration(row.iteration) for row in nodes], default=-1
    )
    curves: dict[str, list[float | None]] = {"train": [], "dev": []}
    points: dict[str, list[Score | None]] = {"train": [], "dev": []}
    for i in range(-1, last + 1):
        known = [row for row in nodes if style.iteration(row.iteration) <= i]
        for split in curves:
            scored = [
                (getattr(row, f"{split}_score"), getattr(row, f"{split}_n"))
                for row in known
                if getattr(row, f"{split}_score") is not None
            ]
            top = max(scored, default=None)
            curves[split].append(top[0] if top else None)
            points[split].append(query.score_facts(stats.rate_of(*top)) if top else None)
    return Progress(iterations=last + 1, **curves, scores=points)


def tool_use(store: RunStore, root: str, best: str) -> list[ToolUse]:
    """How the agent ran each tool of the best harness in the train rollouts of the best and the starting harness: a
    tool it reaches for outside the tasks the tool was made for can cost more than it brings."""
    tools = [tool.name for tool in run_nodes.harness_of(store, best).tools]
    if not tools:
        return []
    rows = []
    for label, node in [("best", best)] + ([("start", root)] if root != best else []):
        rollouts = [
            (rollout, steps_of(store, rollout)) for rollout in store.records(Rollout, harness_hash=node, split="train")
        ]
        for tool in tools:
            calls = {
                rollout.id: [step for step in steps if step.get("action") and runs_program(step["action"], tool)]
                for rollout, steps in rollouts
            }
            calling = [rollout for rollout, _ in rollouts if calls[rollout.id]]
            others = [rollout for rollout, _ in rollouts if not calls[rollout.id]]
            steps = [step for found in calls.values() for step in found]
            rows.append(
                ToolUse(
                    tool=tool,
                    harness=label,
                    node=node,
                    rollouts=len(rollouts),
                    calling=len(calling),
                    tasks=len({rollout.task_id for rollout in calling}),
                    pass_calling=pass_rate(calling),
                    pass_others=pass_rate(others),
                    calls=len(steps),
                    calls_failed=sum(step.get("exit_code") != 0 or bool(step.get("timed_out")) for step in steps),
                )
            )
    return rows


def steps_of(store: RunStore, rollout: Rollout) -> list[dict]:
    """The steps of a rollout's trajectory as stored (read without validating the whole trajectory: a view reads
    hundreds of them)."""
    relative = rollout.trajectory
    return store.read_json(relative).get("steps", []) if relative and (store.folder / relative).is_file() else []


def pass_rate(rollouts: list[Rollout]) -> Score:
    """The pass rate of `rollouts`."""
    return query.score_facts(stats.rate(sum(rollout.passed for rollout in rollouts), len(rollouts)))


def patterns(store: RunStore) -> PatternCounts:
    """Patterns per status, and the first live ones in the one order (`Pattern.order`)."""
    rows = failure_patterns(store, retired=True)
    return PatternCounts(
        counts=dict(Counter(row.status.value for row in rows)),
        shown=[ShownPattern.model_validate(row.model_dump(mode="json")) for row in rows if row.status.live][
            :PATTERNS_SHOWN
        ],
    )


def render(facts: ShowFacts) -> Group:
    parts: list[Any] = [heading(facts)]
    if facts.kind == "evolve" and (facts.start or facts.best):
        parts.append(harness_table(facts))
    if facts.lineage:
        parts.append(
            Text.assemble(
                ("path to the best: ", "bold"),
                " → ".join(
                    f"{step.edit} {step.move or 'proposer'} [{step.pattern or '-'}] {style.clip(step.rationale, 50)}"
                    for step in facts.lineage
                ),
            )
        )
    if facts.kind == "evolve":
        parts.append(progress_text(facts))
    if facts.reads_less:
        parts.append(
            Text(
                "\n".join(
                    f"⚠ edit {row.edit} ({row.status.replace('_', ' ')}): the agent reads the task less: "
                    f"{'; '.join(row.fell)}"
                    for row in facts.reads_less
                ),
                style="yellow",
            )
        )
    if facts.tools:
        parts.append(tools_table(facts.tools))
    if facts.splits:
        parts.append(splits_table(facts))
    if facts.spend:
        parts.append(spend_table(facts.spend))
    parts.append(patterns_text(facts.patterns))
    return Group(*parts)


def heading(facts: ShowFacts) -> Panel:
    lines = [
        f"started {style.when(facts.started)}, ran {style.duration(facts.duration_s)}",
        f"harness {facts.harness or '-'}, tasks {facts.tasks or '-'}"
        + (f" (split {facts.split})" if facts.split else ""),
        "models: " + ("; ".join(f"{role} {model}" for role, model in facts.models.items()) or "none called"),
    ]
    if facts.stop:
        lines.append(f"stopped because: {facts.stop}")
    if facts.on_dev:
        lines.append(f"on dev: {facts.on_dev}")
    if facts.kind != "evolve" and facts.best:
        lines.append(f"evaluated harness {style.short(facts.best.id)}")
    if facts.quiet_s:
        lines.append(style.quiet_warning(facts.id, facts.quiet_s))
    if facts.forked_from:
        lines.append(f"forked from run {facts.forked_from.run}, node {style.short(facts.forked_from.node)}")
    title = Text.assemble(f"run {facts.id} ({facts.kind}, ", style.status(facts.status), ")")
    return Panel("\n".join(lines), title=title, title_align="left")


def harness_table(facts: ShowFacts) -> Table:
    table = Table(title="starting vs best harness", title_justify="left")
    table.caption = "reads the task: identifiability/chance, category dependence, template share, rollouts (train)"
    table.caption_justify = "left"
    for column in ("", "node", "iteration", "train", "dev", "tokens/rollout", "reads the task"):
        table.add_column(
            column,
            justify="right" if column in ("iteration", "train", "dev", "tokens/rollout") else "left",
            overflow="fold",
        )
    same = facts.start and facts.best and facts.start.id == facts.best.id
    for label, node in [("start = best", facts.start)] if same else [("start", facts.start), ("best", facts.best)]:
        if node is None:
            continue
        table.add_row(
            label,
            style.short(node.id),
            str(node.iteration) if style.iteration(node.iteration) >= 0 else "-",
            *(style.score_of(node.scores.get(split)) for split in ("train", "dev")),
            "-" if node.tokens_per_rollout is None else f"{node.tokens_per_rollout:,.0f}",
            style.gauge(node.conditioning.get("train")),
        )
    return table


def progress_text(facts: ShowFacts) -> Text:
    progress, edits = facts.progress, facts.edits
    text = Text(
        f"best score so far over {style.plural(progress.iterations, 'iteration')} (first bar: the starting harness)\n",
        style="bold",
    )
    for split in ("train", "dev"):
        known = [point for point in progress.scores.get(split, []) if point is not None]
        ends = f"{style.score_of(known[0])} → {style.score_of(known[-1])}" if known else "not scored"
        text.append(f"  {split:<5} ").append(style.sparkline(getattr(progress, split)), style="cyan").append(
            f"  {ends}\n"
        )
    text.append(
        f"edits: {sum(edits.values())} proposed, {edits.get(EditStatus.ACCEPTED, 0)} accepted, "
        f"{edits.get(EditStatus.REJECTED_STATIC, 0)} rejected by the critic, "
        f"{edits.get(EditStatus.REJECTED_EMPIRICAL, 0)} rejected by the gate, {edits.get(EditStatus.INVALID, 0)} "
        "invalid"
        + (f", {edits[EditStatus.SCREENED]} dropped by the screen" if edits.get(EditStatus.SCREENED) else "")
        + (f", {facts.interrupted} in a gate the stop interrupted" if facts.interrupted else "")
    )
    return text


def tools_table(rows: list[ToolUse]) -> Table:
    table = Table(title="tools of the best harness, as the agent ran them in train rollouts", title_justify="left")
    for column in (
        "tool",
        "harness",
        "rollouts running it",
        "tasks",
        "passed when run",
        "passed otherwise",
        "calls failed",
    ):
        table.add_column(column, justify="left" if column in ("tool", "harness") else "right", overflow="fold")
    for row in rows:
        failed = f"{row.calls_failed} of {row.calls}" if row.calls else "-"
        table.add_row(
            row.tool,
            f"{row.harness} {style.short(row.node)}",
            f"{row.calling} of {row.rollouts}",
            str(row.tasks),
            style.score_of(row.pass_calling),
            style.score_of(row.pass_others),
            failed,
        )
    return table


def splits_table(facts: ShowFacts) -> Table:
    title = "rollouts by split" + (" (of every harness of the tree)" if facts.kind == "evolve" else "")
    table = Table(title=title, title_justify="left")
    for column in (
        "split",
        "rollouts",
        "scored",
        "passed",
        "pass rate",
        "infra",
        "mean reward",
        "tokens",
        "solver cost",
    ):
        table.add_column(column, justify="left" if column == "split" else "right", overflow="fold")
    for split, row in facts.splits.items():
        table.add_row(
            split,
            str(row.rollouts),
            str(row.scored),
            str(row.passed),
            style.score_of(row.pass_rate),
            str(row.infra),
            f"{row.reward / row.scored:.2f}" if row.scored else "-",
            f"{row.tokens:,}",
            style.dollars(row.cost),
        )
    reasons = ", ".join(f"{reason} {n}" for reason, n in facts.exit_reasons.items())
    table.caption, table.caption_justify = f"exit reasons: {reasons}", "left"
    return table


def spend_table(spend: dict[str, Spend]) -> Table:
    table = Table(title="spend by role", title_justify="left")
    for column in ("role", "calls", "cached", "errors", "tokens in", "tokens out", "cost"):
        table.add_column(column, justify="left" if column == "role" else "right", overflow="fold")
    for role, row in spend.items():
        table.add_row(
            role,
            f"{row.calls:,}",
            f"{row.cached:,}",
            f"{row.errors:,}",
            f"{row.tokens_in:,}",
            f"{row.tokens_out:,}",
            style.dollars(row.cost),
        )
    table.add_row("total", "", "", "", "", "", style.dollars(sum(row.cost for row in spend.values())), style="bold")
    return table


def patterns_text(patterns: PatternCounts) -> Group | Text:
    counts = patterns.counts
    if not counts:
        return Text("no failure patterns recorded")
    line = Text("failure patterns: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items())), style="bold")
    if not patterns.shown:
        return line
    table = Table(show_header=True, box=None, padding=(0, 1))
    for column in ("id", "status", "tasks", "description"):
        table.add_column(column, justify="right" if column == "tasks" else "left", overflow="fold")
    for row in patterns.shown:
        table.add_row(row.id, style.status(row.status), str(row.support or 0), style.clip(row.description, 90))
    return Group(line, table)
