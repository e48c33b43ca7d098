"""`harness-evo tree RUN`: the search tree, each node with its train and dev scores, its input-conditioning gauge (flagged
when its edit lowered it), the edit that made it, its rejected children."""

from collections import Counter, defaultdict
from typing import Any

from rich.text import Text
from rich.tree import Tree

from harness_evo import stats
from harness_evo.evolve.nodes import best_node
from harness_evo.store import Edit, EditStatus, Node, NodeStatus, RunStore
from harness_evo.views import query, style


def collect(store: RunStore) -> dict[str, Any]:
    nodes = [node.model_dump(mode="json") for node in store.records(Node, order_by="rowid")]
    edits = {edit.id: edit for edit in store.records(Edit)}
    rejected: dict[str, Counter] = defaultdict(Counter)
    for edit in edits.values():
        if edit.status.rejected:
            rejected[edit.parent_id][edit.status.value] += 1
    best = best_node(store)
    facts = []
    for row in nodes:
        edit = edits.get(row.get("edit_id"))
        facts.append({
            "id": row["id"], "parent_id": row.get("parent_id"), "iteration": row.get("iteration"), "status": row.get("status"),
            "best": row["id"] == best, "expansions": row.get("expansions") or 0,
            **{split: query.score_facts(stats.rate_of(row.get(f"{split}_score"), row.get(f"{split}_n"))) for split in ("train", "dev")},
            "edit": edit.model_dump(include={"id", "pattern_id", "rationale", "move"}) if edit else None,
            "conditioning": query.conditioning(store, row["id"]), "fell": edit.reads_less if edit else [],
            "rejected": dict(rejected.get(row["id"], {})),
        })
    return {"id": store.id, "best": best, "nodes": facts}


def render(facts: dict[str, Any]) -> Tree | str:
    if not facts["nodes"]:
        return f"run {facts['id']} has no search tree (only `evolve` runs grow one; `harness-evo show {facts['id']}` summarizes it)"
    children: dict[str | None, list[dict]] = defaultdict(list)
    for node in facts["nodes"]:
        children[node["parent_id"]].append(node)
    known = {node["id"] for node in facts["nodes"]}
    tops = [node for node in facts["nodes"] if node["parent_id"] not in known]
    tree = Tree(Text(f"search tree of {facts['id']}: {style.plural(len(facts['nodes']), 'node')}, ★ the best by dev score", style="bold"))
    stack = [(tree, node) for node in reversed(tops)]
    while stack:
        branch, node = stack.pop()
        child = branch.add(label(node))
        stack.extend((child, kid) for kid in reversed(children[node["id"]]))
    return tree


def label(node: dict[str, Any]) -> Text:
    text = Text()
    text.append("★ " if node["best"] else "  ", style="bold yellow")
    text.append(style.short(node["id"]), style="bold" if node["best"] else "")
    text.append(f"  it {node['iteration']}" if style.iteration(node["iteration"]) >= 0 else "")
    for split in ("train", "dev"):
        text.append(f"  {split} ").append(style.score_of(node[split]), style="cyan" if split == "dev" else "")
    if node["conditioning"].get("train"):
        text.append(f"  reads {style.gauge(node['conditioning']['train'])}", style="dim")
    if node["fell"]:
        text.append(f"  ⚠ reads the task less ({'; '.join(node['fell'])})", style="bold yellow")
    if node["edit"]:
        text.append(f"  ← {node['edit']['id']} {node['edit']['move']} [{node['edit']['pattern_id'] or '-'}] ", style="dim")
        text.append(style.clip(node["edit"]["rationale"], 60), style="dim")
    elif node["status"] == NodeStatus.ROOT:
        text.append("  (starting harness)", style="dim")
    if node["rejected"]:
        counts = node["rejected"]
        parts = [f"{counts[s]} {name}" for s, name in ((EditStatus.REJECTED_STATIC, "by critic"), (EditStatus.REJECTED_EMPIRICAL, "by gate"),
                                                        (EditStatus.INVALID, "invalid")) if counts.get(s)]
        text.append(f"  ✗ {sum(counts.values())} rejected ({', '.join(parts)})", style="red")
    return text
