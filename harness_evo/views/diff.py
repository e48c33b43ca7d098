"""`harness-evo diff RUN A B`: the components that differ between two harness versions of a run, as unified diffs."""

import difflib
from typing import Any, Literal

from pydantic import BaseModel, Field
from rich.console import Group
from rich.text import Text

from harness_evo.evolve.nodes import harness_of, resolve_node
from harness_evo.store import RunStore
from harness_evo.views import style

LINE_STYLES = {"+": "green", "-": "red", "@": "cyan"}


class Change(BaseModel):
    """One component that differs, as a unified diff."""

    path: str
    change: Literal["added", "removed", "changed"]
    diff: str


class DiffFacts(BaseModel):
    """What `harness-evo diff` shows: the components that differ from node `a` to node `b`."""

    id: str
    a: str
    b: str
    changes: list[Change] = Field(default_factory=list)


def collect(store: RunStore, a: str, b: str) -> DiffFacts:
    """`a` and `b` are hash prefixes, `root` or `best`."""
    a, b = resolve_node(store, a), resolve_node(store, b)
    before, after = harness_of(store, a), harness_of(store, b)
    old, new = before.components, after.components
    changes = []
    for path in after.changed_paths(before):
        change = "added" if path not in old else "removed" if path not in new else "changed"
        diff = difflib.unified_diff(
            (old.get(path) or "").splitlines(keepends=True),
            (new.get(path) or "").splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
        changes.append(
            Change(
                path=path, change=change, diff="".join(line if line.endswith("\n") else line + "\n" for line in diff)
            )
        )
    return DiffFacts(id=store.id, a=a, b=b, changes=changes)


def render(facts: DiffFacts) -> Group:
    a, b = style.short(facts.a), style.short(facts.b)
    if not facts.changes:
        return Group(Text(f"{a} and {b} have the same components"))
    counts = {change: sum(c.change == change for c in facts.changes) for change in ("changed", "added", "removed")}
    parts: list[Any] = [
        Text(f"{a} → {b}: " + ", ".join(f"{n} {change}" for change, n in counts.items() if n), style="bold")
    ]
    for change in facts.changes:
        parts.append(
            Text(f"{change.change:>8} {change.path}", style=LINE_STYLES["-" if change.change == "removed" else "+"])
        )
    for change in facts.changes:
        text = Text()
        for line in change.diff.splitlines(keepends=True):
            text.append(line, style="bold" if line.startswith(("+++", "---")) else LINE_STYLES.get(line[:1], ""))
        parts += [Text(""), text]
    return Group(*parts)
