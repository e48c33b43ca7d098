"""Questions the views (and `export`) ask of a run folder: its scores, the spend, where a node comes from (which node a
name means is `evolve/nodes.py`).

Only `run.db` and the snapshots beside it are read; never a model, never the task suite.
"""

import time
from typing import Any

from harness_evo import stats
from harness_evo.harness.formats import Origin
from harness_evo.store import Node, Rollout, RunStatus, RunStore
from harness_evo.store.conditioning import NodeGauge
from harness_evo.views import style

SPLITS = ("train", "dev", "test")
QUIET_S = 600
"""A running run with no event for this long has probably lost its process (killed, machine rebooted)."""


def count_where(store: RunStore, table: str, where: str = "1", params: list | None = None) -> int:
    if table not in store.db.table_names():
        return 0
    return store.db.execute(f"SELECT COUNT(*) FROM [{table}] WHERE {where}", params or []).fetchone()[0]


def run_facts(store: RunStore) -> dict[str, Any]:
    """What every view says of a run first: id, kind, status, start, end, wall time, and how long it has been quiet."""
    info = store.info
    quiet = quiet_for(store)
    return {"id": store.id, "kind": info.get("kind"), "status": info.get("status"), "started": info.get("started"),
            "finished": info.get("finished"), "duration_s": style.run_duration(info, quiet), "quiet_s": quiet}


def quiet_for(store: RunStore) -> float | None:
    """Seconds since the last event of a run that says it is running, when that is long enough to doubt it (None otherwise)."""
    if store.info.get("status") != RunStatus.RUNNING:
        return None
    last = store.db.execute("SELECT MAX(ts) FROM events").fetchone()[0]
    quiet = time.time() - (last or 0)
    return quiet if quiet > QUIET_S else None


def scores(store: RunStore, node: str) -> dict[str, tuple[float | None, int]]:
    """Split -> (pass rate, rollouts) of a node: the tree's own numbers, else its rollouts that say something about the harness."""
    row = store.record(Node, node)
    if row is not None:
        return {split: (score, n) for split, score, n in (("train", row.train_score, row.train_n), ("dev", row.dev_score, row.dev_n)) if n}
    return {split: (score["pass_rate"]["score"], score["scored"]) for split, score in split_scores(store, "harness_hash = ?", [node]).items()}


def node_scores(store: RunStore, node: str) -> dict[str, dict[str, Any]]:
    """Split -> the score facts (`score_facts`) of a node."""
    return {split: score_facts(stats.rate_of(value, n)) for split, (value, n) in scores(store, node).items()}


def conditioning(store: RunStore, node: str) -> dict[str, dict[str, Any]]:
    """Split -> the input-conditioning gauge of a node as the loop last recorded it (`failures/conditioning.py`)."""
    return {gauge.split: gauge.model_dump(mode="json") for gauge in store.records(NodeGauge, "node_id = ?", [node])}


def score_facts(found: stats.Rate | None) -> dict[str, Any]:
    """A pass rate as every view's facts give it (`Rate.facts`); nothing scored when `found` is None."""
    return (found or stats.rate(0, 0)).facts()


def split_scores(store: RunStore, where: str | None = None, params: list | None = None) -> dict[str, dict[str, Any]]:
    """Per split: rollouts, scored (`Rollout.scored`), passed, infra, reward sum, tokens, cost and the pass rate of the
    scored rollouts (`score_facts`)."""
    found: dict[str, dict[str, Any]] = {}
    for row in store.records(Rollout, where, params):
        counts = found.setdefault(row.split, dict.fromkeys(("rollouts", "scored", "passed", "infra", "reward", "tokens", "cost"), 0))
        counts["rollouts"] += 1
        counts["scored"] += row.scored
        counts["passed"] += row.scored and row.passed
        counts["infra"] += row.infra
        counts["reward"] += row.reward or 0
        counts["tokens"] += row.tokens
        counts["cost"] += row.cost
    for row in found.values():
        row["pass_rate"] = score_facts(stats.rate(row["passed"], row["scored"]))
    return {split: found[split] for split in sorted(found, key=lambda s: (SPLITS + (s,)).index(s))}


def spend(store: RunStore) -> dict[str, dict[str, Any]]:
    """Per role: calls, cache hits, errors, tokens in and out, dollars."""
    query = """SELECT role, COUNT(*) AS calls, SUM(COALESCE(cache_hit, 0)) AS cached, SUM(error IS NOT NULL) AS errors,
                      SUM(COALESCE(tokens_in, 0)) AS tokens_in, SUM(COALESCE(tokens_out, 0)) AS tokens_out,
                      SUM(COALESCE(cost, 0)) AS cost
               FROM llm_calls GROUP BY role ORDER BY role"""
    return {row.pop("role"): row for row in store.db.query(query)}


def origin(store: RunStore, node: str) -> Origin:
    """Where a node's harness comes from, for EXPORT.md."""
    info = store.info
    row = store.record(Node, node)
    status = (row and row.status) or ("evaluated" if node == info.get("harness_hash") else None)
    return Origin(run=store.id, kind=info.get("kind"), node=node, status=status,
                  iteration=row and row.iteration, scores=scores(store, node))
