"""`harness-evo tasks DIR`: a suite's tasks, their splits and categories, and the task folders that were skipped."""

from collections import Counter
from typing import Any

from pydantic import BaseModel, Field
from rich.console import Group
from rich.table import Table
from rich.text import Text

from harness_evo.taskset import Suite
from harness_evo.views import style


class TaskLine(BaseModel):
    id: str
    split: str
    category: str
    difficulty: str
    tags: list[str] = Field(default_factory=list)


class SuiteFacts(BaseModel):
    """What `harness-evo tasks` shows of a suite."""

    folder: str
    name: str
    tasks: list[TaskLine] = Field(default_factory=list)
    splits: dict[str, int] = Field(default_factory=dict)
    """Tasks per split."""
    categories: dict[str, int] = Field(default_factory=dict)
    """Tasks (of those shown) per category."""
    skipped: dict[str, str] = Field(default_factory=dict)
    """Task folders that could not be loaded, and why."""


def collect(suite: Suite, split: str | None = None) -> SuiteFacts:
    """The suite's tasks (of `split`, or all), each with its split, category and difficulty; the skipped folders."""
    tasks = suite.split(split) if split else list(suite.tasks.values())
    rows = [
        TaskLine(
            id=task.id,
            split=suite.split_of(task.id),
            category=task.category,
            difficulty=task.difficulty,
            tags=task.tags,
        )
        for task in sorted(tasks, key=lambda task: task.id)
    ]
    return SuiteFacts(
        folder=str(suite.folder),
        name=suite.name,
        tasks=rows,
        splits={name: len(ids) for name, ids in suite.splits.items()},
        categories=dict(sorted(Counter(row.category for row in rows).items())),
        skipped=suite.skipped,
    )


def skipped_line(skipped: dict[str, str]) -> str:
    """One line naming the task folders that could not be loaded and why (the first few)."""
    shown = "; ".join(f"{name}: {why}" for name, why in list(skipped.items())[:3])
    more = f" (and {len(skipped) - 3} more; `harness-evo tasks DIR` lists them)" if len(skipped) > 3 else ""
    return f"skipped {len(skipped)} task folder(s) that could not be loaded: {shown}{more}"


def render(facts: SuiteFacts) -> Group:
    title = f"suite {facts.name} ({facts.folder}): {style.plural(len(facts.tasks), 'task')}"
    table = Table(title=title, title_justify="left")
    for column in ("task", "split", "category", "difficulty", "tags"):
        table.add_column(column, no_wrap=column in ("task", "split", "difficulty"), overflow="fold")
    for row in facts.tasks:
        table.add_row(row.id, row.split, row.category, row.difficulty, ", ".join(row.tags))
    splits = ", ".join(f"{name} {n}" for name, n in facts.splits.items())
    parts: list[Any] = [table, Text(f"splits: {splits}; categories: {len(facts.categories)}")]
    if facts.skipped:
        parts.append(Text(skipped_line(facts.skipped), style="yellow"))
        parts += [Text(f"  {name}: {why}", style="yellow") for name, why in facts.skipped.items()]
    return Group(*parts)
