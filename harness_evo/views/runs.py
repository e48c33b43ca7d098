"""`harness-evo runs`: every run under a folder, newest first."""

import re
from pathlib import Path

from rich.table import Table

from harness_evo.evolve import nodes as run_nodes
from harness_evo.stats import Score
from harness_evo.store import RunStore
from harness_evo.views import query, style
from harness_evo.views.query import RunFacts


class SplitScore(Score):
    """A pass rate and the split it is of."""

    split: str


class RunLine(RunFacts):
    """One run as `harness-evo runs` lists it."""

    best_node: str | None = None
    best_dev: Score = Score()
    other_split: SplitScore | None = None
    """For a run with no dev score (an eval of another split), the score it has."""
    spend: float = 0.0
    """Dollars."""
    harness: str | None = None


def collect(runs_dir: Path) -> list[RunLine]:
    """One line per run folder (a folder with a run.db) under `runs_dir`, newest first."""
    found = []
    for folder in RunStore.folders(runs_dir):
        store = RunStore(folder)
        try:
            found.append(line(store))
        finally:
            store.close()
    return sorted(found, key=lambda run: run.started or 0, reverse=True)


def line(store: RunStore) -> RunLine:
    info = store.info
    best = run_nodes.best(store)
    scores = query.node_scores(store, best) if best else {}
    other = next(iter(scores.items()), None) if info.kind != "evolve" and "dev" not in scores else None
    return RunLine(
        **query.run_facts(store).model_dump(),
        best_node=best,
        best_dev=scores.get("dev") or query.score_facts(None),
        other_split=SplitScore(split=other[0], **other[1].model_dump()) if other else None,
        spend=sum(role.cost for role in query.spend(store).values()),
        harness=info.harness,
    )


def render(runs: list[RunLine], runs_dir: Path) -> Table | str:
    """The runs as a table. The kind and the start are left out when every run's id is the one a run gets (its kind,
    then when it started, as in `evolve-20261205-213835-9413`), and the spend when nothing was spent (the embedded
    models cost nothing), so the table fits a narrower terminal."""
    if not runs:
        return f"no runs in {runs_dir} (start one with `harness-evo eval` or `harness-evo evolve`)"
    table = Table(title=f"runs in {runs_dir}", title_justify="left")
    named = all(re.fullmatch(rf"{re.escape(run.kind or '?')}-\d{{8}}-\d{{6}}-[0-9a-f]{{4}}", run.id) for run in runs)
    columns = {
        "id": True,
        "kind": not named,
        "status": True,
        "started": not named,
        "duration": True,
        "best dev": True,
        "spend": any(run.spend for run in runs),
        "harness": True,
    }
    for column, shown in columns.items():
        if shown:
            table.add_column(
                column,
                justify="right" if column in ("duration", "best dev", "spend") else "left",
                no_wrap=column in ("id", "status", "started", "duration", "spend"),
                overflow="fold",
            )
    for run in runs:
        dev = style.score_of(run.best_dev)
        if run.other_split:
            dev = f"[dim]- ({run.other_split.split} {style.score_of(run.other_split)})[/dim]"
        status = style.status(run.status)
        if run.quiet_s:
            status.append(f"? (quiet {style.duration(run.quiet_s)})", style="dim")
        cells = {
            "id": run.id,
            "kind": run.kind or "?",
            "status": status,
            "started": style.when(run.started),
            "duration": style.duration(run.duration_s),
            "best dev": dev,
            "spend": style.dollars(run.spend),
            "harness": run.harness or "",
        }
        table.add_row(*(cells[column] for column, shown in columns.items() if shown))
    return table
