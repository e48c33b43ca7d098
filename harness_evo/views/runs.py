"""`harness-evo runs`: every run under a folder, newest first."""

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
    if not runs:
        return f"no runs in {runs_dir} (start one with `harness-evo eval` or `harness-evo evolve`)"
    table = Table(title=f"runs in {runs_dir}", title_justify="left")
    for column, justify in [
        ("id", "left"),
        ("kind", "left"),
        ("status", "left"),
        ("started", "left"),
        ("duration", "right"),
        ("best dev", "right"),
        ("spend", "right"),
        ("harness", "left"),
    ]:
        table.add_column(column, justify=justify, no_wrap=column == "id")
    for run in runs:
        dev = style.score_of(run.best_dev)
        if run.other_split:
            dev = f"[dim]- ({run.other_split.split} {style.score_of(run.other_split)})[/dim]"
        status = style.status(run.status)
        if run.quiet_s:
            status.append(f"? (quiet {style.duration(run.quiet_s)})", style="dim")
        table.add_row(
            run.id,
            run.kind or "?",
            status,
            style.when(run.started),
            style.duration(run.duration_s),
            dev,
            style.dollars(run.spend),
            run.harness or "",
        )
    return table
