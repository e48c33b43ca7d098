"""`harness-evo rollout RUN ID`: one trajectory step by step, then the verifier's output and the failure record."""

from typing import Any

from pydantic import BaseModel, Field
from rich.console import Group
from rich.panel import Panel
from rich.text import Text

from harness_evo.agent.trajectory import Trajectory
from harness_evo.errors import UserError
from harness_evo.store import Failure, Pattern, PatternMember, Rollout, RunStore
from harness_evo.views import style

SHOWN_LINES = 12
"""Lines of a long output shown (head and tail) unless --full."""


def find(store: RunStore, rollout: str) -> Rollout:
    """A rollout by its id or a unique prefix of it."""
    rows = store.rollouts_starting(rollout) if rollout else []
    if len(rows) != 1:
        found = "no rollout" if not rows else f"{len(rows)} rollouts"
        raise UserError(
            f"{found} with an id starting with {rollout!r} in run {store.id}; `harness-evo show {store.id}` and "
            f"`harness-evo patterns {store.id}` name rollouts"
        )
    return rows[0]


class PatternOf(BaseModel):
    """The pattern a failure joined."""

    id: str
    status: str
    support: int | None = None
    description: str | None = None


class FailureFacts(Failure):
    """A failure record of the rollout, with the pattern it joined (in place of the analyzer's words for it)."""

    pattern: PatternOf | None = None


class RolloutFacts(BaseModel):
    """What `harness-evo rollout` shows: the rollout's row, its trajectory (steps as stored, without the messages) and
    its failure records."""

    id: str
    rollout: Rollout
    trajectory: dict[str, Any] | None = None
    """None when no trajectory was written (the sandbox never came up)."""
    failures: list[FailureFacts] = Field(default_factory=list)


def collect(store: RunStore, rollout: str) -> RolloutFacts:
    row = find(store, rollout)
    written = row.trajectory and (store.folder / row.trajectory).is_file()  # not when the sandbox never came up
    trajectory = (
        Trajectory.model_validate(store.read_json(row.trajectory)).model_dump(mode="json", exclude={"messages"})
        if written
        else None
    )
    failures = []
    for failure in store.records(Failure, rollout_id=row.id):
        member = store.record(PatternMember, failure.id)
        pattern = store.record(Pattern, member.pattern_id) if member else None
        failures.append(
            FailureFacts(
                **failure.model_dump(exclude={"pattern"}),
                pattern=PatternOf.model_validate(pattern.model_dump(mode="json")) if pattern else None,
            )
        )
    return RolloutFacts(id=store.id, rollout=row, trajectory=trajectory, failures=failures)


def render(facts: RolloutFacts, full: bool = False) -> Group:
    row, trajectory = facts.rollout, facts.trajectory or {"steps": [], "verifier_output": ""}
    parts: list[Any] = [summary(row)]
    if facts.trajectory is None:
        parts.append(Text("no trajectory was written for this rollout", style="yellow"))
    if trajectory.get("discovery"):
        parts.append(discovery_panel(trajectory["discovery"], full))
    for run in repeats(trajectory["steps"], full):
        parts.append(step_panel(run[0], full))
        if len(run) > 1:
            parts.append(
                Text(
                    f"  steps {run[1]['index']}-{run[-1]['index']} repeat step {run[0]['index']} exactly "
                    f"({len(run) - 1} times; --full shows them)",
                    style="bold yellow",
                )
            )
    verifier = trajectory.get("verifier_output") or ""
    parts.append(
        Panel(
            cut(verifier, full) or Text("(no verifier output)", style="dim"),
            title=f"verifier: reward {row.reward}",
            title_align="left",
            border_style="green" if row.passed else "red",
        )
    )
    for failure in facts.failures:
        parts.append(failure_panel(failure))
    return Group(*parts)


def summary(row: Rollout) -> Panel:
    verdict = Text("passed", style="green") if row.passed else Text("failed", style="red")
    lines = Text.assemble(
        f"task {row.task_id} ({row.split}), trial {row.trial}, node {style.short(row.node_id or row.harness_hash)}, "
        f"model {row.model}\n",
        verdict,
        f": reward {row.reward}, ended by {row.exit_reason} after {style.plural(row.steps, 'step')} "
        f"({style.plural(row.format_errors, 'format error')}), {style.duration(row.duration_s)}, "
        f"{row.tokens:,} tokens, {style.dollars(row.cost)}",
    )
    if row.error:
        lines.append(f"\nerror: {row.error}", style="red")
    return Panel(lines, title=f"rollout {row.id}", title_align="left")


def repeats(steps: list[dict[str, Any]], full: bool) -> list[list[dict[str, Any]]]:
    """Runs of consecutive steps that did the same thing with the same result (a model stuck in a loop);
    one step each with --full."""
    runs: list[list[dict[str, Any]]] = []
    same = ("action", "output", "exit_code", "format_error")
    for step in steps:
        if runs and not full and all(runs[-1][0].get(key) == step.get(key) for key in same):
            runs[-1].append(step)
        else:
            runs.append([step])
    return runs


def step_panel(step: dict[str, Any], full: bool) -> Panel:
    heading = f"step {step['index']}: model {step.get('model_s', 0):.1f}s" + (
        " (a reply from the response cache)" if step.get("cached") else ""
    )
    if step.get("format_error"):
        body = Group(
            Text(f"format error: {step['format_error']}", style="yellow"),
            Text(cut(step.get("reply") or "", full), style="dim"),
        )
        return Panel(body, title=heading, title_align="left", border_style="yellow")
    heading += f", command {step.get('duration_s', 0):.1f}s, exit {step.get('exit_code')}" + (
        " (timed out)" if step.get("timed_out") else ""
    )
    heading += ", said done" if step.get("finished") else ""
    parts: list[Any] = [Text(f"$ {step.get('action') or ''}", style="bold")]
    if full:
        parts.insert(0, Text(step.get("reply") or "", style="dim"))
    parts.append(
        Text(cut(step.get("output") or "", full) or "(no output)", style="dim" if step.get("exit_code") == 0 else "")
    )
    return Panel(
        Group(*parts), title=heading, title_align="left", border_style="red" if step.get("exit_code") else "blue"
    )


def discovery_panel(findings: list[dict[str, Any]], full: bool) -> Panel:
    """What workspace discovery ran before the first reply, and what each command printed."""
    parts: list[Any] = []
    for finding in findings:
        failed = (
            " (timed out)"
            if finding.get("timed_out")
            else f" (exit {finding.get('exit_code')})"
            if finding.get("exit_code")
            else ""
        )
        parts += [
            Text(f"$ {finding['command']}{failed}", style="bold red" if failed else "bold"),
            Text(cut(finding.get("output") or "", full) or "(no output)", style="dim"),
        ]
    return Panel(Group(*parts), title="workspace discovery, before the first reply", title_align="left")


def failure_panel(failure: FailureFacts) -> Panel:
    text = Text()
    text.append(f"{failure.category or 'uncategorized'}", style="bold")
    text.append(
        f", blamed on {failure.blame or '?'}"
        + (f" ({failure.confidence:.0%} sure)" if failure.confidence is not None else "")
    )
    text.append(f", by {failure.source}" if failure.source else "")
    if failure.critical_step is not None:
        text.append(f", critical step {failure.critical_step}")
    for key in ("root_cause", "evidence"):
        if getattr(failure, key):
            text.append(f"\n{key.replace('_', ' ')}: ", style="bold").append(str(getattr(failure, key)))
    pattern = failure.pattern
    if pattern:
        text.append("\npattern: ", style="bold").append(
            f"{pattern.id} ({pattern.status}, {style.plural(pattern.support, 'task')}) {pattern.description}"
        )
    return Panel(text, title="failure record", title_align="left", border_style="red")


def cut(text: str, full: bool) -> str:
    lines = text.rstrip("\n").splitlines()
    if full or len(lines) <= SHOWN_LINES:
        return "\n".join(lines)
    half = SHOWN_LINES // 2
    return "\n".join([*lines[:half], f"[... {len(lines) - 2 * half} lines; --full shows them ...]", *lines[-half:]])
