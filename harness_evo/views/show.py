"""`harness-evo show RUN`: what a run did: starting vs best harness (scores and input-conditioning gauge), edits that made
the agent read the task less, scores over iterations, spend, failure patterns."""

from collections import Counter
from typing import Any

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness_evo import stats
from harness_evo.agent.actions import runs_program
from harness_evo.evolve.nodes import best_node, harness_of, root_node
from harness_evo.evolve.tree import SearchTree
from harness_evo.failures import patterns as failure_patterns
from harness_evo.store import Edit, EditStatus, Iteration, Node, Rollout, RunStatus, RunStore
from harness_evo.views import query, style

PATTERNS_SHOWN = 10


def collect(store: RunStore) -> dict[str, Any]:
    info = store.info
    nodes = store.records(Node)
    root, best = root_node(store), best_node(store)
    facts: dict[str, Any] = {
        **query.run_facts(store), "harness": info.get("harness"),
        "tasks": info.get("tasks"), "split": info.get("split"), "forked_from": info.get("forked_from"),
        "models": models(store),
        "stop": (info.get("summary") or {}).get("stop") if info.get("status") == RunStatus.FINISHED else None,
        "start": node_facts(store, root) if root else None,
        "best": node_facts(store, best) if best else None,
        "lineage": lineage(store, nodes, best),
        "progress": progress(store, nodes),
        "edits": dict(store.db.execute("SELECT status, COUNT(*) FROM edits GROUP BY status").fetchall()),
        "splits": query.split_scores(store),
        "exit_reasons": dict(store.db.execute("SELECT exit_reason, COUNT(*) FROM rollouts GROUP BY exit_reason ORDER BY 2 DESC, 1").fetchall()),
        "spend": query.spend(store),
        "patterns": patterns(store),
        "tools": tool_use(store, root, best) if info.get("kind") == "evolve" and root and best else [],
        "reads_less": reads_less(store),
    }
    return facts


def models(store: RunStore) -> dict[str, str]:
    """Role -> the model(s) it called; the solver from the rollouts when no call was recorded (oracle, noop, cached)."""
    found: dict[str, set[str]] = {}
    for role, model in store.db.execute("SELECT DISTINCT role, model FROM llm_calls WHERE model IS NOT NULL"):
        found.setdefault(role, set()).add(model)
    if "solver" not in found:
        found["solver"] = {model for (model,) in store.db.execute("SELECT DISTINCT model FROM rollouts") if model}
    return {role: ", ".join(sorted(names)) for role, names in sorted(found.items()) if names}


def node_facts(store: RunStore, node: str) -> dict[str, Any]:
    row = store.record(Node, node) or Node(id=node)
    return {"id": node, "iteration": row.iteration, "status": row.status, "tokens_per_rollout": row.tokens_per_rollout,
            "scores": query.node_scores(store, node), "conditioning": query.conditioning(store, node)}


def lineage(store: RunStore, nodes: list[Node], best: str | None) -> list[dict[str, Any]]:
    """The accepted edits that lead from the root to the best node."""
    if not nodes or best not in {row.id for row in nodes}:
        return []
    tree = SearchTree(nodes)
    steps = []
    for node in tree.lineage(best)[1:]:
        edit = store.record(Edit, tree.node(node).get("edit_id"))
        steps.append({"node": node, "edit": edit and edit.id, "move": edit and edit.move, "pattern": edit and edit.pattern_id,
                      "rationale": edit and edit.rationale})
    return steps


def progress(store: RunStore, nodes: list[Node]) -> dict[str, Any]:
    """Best score so far at the end of each iteration, per split (train and dev are never combined): the curve of
    values, and under `scores` each point's score facts (of the node with the most rollouts among those tied best)."""
    last = max([row.id for row in store.records(Iteration)] + [style.iteration(row.iteration) for row in nodes], default=-1)
    curves: dict[str, list[float | None]] = {"train": [], "dev": []}
    points: dict[str, list[dict[str, Any] | None]] = {"train": [], "dev": []}
    for i in range(-1, last + 1):
        known = [row.model_dump() for row in nodes if style.iteration(row.iteration) <= i]
        for split in curves:
            scored = [row for row in known if row[f"{split}_score"] is not None]
            top = max(scored, key=lambda row: (row[f"{split}_score"], row[f"{split}_n"]), default=None)
            curves[split].append(top[f"{split}_score"] if top else None)
            points[split].append(query.score_facts(stats.rate_of(top[f"{split}_score"], top[f"{split}_n"])) if top else None)
    return {"iterations": last + 1, **curves, "scores": points}


def reads_less(store: RunStore) -> list[dict[str, Any]]:
    """The gated edits whose gate rollouts showed the agent reading the task less than its parent, and their fates."""
    return [{"edit": edit.id, "status": edit.status, "fell": fell} for edit in store.records(Edit, order_by="iteration, id")
            if (fell := edit.reads_less)]


def tool_use(store: RunStore, root: str, best: str) -> list[dict[str, Any]]:
    """How the agent ran each tool of the best harness in the train rollouts of the best and the starting harness: a
    tool it reaches for outside the tasks the tool was made for can cost more than it brings."""
    tools = [tool.name for tool in harness_of(store, best).tools]
    if not tools:
        return []
    rows = []
    for label, node in [("best", best)] + ([("start", root)] if root != best else []):
        rollouts = [(rollout, steps_of(store, rollout)) for rollout in store.records(Rollout, "harness_hash = ? AND split = 'train'", [node])]
        for tool in tools:
            calls = {rollout.id: [step for step in steps if step.get("action") and runs_program(step["action"], tool)]
                     for rollout, steps in rollouts}
            calling = [rollout for rollout, _ in rollouts if calls[rollout.id]]
            others = [rollout for rollout, _ in rollouts if not calls[rollout.id]]
            steps = [step for found in calls.values() for step in found]
            rows.append({"tool": tool, "harness": label, "node": node, "rollouts": len(rollouts), "calling": len(calling),
                         "tasks": len({rollout.task_id for rollout in calling}),
                         "pass_calling": pass_rate(calling), "pass_others": pass_rate(others), "calls": len(steps),
                         "calls_failed": sum(step.get("exit_code") != 0 or bool(step.get("timed_out")) for step in steps)})
    return rows


def steps_of(store: RunStore, rollout: Rollout) -> list[dict]:
    """The steps of a rollout's trajectory as stored (read without validating the whole trajectory: a view reads
    hundreds of them)."""
    relative = rollout.trajectory
    return store.read_json(relative).get("steps", []) if relative and (store.folder / relative).is_file() else []


def pass_rate(rollouts: list[Rollout]) -> dict[str, Any]:
    """The score facts of the rollouts that passed among `rollouts`."""
    return query.score_facts(stats.rate(sum(rollout.passed for rollout in rollouts), len(rollouts)))


def patterns(store: RunStore) -> dict[str, Any]:
    """Patterns per status, and the first live ones in the one order (`Pattern.order`)."""
    rows = failure_patterns(store, retired=True)
    return {
        "counts": dict(Counter(row.status.value for row in rows)),
        "shown": [row.model_dump(mode="json", include={"id", "status", "support", "description", "infra"})
                  for row in rows if row.status.live][:PATTERNS_SHOWN],
    }


def render(facts: dict[str, Any]) -> Group:
    parts: list[Any] = [heading(facts)]
    if facts["kind"] == "evolve" and (facts["start"] or facts["best"]):
        parts.append(harness_table(facts))
    if facts["lineage"]:
        parts.append(Text.assemble(("path to the best: ", "bold"), " → ".join(
            f"{step['edit']} {step.get('move') or 'proposer'} [{step['pattern'] or '-'}] {style.clip(step['rationale'], 50)}"
            for step in facts["lineage"])))
    if facts["kind"] == "evolve":
        parts.append(progress_text(facts))
    if facts.get("reads_less"):
        parts.append(Text("\n".join(f"⚠ edit {row['edit']} ({row['status'].replace('_', ' ')}): the agent reads the task less: "
                                     f"{'; '.join(row['fell'])}" for row in facts["reads_less"]), style="yellow"))
    if facts.get("tools"):
        parts.append(tools_table(facts["tools"]))
    if facts["splits"]:
        parts.append(splits_table(facts))
    if facts["spend"]:
        parts.append(spend_table(facts["spend"]))
    parts.append(patterns_text(facts["patterns"]))
    return Group(*parts)


def heading(facts: dict[str, Any]) -> Panel:
    lines = [
        f"started {style.when(facts['started'])}, ran {style.duration(facts['duration_s'])}",
        f"harness {facts['harness'] or '-'}, tasks {facts['tasks'] or '-'}" + (f" (split {facts['split']})" if facts["split"] else ""),
        "models: " + ("; ".join(f"{role} {model}" for role, model in facts["models"].items()) or "none called"),
    ]
    if facts["stop"]:
        lines.append(f"stopped because: {facts['stop']}")
    if facts["kind"] != "evolve" and facts["best"]:
        lines.append(f"evaluated harness {style.short(facts['best']['id'])}")
    if facts["quiet_s"]:
        lines.append(style.quiet_warning(facts["id"], facts["quiet_s"]))
    if facts["forked_from"]:
        lines.append(f"forked from run {facts['forked_from'].get('run')}, node {style.short(facts['forked_from'].get('node'))}")
    title = Text.assemble(f"run {facts['id']} ({facts['kind']}, ", style.status(facts["status"]), ")")
    return Panel("\n".join(lines), title=title, title_align="left")


def harness_table(facts: dict[str, Any]) -> Table:
    table = Table(title="starting vs best harness", title_justify="left")
    table.caption = "reads the task: identifiability/chance, category dependence, template share, rollouts (train)"
    table.caption_justify = "left"
    for column in ("", "node", "iteration", "train", "dev", "tokens/rollout", "reads the task"):
        table.add_column(column, justify="right" if column in ("iteration", "train", "dev", "tokens/rollout") else "left")
    same = facts["start"] and facts["best"] and facts["start"]["id"] == facts["best"]["id"]
    for label, node in [("start = best", facts["start"])] if same else [("start", facts["start"]), ("best", facts["best"])]:
        if node is None:
            continue
        scores = node["scores"]
        table.add_row(label, style.short(node["id"]), str(node["iteration"]) if style.iteration(node["iteration"]) >= 0 else "-",
                      *(style.score_of(scores[split]) if split in scores else "-" for split in ("train", "dev")),
                      "-" if node["tokens_per_rollout"] is None else f"{node['tokens_per_rollout']:,.0f}",
                      style.gauge(node["conditioning"].get("train")))
    return table


def progress_text(facts: dict[str, Any]) -> Text:
    progress, edits = facts["progress"], facts["edits"]
    text = Text(f"best score so far over {progress['iterations']} iterations (first bar: the starting harness)\n", style="bold")
    for split in ("train", "dev"):
        known = [point for point in progress["scores"][split] if point is not None]
        ends = f"{style.score_of(known[0])} → {style.score_of(known[-1])}" if known else "not scored"
        text.append(f"  {split:<5} ").append(style.sparkline(progress[split]), style="cyan").append(f"  {ends}\n")
    text.append(f"edits: {sum(edits.values())} proposed, {edits.get(EditStatus.ACCEPTED, 0)} accepted, "
                f"{edits.get(EditStatus.REJECTED_STATIC, 0)} rejected by the critic, {edits.get(EditStatus.REJECTED_EMPIRICAL, 0)} rejected by the gate, "
                f"{edits.get(EditStatus.INVALID, 0)} invalid")
    return text


def tools_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="tools of the best harness, as the agent ran them in train rollouts", title_justify="left")
    for column in ("tool", "harness", "rollouts running it", "tasks", "passed when run", "passed otherwise", "calls failed"):
        table.add_column(column, justify="left" if column in ("tool", "harness") else "right")
    for row in rows:
        failed = f"{row['calls_failed']} of {row['calls']}" if row["calls"] else "-"
        table.add_row(row["tool"], f"{row['harness']} {style.short(row['node'])}", f"{row['calling']} of {row['rollouts']}", str(row["tasks"]),
                      style.score_of(row["pass_calling"]), style.score_of(row["pass_others"]), failed)
    return table


def splits_table(facts: dict[str, Any]) -> Table:
    title = "rollouts by split" + (" (of every harness of the tree)" if facts["kind"] == "evolve" else "")
    table = Table(title=title, title_justify="left")
    for column in ("split", "rollouts", "scored", "passed", "pass rate", "infra", "mean reward", "tokens", "solver cost"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for split, row in facts["splits"].items():
        table.add_row(split, str(row["rollouts"]), str(row["scored"]), str(row["passed"]), style.score_of(row["pass_rate"]), str(row["infra"]),
                      f"{row['reward'] / row['rollouts']:.2f}" if row["rollouts"] else "-", f"{row['tokens']:,}", style.dollars(row["cost"]))
    reasons = ", ".join(f"{reason} {n}" for reason, n in facts["exit_reasons"].items())
    table.caption, table.caption_justify = f"exit reasons: {reasons}", "left"
    return table


def spend_table(spend: dict[str, dict[str, Any]]) -> Table:
    table = Table(title="spend by role", title_justify="left")
    for column in ("role", "calls", "cached", "errors", "tokens in", "tokens out", "cost"):
        table.add_column(column, justify="left" if column == "role" else "right")
    for role, row in spend.items():
        table.add_row(role, f"{row['calls']:,}", f"{row['cached']:,}", f"{row['errors']:,}", f"{row['tokens_in']:,}",
                      f"{row['tokens_out']:,}", style.dollars(row["cost"]))
    total = sum(row["cost"] or 0 for row in spend.values())
    table.add_row("total", "", "", "", "", "", style.dollars(total), style="bold")
    return table


def patterns_text(patterns: dict[str, Any]) -> Group | Text:
    counts = patterns["counts"]
    if not counts:
        return Text("no failure patterns recorded")
    line = Text("failure patterns: " + ", ".join(f"{n} {status}" for status, n in sorted(counts.items(), key=lambda item: str(item[0]))), style="bold")
    if not patterns["shown"]:
        return line
    table = Table(show_header=True, box=None, padding=(0, 1))
    for column in ("id", "status", "tasks", "description"):
        table.add_column(column, justify="right" if column == "tasks" else "left")
    for row in patterns["shown"]:
        table.add_row(row["id"], style.status(row["status"]), str(row["support"] or 0), style.clip(row["description"], 90))
    return Group(line, table)
