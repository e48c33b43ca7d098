"""Reading failures and patterns back: for the views, the CLI and the proposer."""

from collections import defaultdict
from typing import Any

from harness_evo.agent.trajectory import Trajectory
from harness_evo.failures.aggregate import pattern_number
from harness_evo.failures.digest import digest, fit
from harness_evo.store import RunStore

STATUS_ORDER = {"promoted": 0, "candidate": 1, "resolved": 2, "retired": 3}


def patterns(store: RunStore, retired: bool = False) -> list[dict[str, Any]]:
    """The patterns, promoted first, then by support (distinct tasks)."""
    rows = [row for row in store.rows("patterns") if retired or row["status"] != "retired"]
    return sorted(rows, key=lambda row: (STATUS_ORDER.get(row["status"], 9), -(row.get("support") or 0), pattern_number(row["id"])))


def load_trajectory(store: RunStore, rollout: dict[str, Any]) -> Trajectory:
    """The rollout's trajectory; when it was never written (an infrastructure failure), what the row itself says."""
    relative = rollout.get("trajectory")
    if relative and (store.folder / relative).is_file():
        return Trajectory.model_validate(store.read_json(relative))
    return Trajectory(task_id=rollout["task_id"], trial=rollout.get("trial") or 0, harness_hash=rollout.get("harness_hash") or "",
                      model=rollout.get("model") or "", exit_reason=rollout.get("exit_reason") or "infra_error",
                      error=rollout.get("error"), reward=rollout.get("reward"))


def instruction_of(trajectory: Trajectory) -> str:
    """The task as the agent saw it: the first user message."""
    return next((str(m.get("content", "")) for m in trajectory.messages if m.get("role") == "user"), "")


def pattern_evidence(store: RunStore, pattern_id: str, k: int = 3, budget: int = 2500) -> list[dict[str, Any]]:
    """Up to `k` member failures from distinct tasks, as diverse as the pattern allows, each with its digested trace.

    Members are taken in turn from each signature group (most confident first), one per task; each item holds
    the failure row plus `instruction` and `digest`, each under `budget` tokens.
    """
    members = store.rows("pattern_members", "pattern_id = ?", [pattern_id], order_by="rowid")
    failures = {row["id"]: row for row in store.rows("failures", "id IN (SELECT failure_id FROM pattern_members WHERE pattern_id = ?)", [pattern_id])}
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for member in members:
        failure = failures[member["failure_id"]]
        groups[failure["signature"]].append(failure)
    queues = [sorted(group, key=lambda f: -f["confidence"]) for group in sorted(groups.values(), key=len, reverse=True)]
    chosen, tasks = [], set()
    while len(chosen) < k and any(queues):
        for queue in queues:
            while queue and queue[0]["task_id"] in tasks:
                queue.pop(0)
            if queue and len(chosen) < k:
                failure = queue.pop(0)
                chosen.append(failure)
                tasks.add(failure["task_id"])
    evidence = []
    for failure in chosen:
        rollout = store.get("rollouts", failure["rollout_id"]) or {"task_id": failure["task_id"]}
        trajectory = load_trajectory(store, rollout)
        evidence.append({**failure, "instruction": fit(instruction_of(trajectory), budget), "digest": digest(trajectory, budget)})
    return evidence
