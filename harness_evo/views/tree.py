"""`harness-evo tree RUN`: the search tree, each node with its train and dev scores, its input-conditioning gauge
(flagged when its edit lowered it), the edit that made it, its rejected children."""

from collections import Counter, defaultdict

from pydantic import BaseModel, Field
from rich.text import Text
from rich.tree import Tree

from harness_evo import stats
from harness_evo.evolve import nodes as run_nodes
from harness_evo.stats import Score
from harness_evo.store import Edit, EditStatus, Node, NodeStatus, RunStore
from harness_evo.store.gauge import NodeGauge
from harness_evo.views import query, style


class MadeBy(BaseModel):
    """The accepted edit that made a node."""

    id: str
    pattern_id: str | None = None
    rationale: str | None = None
    move: str = "proposer"


class TreeNode(BaseModel):
    id: str
    parent_id: str | None = None
    iteration: int | None = None
    status: str | None = None
    best: bool = False
    """The run's best node."""
    expansions: int = 0
    train: Score = Score()
    dev: Score = Score()
    edit: MadeBy | None = None
    conditioning: dict[str, NodeGauge] = Field(default_factory=dict)
    fell: list[str] = Field(default_factory=list)
    """What its edit lowered in the input-conditioning of the gate rollouts."""
    rejected: dict[str, int] = Field(default_factory=dict)
    """Its rejected children per status."""


class TreeFacts(BaseModel):
    """What `harness-evo tree` shows: every node, in the order they were first recorded."""

    id: str
    best: str | None = None
    nodes: list[TreeNode] = Field(default_factory=list)


def collect(store: RunStore) -> TreeFacts:
    edits = {edit.id: edit for edit in store.records(Edit)}
    rejected: dict[str, Counter] = defaultdict(Counter)
    for edit in edits.values():
        if edit.status.rejected:
            rejected[edit.parent_id][edit.status.value] += 1
    best = run_nodes.best(store)
    facts = []
    for row in store.records(Node, order_by="rowid"):
        edit: Edit | None = edits.get(row.edit_id)
        facts.append(
            TreeNode(
                id=row.id,
                parent_id=row.parent_id,
                iteration=row.iteration,
                status=row.status,
                best=row.id == best,
                expansions=row.expansions,
                train=query.score_facts(stats.rate_of(row.train_score, row.train_n)),
                dev=query.score_facts(stats.rate_of(row.dev_score, row.dev_n)),
                edit=MadeBy.model_validate(edit.model_dump()) if edit else None,
                conditioning=query.conditioning(store, row.id),
                fell=edit.reads_less if edit else [],
                rejected=dict(rejected.get(row.id, {})),
            )
        )
    return TreeFacts(id=store.id, best=best, nodes=facts)


def render(facts: TreeFacts) -> Tree | str:
    if not facts.nodes:
        return (
            f"run {facts.id} has no search tree (only `evolve` runs grow one; `harness-evo show {facts.id}` summarizes "
            "it)"
        )
    children: dict[str | None, list[TreeNode]] = defaultdict(list)
    for node in facts.nodes:
        children[node.parent_id].append(node)
    known = {node.id for node in facts.nodes}
    tops = [node for node in facts.nodes if node.parent_id not in known]
    tree = Tree(
        Text(
            f"search tree of {facts.id}: {style.plural(len(facts.nodes), 'node')}, ★ the best by dev score",
            style="bold",
        )
    )
    stack = [(tree, node) for node in reversed(tops)]
    while stack:
        branch, node = stack.pop()
        child = branch.add(label(node))
        stack.extend((child, kid) for kid in reversed(children[node.id]))
    return tree


def label(node: TreeNode) -> Text:
    text = Text()
    text.append("★ " if node.best else "  ", style="bold yellow")
    text.append(style.short(node.id), style="bold" if node.best else "")
    text.append(f"  it {node.iteration}" if style.iteration(node.iteration) >= 0 else "")
    for split in ("train", "dev"):
        text.append(f"  {split} ").append(style.score_of(getattr(node, split)), style="cyan" if split == "dev" else "")
    if node.conditioning.get("train"):
        text.append(f"  reads {style.gauge(node.conditioning['train'])}", style="dim")
    if node.fell:
        text.append(f"  ⚠ reads the task less ({'; '.join(node.fell)})", style="bold yellow")
    if node.edit:
        text.append(f"  ← {node.edit.id} {node.edit.move} [{node.edit.pattern_id or '-'}] ", style="dim")
        text.append(style.clip(node.edit.rationale, 60), style="dim")
    elif node.status == NodeStatus.ROOT:
        text.append("  (starting harness)", style="dim")
    if node.rejected:
        counts = node.rejected
        parts = [
            f"{counts[s]} {name}"
            for s, name in (
                (EditStatus.REJECTED_STATIC, "by critic"),
                (EditStatus.REJECTED_EMPIRICAL, "by gate"),
                (EditStatus.SCREENED, "by screen"),
                (EditStatus.INVALID, "invalid"),
            )
            if counts.get(s)
        ]
        text.append(f"  ✗ {sum(counts.values())} rejected ({', '.join(parts)})", style="red")
    return text
