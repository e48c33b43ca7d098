"""`harness-evo edits RUN [EDIT]`: the ledger of every proposed edit, its pattern,
the critic's reasons and the gate's counts."""

from typing import Any

from pydantic import BaseModel, Field
from rich.console import Console, ConsoleOptions, Group, RenderResult
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


class Ledger:
    """The ledger fitted to the terminal it is printed on."""

    def __init__(self, facts: EditsFacts):
        self.facts = facts

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield table(self.facts) if options.max_width >= style.WIDE else lines(self.facts)


def render(facts: EditsFacts) -> Ledger | str:
    if not facts.edits:
        return f"no edits in run {facts.id} (match the filters, if any)"
    return Ledger(facts)


def fate(row: Edit) -> Text:
    """The edit's status; `interrupted` for one whose gate the run's stop cut short."""
    return style.status(row.status) if not row.interrupted else Text("interrupted", style="yellow")


def verdict(row: EditFacts, short: bool = False) -> Text:
    """The gate's counts and reason, or the critic's first reasons (with `short`, each reason's first clause)."""
    text = Text(gate_counts(row.gate) + "  ", style="bold") if row.gate else Text()
    reasons = [row.gate.reason] if row.gate else row.reasons[:2]
    return text.append("; ".join(style.clip(headline(reason) if short else reason, 80) for reason in reasons))


def caption(facts: EditsFacts) -> str | None:
    if facts.total > len(facts.edits):
        return (
            f"the last {len(facts.edits)} of {facts.total} edits; --last 0 shows them all, --status and --pattern "
            "filter them"
        )
    return None


def table(facts: EditsFacts) -> Table:
    grid = Table(title=f"edits of {facts.id} (gate: +fixed −broken =ties over paired rollouts)", title_justify="left")
    grid.caption, grid.caption_justify = caption(facts), "left"
    for column in ("id", "it", "move", "pattern", "status", "changes", "rationale", "critic / gate"):
        grid.add_column(
            column,
            justify="right" if column == "it" else "left",
            no_wrap=column in ("id", "status"),
            ratio=3 if column in ("rationale", "critic / gate") else None,
        )
    for row in facts.edits:
        grid.add_row(
            row.id,
            str(row.iteration),
            row.move,
            row.pattern_id or "-",
            fate(row),
            ops_summary(row.ops),
            style.clip(row.rationale, 120),
            verdict(row),
        )
    return grid


def lines(facts: EditsFacts) -> Group:
    """Each edit as its id, iteration, move, pattern and status; its rationale; its verdict's first clause."""
    shown: list[Text | str] = [Text(f"edits of {facts.id} (gate: +fixed −broken =ties over paired rollouts)")]
    for row in facts.edits:
        head = Text(f"{row.id}", style="bold").append(f"  iteration {row.iteration}  {row.move}  ")
        head.append(f"pattern {row.pattern_id or '-'}  ").append_text(fate(row))
        shown += [head, Text("  " + style.clip(row.rationale, 110)), Text("  ").append_text(verdict(row, short=True))]
    notes = [note for note in (caption(facts), f"each edit whole: `harness-evo edits {facts.id} ID`") if note]
    return Group(*shown, *(Text(note, style="dim") for note in notes))


def headline(reason: str) -> str:
    """A verdict's first clause: `futile: 0 fixed vs 2 broken (6 ties), e = 0.387` of the whole reason."""
    return reason.split("; ")[0]


def render_one(edit: EditFacts) -> Group:
    lines = Text()
    if edit.pattern_id:
        lines.append(f"pattern {edit.pattern_id}: ", style="bold").append(f"{edit.pattern or '-'}\n")
    else:
        lines.append("pattern ", style="bold").append("none: an edit for every task\n")
    lines.append("move ", style="bold").append(
        edit.move + (f" of {', '.join(edit.sources)}" if edit.sources else "") + "\n"
    )
    lines.append("status ", style="bold").append(fate(edit)).append(
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
        then = "dropped" if seen.dropped else "passed on to the gate"
        lines.append("screen: ", style="bold red" if seen.dropped else "bold").append(
            f"{seen.verdict}: {seen.sentence()}" + (f" ({', '.join(seen.tasks)})" if seen.tasks else "") + f"; {then}\n"
        )
    gate = edit.gate
    if gate:
        lines.append("gate: ", style="bold").append(
            f"{gate_counts(gate)} over {style.plural(gate.pairs, 'pair')} on {', '.join(gate.tasks) or '?'}: "
            f"{gate.reason}\n"
        )
    if gate and gate.evidence:
        found = gate.evidence
        raced = f", raced with {found.raced - 1} other{'s' * (found.raced > 2)}" if found.raced > 1 else ""
        stopped = (
            f"the run stopped during its gate, after {style.plural(found.looks, 'look')}"
            if edit.interrupted
            else f"stopped {found.stop} after {style.plural(found.looks, 'look')}"
        )
        lines.append("evidence: ", style="bold").append(
            f"{stopped} at alpha {gate.alpha:g}{raced}; {gate.rollouts} child rollouts, {found.parent_rollouts} fresh "
            "parent rollouts in the decision\n"
        )
        if edit.interrupted:
            lines.append("  `harness-evo resume` gates it again from these rollouts and goes on\n", style="dim")
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
