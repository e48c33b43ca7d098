"""Questions the views (and `export`) ask of a run folder: its scores, the spend, where a node comes from (which node a
name means is `evolve/nodes.py`), as the typed facts the views show and `--json` prints.

Only `run.db` and the snapshots beside it are read (through the store's methods); never a model, never the task suite.
"""

import time
from typing import Any

from pydantic import BaseModel

from harness_evo import stats
from harness_evo.harness.formats import Origin
from harness_evo.stats import Score
from harness_evo.store import Node, Rollout, RunStatus, RunStore, Spend
from harness_evo.store.gauge import NodeGauge
from harness_evo.views import style

SPLITS = ("train", "dev", "test")
QUIET_S = 600
"""A running run with no event for this long has probably lost its process (killed, machine rebooted)."""


class RunFacts(BaseModel):
    """What every view says of a run first."""

    id: str
    kind: str | None = None
    status: str | None = None
    started: float | None = None
    finished: float | None = None
    duration_s: float | None = None
    quiet_s: float | None = None
    """Seconds since the last event of a run that says it is running, when that is long enough to doubt it."""


class SplitCounts(BaseModel):
    """A split's rollouts, summed up."""

    rollouts: int = 0
    scored: int = 0
    """Rollouts that say something about the harness (`Rollout.scored`)."""
    passed: int = 0
    infra: int = 0
    reward: float = 0.0
    tokens: int = 0
    cost: float = 0.0
    pass_rate: Score = Score()
    """Of the scored rollouts."""


def run_facts(store: RunStore) -> RunFacts:
    """What every view says of a run first: id, kind, status, start, end, wall time, and how long it has been quiet."""
    info = store.info
    quiet = quiet_for(store)
    return RunFacts(
        id=store.id,
        kind=info.kind,
        status=info.status,
        started=info.started,
        finished=info.finished,
        duration_s=style.run_duration(info, quiet),
        quiet_s=quiet,
    )


def quiet_for(store: RunStore) -> float | None:
    """Seconds since the last event of a run that says it is running,
    when that is long enough to doubt it (None otherwise)."""
    if store.info.status != RunStatus.RUNNING:
        return None
    _, last = store.last_event()
    quiet = time.time() - last
    return quiet if quiet > QUIET_S else None


def scores(store: RunStore, node: str) -> dict[str, tuple[float | None, int]]:
    """Split -> (pass rate, rollouts) of a node: the tree's own numbers,
    else its rollouts that say something about the harness."""
    row = store.record(Node, node)
    if row is not None:
        return {
            split: (score, n)
            for split, score, n in (("train", row.train_score, row.train_n), ("dev", row.dev_score, row.dev_n))
            if n
        }
    return {
        split: (counts.pass_rate.score, counts.scored)
        for split, counts in split_scores(store, harness_hash=node).items()
    }


def node_scores(store: RunStore, node: str) -> dict[str, Score]:
    """Split -> the pass rate of a node."""
    return {split: score_facts(stats.rate_of(value, n)) for split, (value, n) in scores(store, node).items()}


def conditioning(store: RunStore, node: str) -> dict[str, NodeGauge]:
    """Split -> the input-conditioning gauge of a node as the loop last recorded it (`failures/gauge.py`)."""
    return {gauge.split: gauge for gauge in store.records(NodeGauge, node_id=node)}


def score_facts(found: stats.Rate | None) -> Score:
    """A pass rate as every view's facts give it (`Rate.facts`); nothing scored when `found` is None."""
    return (found or stats.rate(0, 0)).facts()


def split_scores(store: RunStore, **equal: Any) -> dict[str, SplitCounts]:
    """Per split, the rollouts that match `equal` (fields of `Rollout`) summed up, train, dev and test first."""
    found: dict[str, SplitCounts] = {}
    for row in store.records(Rollout, **equal):
        counts = found.setdefault(row.split, SplitCounts())
        counts.rollouts += 1
        counts.scored += row.scored
        counts.passed += row.scored and row.passed
        counts.infra += row.infra
        counts.reward += row.reward or 0
        counts.tokens += row.tokens
        counts.cost += row.cost
    for counts in found.values():
        counts.pass_rate = score_facts(stats.rate(counts.passed, counts.scored))
    return {split: found[split] for split in sorted(found, key=lambda s: (SPLITS + (s,)).index(s))}


def spend(store: RunStore) -> dict[str, Spend]:
    """Per role: calls, cache hits, errors, tokens in and out, dollars."""
    return store.spend()


def origin(store: RunStore, node: str) -> Origin:
    """Where a node's harness comes from, for EXPORT.md."""
    info = store.info
    row = store.record(Node, node)
    status = (row and row.status) or ("evaluated" if node == info.harness_hash else None)
    return Origin(
        run=store.id,
        kind=info.kind,
        node=node,
        status=status,
        iteration=row and row.iteration,
        scores=scores(store, node),
    )
