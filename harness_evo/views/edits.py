"""`harness-evo edits RUN [EDIT]`: the ledger of every proposed edit, its pattern,
the critic's reasons and the gate's counts."""

from typing import Any

from pydantic import BaseModel, Field
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness_evo.errors import UserError
from harness_evo.store import Edit, EditStatus, GateResult, Pattern, RunStore
from harness_evo.views import style


class EditFacts(Edit):
    """An edit of the ledger, with the description of the pattern it was proposed against."""

    pattern: str | None = None


class EditsFacts(BaseModel):
    """What `harness-evo edits` lists."""

    id: str
    edits: list[EditFacts] = Field(default_factory=list)
    total: int = 0
    """Edits that match the filters (of which `edits` are the latest shown)."""


def collect(
    store: RunStore, status: str | None = None, pattern: str | None = None, last: int | None = None
) -> EditsFacts:
    """The edits in the order they were proposed, filtered; with `last`, only that many of the latest."""
    edits = [
        edit
        for edit in store.records(Edit, order_by="iteration, revision, id")
        if (status is None or edit.status == status) and (pattern is None or edit.pattern_id == pattern)
    ]
    descriptions = {row.id: row.description for row in store.records(Pattern)}
    rows = [EditFacts(**edit.model_dump(), pattern=descriptions.get(edit.pattern_id)) for edit in edits]
    return EditsFacts(id=store.id, edits=rows[-last:] if last else rows, total=len(rows))


def one(store: RunStore, edit_id: str) -> EditFacts:
    """One edit, by its id or a unique prefix of it."""
    edits = collect(store).edits
    rows = [row for row in edits if row.id == edit_id] or [row for row in edits if row.id.startswith(edit_id)]
    if len(rows) != 1:
        raise UserError(
            f"{'no edit' if not rows else f'{len(rows)} edits'} named {edit_id!r} in run {store.id}; `harness-evo "
            f"edits {store.id}` lists them"
        )
    return rows[0]


def gate_counts(gate: GateResult | None) -> str:
    if not gate:
        return "-"
    p = f" p={gate.p_value:.3f}" if gate.p_value is not None else ""
    return f"+{gate.fixed} −{gate.broken} ={gate.ties}{p}"


MANY_FILES = 3
"""More operations than this of one kind in one folder (a harvest writes an example per task) are told as a count."""


def ops_summary(ops: list[dict] | None) -> str:
    """`write prompts/system.md.j2, write 21 files in examples/`: each operation, or a count per kind and folder."""
    groups: dict[tuple[str, str], list[str]] = {}
    for op in ops or []:
        path = str(op.get("path"))
        groups.setdefault((str(op.get("op")), path.rpartition("/")[0]), []).append(path)
    told = [
        f"{op} {len(paths)} files in {folder}/"
        if folder and len(paths) > MANY_FILES
        else ", ".join(f"{op} {path}" for path in paths)
        for (op, folder), paths in groups.items()
    ]
    return ", ".join(told) or "-"


def render(facts: EditsFacts) -> Table | str:
    if not facts.edits:
        return f"no edits in run {facts.id} (match the filters, if any)"
    table = Table(title=f"edits of {facts.id} (gate: +fixed −broken =ties over paired rollouts)", title_justify="left")
    if facts.total > len(facts.edits):
        table.caption = (
            f"the last {len(facts.edits)} of {facts.total} edits; --last 0 shows them all, --status and --pattern "
            "filter them"
        )
        table.caption_justify = "left"
    for column in ("id", "it", "move", "pattern", "status", "changes", "rationale", "critic / gate"):
        table.add_column(
            column,
            justify="right" if column == "it" else "left",
            no_wrap=column in ("id", "status"),
            ratio=3 if column in ("rationale", "critic / gate") else None,
        )
    for row in facts.edits:
        verdict = Text(gate_counts(row.gate) + "  ", style="bold") if row.gate else Text()
        if row.gate:
            verdict.append(style.clip(row.gate.reason, 80))
        elif row.reasons:
            verdict.append("; ".join(style.clip(reason, 80) for reason in row.reasons[:2]))
        table.add_row(
            row.id,
            str(row.iteration),
            row.move,
            row.pattern_id or "-",
            style.status(row.status),
            ops_summary(row.ops),
            style.clip(row.rationale, 120),
            verdict,
        )
    return table


def render_one(edit: EditFacts) -> Group:
    lines = Text()
    if edit.pattern_id:
        lines.append(f"pattern {edit.pattern_id}: ", style="bold").append(f"{edit.pattern or '-'}\n")
    else:
        lines.append("pattern ", style="bold").append("none: an edit for every task\n")
    lines.append("move ", style="bold").append(
        edit.move + (f" of {', '.join(edit.sources)}" if edit.sources else "") + "\n"
    )
    lines.append("status ", style="bold").append(style.status(edit.status)).append(
        f"  (iteration {edit.iteration}, critic round {edit.revision}, parent {style.short(edit.parent_id)}, child "
        f"{style.short(edit.child_id)})\n"
    )
    lines.append("rationale: ", style="bold").append(f"{edit.rationale or '-'}\n")
    lines.append("prediction: ", style="bold").append(f"{edit.prediction or '-'}\n")
    for reason in edit.reasons if edit.status != EditStatus.SCREENED else []:
        lines.append("critic: ", style="bold red" if edit.status == EditStatus.REJECTED_STATIC else "bold").append(
            f"{reason}\n"
        )
    if edit.screen:
        seen = edit.screen
        fate = "dropped" if seen.dropped else "passed on to the gate"
        lines.append("screen: ", style="bold red" if seen.dropped else "bold").append(
            f"{seen.verdict}: {seen.sentence()}" + (f" ({', '.join(seen.tasks)})" if seen.tasks else "") + f"; {fate}\n"
        )
    gate = edit.gate
    if gate:
        lines.append("gate: ", style="bold").append(
            f"{gate_counts(gate)} over {gate.pairs} pairs on {', '.join(gate.tasks) or '?'}: {gate.reason}\n"
        )
    if gate and gate.evidence:
        found = gate.evidence
        raced = f", raced with {found.raced - 1} other{'s' * (found.raced > 2)}" if found.raced > 1 else ""
        lines.append("evidence: ", style="bold").append(
            f"stopped {found.stop} after {found.looks} looks at alpha {gate.alpha:g}{raced}; {gate.rollouts} child "
            f"rollouts, {found.parent_rollouts} fresh parent rollouts in the decision\n"
        )
        for choice in found.choices:
            lines.append(f"  look {choice.look}: {choice.task} trial {choice.trial}: {choice.reason}\n")
    lines.rstrip()
    parts: list[Any] = [Panel(lines, title=f"edit {edit.id}", title_align="left")]
    for op in edit.ops:
        parts.append(op_panel(op))
    return Group(*parts)


def op_panel(op: dict[str, Any]) -> Panel:
    body = Text()
    if op.get("op") == "replace":
        body.append("".join(f"- {line}\n" for line in str(op.get("old", "")).splitlines()), style="red")
        body.append("".join(f"+ {line}\n" for line in str(op.get("new", "")).splitlines()), style="green")
    elif op.get("op") == "write":
        body.append(str(op.get("text", "")), style="green")
    else:
        body.append("(the component is removed)", style="red")
    body.rstrip()
    return Panel(body, title=f"{op.get('op')} {op.get('path')}", title_align="left")
