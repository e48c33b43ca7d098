"""Which tasks are alike, from their metadata: the tasks a pattern arm adds to its members' minibatch."""

from collections import defaultdict
from collections.abc import Iterable

from harness_evo.curriculum.base import Similar
from harness_evo.taskset import Task


def similar_by_metadata(tasks: Iterable[Task]) -> Similar:
    """Tasks of the same category or with a tag in common are alike."""
    by_key: dict[str, set[str]] = defaultdict(set)
    keys: dict[str, list[str]] = {}
    for task in tasks:
        keys[task.id] = [f"category:{task.category}", *(f"tag:{tag}" for tag in task.tags)]
        for key in keys[task.id]:
            by_key[key].add(task.id)

    def similar(task_id: str) -> list[str]:
        alike = set().union(*(by_key[key] for key in keys.get(task_id, ())))
        return sorted(alike - {task_id})

    return similar
