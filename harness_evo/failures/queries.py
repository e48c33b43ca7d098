"""Reading failures and patterns back: for the views, the CLI and the proposer."""

from collections import defaultdict

from harness_evo.agent.trajectory import Trajectory
from harness_evo.failures.digest import digest, fit
from harness_evo.store import Failure, Pattern, PatternMember, Rollout, RunStore


def patterns(store: RunStore, retired: bool = False) -> list[Pattern]:
    """The patterns in their one order (`Pattern.order`: promoted first, then by support)."""
    rows = [row for row in store.records(Pattern) if retired or row.status.live]
    return sorted(rows, key=lambda row: row.order)


def load_trajectory(store: RunStore, rollout: Rollout) -> Trajectory:
    """The rollout's trajectory; when it was never written (an infrastructure failure), what the row itself says."""
    if rollout.trajectory and (store.folder / rollout.trajectory).is_file():
        return Trajectory.model_validate(store.read_json(rollout.trajectory))
    return Trajectory(
        task_id=rollout.task_id,
        trial=rollout.trial,
        harness_hash=rollout.harness_hash or "",
        model=rollout.model or "",
        exit_reason=rollout.exit_reason or "infra_error",
        error=rollout.error,
        reward=rollout.reward,
    )


def instruction_of(trajectory: Trajectory) -> str:
    """The task as the agent saw it: the first user message."""
    return next((str(m.get("content", "")) for m in trajectory.messages if m.get("role") == "user"), "")


class Evidence(Failure):
    """A member failure shown as evidence of its pattern: the failure row, the task as the agent saw it, its run."""

    instruction: str = ""
    """The task's instruction (the first user message), cut to the token budget."""
    digest: str = ""
    """The digested trajectory (`failures/digest.py`), within the token budget."""


def pattern_evidence(store: RunStore, pattern_id: str, k: int = 3, budget: int = 2500) -> list[Evidence]:
    """Up to `k` member failures from distinct tasks, as diverse as the pattern allows, each with its digested trace.

    Members are taken in turn from each signature group (most confident first), one per task; each item's
    `instruction` and `digest` are under `budget` tokens.
    """
    members = store.records(PatternMember, order_by="rowid", pattern_id=pattern_id)
    failures = {row.id: row for row in store.records(Failure, id=[member.failure_id for member in members])}
    groups: dict[str | None, list[Failure]] = defaultdict(list)
    for member in members:
        failure = failures[member.failure_id]
        groups[failure.signature].append(failure)
    queues = [
        sorted(group, key=lambda f: -(f.confidence or 0.0)) for group in sorted(groups.values(), key=len, reverse=True)
    ]
    chosen, tasks = [], set()
    while len(chosen) < k and any(queues):
        for queue in queues:
            while queue and queue[0].task_id in tasks:
                queue.pop(0)
            if queue and len(chosen) < k:
                failure = queue.pop(0)
                chosen.append(failure)
                tasks.add(failure.task_id)
    evidence = []
    for failure in chosen:
        rollout = store.record(Rollout, failure.rollout_id) or Rollout(
            id=failure.rollout_id, task_id=failure.task_id, split=failure.split, trial=0
        )
        trajectory = load_trajectory(store, rollout)
        evidence.append(
            Evidence(
                **failure.model_dump(),
                instruction=fit(instruction_of(trajectory), budget),
                digest=digest(trajectory, budget),
            )
        )
    return evidence
