"""`harness-evo patterns`: a run's failure patterns, or one pattern with the evidence of its members."""

import time

from pydantic import Field
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness_evo.errors import UserError
from harness_evo.failures import Evidence, pattern_evidence, patterns
from harness_evo.store import Pattern, RunStore
from harness_evo.views import style


class PatternFacts(Pattern):
    """A pattern with the evidence of its members: failures from distinct tasks, each with its digested trace."""

    evidence: list[Evidence] = Field(default_factory=list)


def collect_all(store: RunStore) -> list[Pattern]:
    """The run's live patterns in the one order (`Pattern.order`)."""
    return patterns(store)


def collect_one(store: RunStore, pattern: str, evidence: int = 3) -> PatternFacts:
    """One pattern with up to `evidence` member traces from distinct tasks."""
    row = store.record(Pattern, pattern)
    if row is None:
        raise UserError(f"no pattern {pattern!r} in run {store.id}; `harness-evo patterns {store.id}` lists them")
    return PatternFacts(**row.model_dump(), evidence=pattern_evidence(store, pattern, k=evidence))


def render_all(rows: list[Pattern], run_id: str) -> Table | str:
    if not rows:
        return "no failure patterns yet (`harness-evo analyze RUN` explains an eval run's failures)"
    table = Table(title=f"failure patterns of {run_id}")
    for column in ("id", "support", "status", "harness blame", "last seen"):
        table.add_column(column, no_wrap=True)
    table.add_column("description", ratio=1)
    for row in rows:
        status = "infra (reported)" if row.infra else row.status
        last = time.strftime("%m-%d %H:%M", time.localtime(row.last_seen)) if row.last_seen else ""
        table.add_row(row.id, str(row.support), status, f"{row.harness_blame:.0%}", last, row.description)
    return table


def render_one(facts: PatternFacts) -> Group:
    head = Panel(
        Text(
            f"{facts.description}\nsupport {style.plural(facts.support, 'task')} ({', '.join(facts.task_ids)}), "
            f"{style.plural(facts.members, 'failure')}, {facts.harness_blame:.0%} blamed on the harness, "
            f"status {facts.status}"
        ),
        title=f"{facts.id} {facts.category}",
    )
    members = [
        Panel(
            Text.assemble(
                (item.root_cause or "", "bold"),
                f"\nstep {item.critical_step}, blame {item.blame}: {item.evidence}\n\n{item.digest}",
            ),
            title=Text(f"{item.task_id} (rollout {item.rollout_id[:12]})"),
        )
        for item in facts.evidence
    ]
    return Group(head, *members)
