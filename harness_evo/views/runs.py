"""`harness-evo runs`: every run under a folder, newest first."""

from pathlib import Path
from typing import Any

from rich.table import Table

from harness_evo.evolve.nodes import best_node
from harness_evo.store import RunStore
from harness_evo.views import query, style


def collect(runs_dir: Path) -> list[dict[str, Any]]:
    """One summary per run folder (a folder with a run.db) under `runs_dir`."""
    found = []
    folders = sorted(path for path in Path(runs_dir).iterdir() if (path / "run.db").is_file()) if Path(runs_dir).is_dir() else []
    for folder in folders:
        store = RunStore(folder)
        try:
            found.append(summary(store))
        finally:
            store.close()
    return sorted(found, key=lambda run: run["started"] or 0, reverse=True)


def summary(store: RunStore) -> dict[str, Any]:
    info = store.info
    best = best_node(store)
    scores = query.node_scores(store, best) if best else {}
    other = next(iter(scores.items()), None) if info.get("kind") != "evolve" and "dev" not in scores else None
    return {
        **query.run_facts(store),
        "best_node": best, "best_dev": scores.get("dev") or query.score_facts(None),
        "other_split": {"split": other[0], **other[1]} if other else None,
        "spend": sum(role["cost"] or 0 for role in query.spend(store).values()),
        "harness": info.get("harness"),
    }


def render(runs: list[dict[str, Any]], runs_dir: Path) -> Table | str:
    if not runs:
        return f"no runs in {runs_dir} (start one with `harness-evo eval` or `harness-evo evolve`)"
    table = Table(title=f"runs in {runs_dir}", title_justify="left")
    for column, justify in [("id", "left"), ("kind", "left"), ("status", "left"), ("started", "left"), ("duration", "right"),
                            ("best dev", "right"), ("spend", "right"), ("harness", "left")]:
        table.add_column(column, justify=justify, no_wrap=column == "id")
    for run in runs:
        dev = style.score_of(run["best_dev"])
        if run["other_split"]:
            other = run["other_split"]
            dev = f"[dim]- ({other['split']} {style.score_of(other)})[/dim]"
        status = style.status(run["status"])
        if run["quiet_s"]:
            status.append(f"? (quiet {style.duration(run['quiet_s'])})", style="dim")
        table.add_row(run["id"], run["kind"] or "?", status, style.when(run["started"]),
                      style.duration(run["duration_s"]), dev, style.dollars(run["spend"]), run["harness"] or "")
    return table
