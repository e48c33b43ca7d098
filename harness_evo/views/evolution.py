"""What `harness-evo evolve` shows while it runs (a rich live panel, or plain lines with --quiet) and when it ends."""

import threading
from collections import Counter, deque

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from harness_evo.evolve import events as ev
from harness_evo.store import EditStatus, Rollout
from harness_evo.store.info import EvolutionSummary
from harness_evo.views import style

RECENT = 6
"""Lines of recent happenings kept in the live panel."""
FATES = {
    EditStatus.PROPOSED: "passed the critic",
    EditStatus.INVALID: "invalid",
    EditStatus.REJECTED_STATIC: "rejected statically",
    EditStatus.REJECTED_EMPIRICAL: "rejected by the gate",
    EditStatus.SCREENED: "dropped by the screen",
    EditStatus.ACCEPTED: "accepted",
}


def sources(tasks: list[str], named: int = 3) -> str:
    """The source tasks of a harvest: all of a few, else how many and the first `named`."""
    if len(tasks) <= named:
        return ", ".join(tasks) or "none"
    return f"{len(tasks)} tasks: {', '.join(tasks[:named])}, ..."


def dollars(spend: dict[str, float]) -> str:
    return ", ".join(f"{role} ${cost:.3f}" for role, cost in sorted(spend.items())) or "$0"


class EvolutionView:
    """The loop's callback: keeps the run's progress and shows it live, or prints one plain line per event."""

    def __init__(self, console: Console, quiet: bool = False):
        self.console, self.quiet = console, quiet
        self.run_id, self.heading = "", ""
        self.iteration: ev.IterationStarted | None = None
        self.in_flight: dict[str, Rollout] = {}
        self.done = self.passed = self.reused = 0
        self.best_train: tuple[float, int] | None = None
        self.best_dev: tuple[float, int] | None = None
        """(pass rate, n) of the best score seen on each split."""
        self.fates: Counter = Counter()
        self.spend: dict[str, float] = {}
        self.recent: deque[str] = deque(maxlen=RECENT)
        self._lock = threading.Lock()
        self._live = (
            Live(console=console, auto_refresh=True, refresh_per_second=4, get_renderable=self.render)
            if not quiet
            else None
        )
        self.ticker = style.Ticker() if quiet else None
        """Plain mode: when the next rollouts line is due (rollouts are too frequent to tell one by one)."""

    def __enter__(self) -> "EvolutionView":
        if self._live:
            self._live.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live:
            self._live.stop()

    def __call__(self, event: ev.Event) -> None:
        with self._lock:
            line = self.update(event)
        if line and self.quiet:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)
        elif line:
            self.recent.append(line)

    def update(self, event: ev.Event) -> str | None:
        """Take in one event; the line that tells it (None for events too frequent to tell one by one)."""
        match event:
            case ev.RunStarted(run_id, estimate):
                self.run_id = run_id
                self.heading = f"{'resuming' if estimate.more else 'evolving'} run {run_id}: {estimate.sentence()}"
                return self.heading
            case ev.IterationStarted(i, arm, node, tasks):
                self.iteration = event
                return f"iteration {i}: arm {arm}, node {node[:12]}, tasks {', '.join(tasks)}"
            case ev.RolloutProgress("started", row):
                self.in_flight[row.id] = row
            case ev.RolloutProgress("cached", row):
                self.reused += 1
            case ev.RolloutProgress(_, row):
                self.in_flight.pop(row.id, None)
                self.done += 1
                self.passed += row.passed
                if self.ticker and self.ticker.due():
                    return (
                        f"rollouts: {self.done} done ({self.passed} passed), {len(self.in_flight)} running; "
                        f"{self.ticker.elapsed()}"
                    )
            case ev.EditJudged(edit):
                self.fates[edit.status.value] += edit.status.final
                reason = f": {edit.reasons[0]}" if edit.reasons else ""
                gate = f": {edit.gate.reason}" if edit.gate else ""
                target = f"against {edit.pattern_id}" if edit.pattern_id else "for every task"
                aim = (
                    f"({edit.move} of {sources(edit.sources)})"
                    if edit.move == "harvest"
                    else f"({edit.move}) {target}"
                    if edit.move != "proposer"
                    else target
                )
                return f"edit {edit.id} {aim}: {FATES[edit.status]}{gate or reason}"
            case ev.NodeScored(node, best_id):
                if node.train_score is not None:
                    self.best_train = max(self.best_train or (0.0, 0), (node.train_score, node.train_n))
                if node.dev_score is not None:
                    self.best_dev = max(self.best_dev or (0.0, 0), (node.dev_score, node.dev_n))
                return (
                    f"node {node.id[:12]}: train {style.score(node.train_score, node.train_n)}, "
                    f"dev {style.score(node.dev_score, node.dev_n)}; best {best_id[:12]}"
                )
            case ev.IterationFinished(i, outcome, spend):
                self.spend = spend
                return f"iteration {i} done: {outcome}"
            case ev.RunFinished(summary):
                return f"stopped: {summary.stop}"
        return None

    def render(self) -> Panel:
        with self._lock:
            table = Table.grid(padding=(0, 2))
            table.add_column(style="bold")
            table.add_column()
            if self.iteration:
                it = self.iteration
                table.add_row("iteration", f"{it.iteration}  arm {it.arm}  node {it.node_id[:12]}")
            flight = ", ".join(f"{row.task_id}#{row.trial}" for row in list(self.in_flight.values())[:6])
            reused = f", {self.reused} reused from earlier" if self.reused else ""
            table.add_row(
                "rollouts", f"{self.done} done ({self.passed} passed){reused}, {len(self.in_flight)} running {flight}"
            )
            table.add_row(
                "highest",
                f"train {style.score(*(self.best_train or (None, 0)))}  dev "
                f"{style.score(*(self.best_dev or (None, 0)))}",
            )
            fates = ", ".join(f"{n} {FATES[status]}" for status, n in sorted(self.fates.items())) or "none yet"
            table.add_row("edits", fates)
            table.add_row("spend", dollars(self.spend))
            return Panel(
                Group(table, Text("\n".join(self.recent), style="dim")),
                title=self.heading or "harness-evo evolve",
                title_align="left",
            )


def summary_panel(summary: EvolutionSummary) -> Panel:
    """The closing summary: proposals and their fates, start vs best dev score, spend."""
    fates = summary.fates
    lines = [
        f"stopped because: {summary.stop}",
        f"{style.plural(summary.iterations, 'iteration')}, {summary.rollouts} rollouts, "
        f"{summary.elapsed_s / 60:.1f} min",
        f"proposals: {summary.proposals} made, {fates.get(EditStatus.INVALID, 0)} invalid, "
        f"{fates.get(EditStatus.REJECTED_STATIC, 0)} rejected statically, "
        f"{fates.get(EditStatus.REJECTED_EMPIRICAL, 0)} rejected empirically, {fates.get(EditStatus.ACCEPTED, 0)} "
        "accepted"
        + (
            f" ({', '.join(f'{n} by {move}' for move, n in sorted(summary.accepted_by_move.items()))})"
            if summary.accepted_by_move
            else ""
        )
        + (f", {fates[EditStatus.SCREENED]} dropped by the screen" if fates.get(EditStatus.SCREENED) else "")
        + (f", {summary.interrupted} in a gate the stop interrupted" if summary.interrupted else "")
        + (
            f", {waiting} not yet gated" if (waiting := fates.get(EditStatus.PROPOSED, 0) - summary.interrupted) else ""
        ),
        *dev_scores(summary),
        *dev_lines(summary),
        *conditioning_lines(summary),
        *screen_lines(summary),
        f"spend: {dollars(summary.spend)}",
    ]
    return Panel("\n".join(lines), title=f"run {summary.run_id}", title_align="left")


def dev_scores(summary: EvolutionSummary) -> list[str]:
    """The dev scores of the start and the best node, or in plain words what the run did not get to measure."""
    if not summary.start_dev_n:
        return ["dev pass@1: not measured: the run stopped before it had scored the starting harness on dev"]
    start = style.score(summary.start_dev, summary.start_dev_n)
    if summary.best_node == summary.root and summary.nodes == 1:
        return [f"dev pass@1: start {start}; no edit was accepted, so no other harness was scored on dev"]
    return [
        f"dev pass@1: start {start} -> best {style.score(summary.best_dev, summary.best_dev_n)} "
        f"({summary.nodes} node{'s' * (summary.nodes != 1)} in the tree)"
    ]


def dev_lines(summary: EvolutionSummary) -> list[str]:
    """Whether the run showed a gain on dev (the paired test of the best node against the root), and how many of its
    accepts noise alone would explain."""
    comparison = summary.dev_comparison
    lines = []
    if comparison and comparison.shown_gain:
        lines.append(f"on dev: {comparison.verdict}")
    else:
        lines.append(
            "the run has not shown a gain over the starting harness on dev"
            + (f" (closest: {comparison.verdict})" if comparison else "")
        )
    if summary.gates == 0:
        lines.append(
            "no edit was gated"
            + (
                ""
                if summary.iterations
                else ": the run ended in its first iteration, before a gate decided"
                if summary.proposals
                else ": the run ended before its first iteration"
            )
        )
    elif summary.gates is not None:
        lines.append(
            f"gated {style.plural(summary.gates, 'edit')} and accepted {summary.fates.get(EditStatus.ACCEPTED, 0)}; "
            f"edits that change nothing would get at most {summary.expected_false_accepts:g} accepts from noise alone"
            + (
                f"; {style.plural(summary.decisions, 'gate decision')} ran {summary.rollouts_per_decision:g} rollouts"
                + (" each on average" if summary.decisions != 1 else "")
                if summary.rollouts_per_decision is not None
                else ""
            )
        )
    return lines


def screen_lines(summary: EvolutionSummary) -> list[str]:
    """What the screen saw before the gate, and what the gate made of the candidates it passed on."""
    seen = summary.screen
    if seen is None:
        return []
    line = (
        f"screen: looked at {style.plural(seen.looked, 'candidate')}: {seen.inert} inert (first actions unchanged), "
        f"{seen.unseen} it could not see, {seen.looked - seen.inert - seen.unseen} changed; dropped {seen.dropped}"
    )
    if seen.inert_gated:
        line += f"; the gate accepted {seen.inert_accepted} of the {seen.inert_gated} inert ones it measured"
    if seen.changed_gated:
        line += f"; and {seen.changed_accepted} of the {seen.changed_gated} changed ones"
    return [line]


def conditioning_lines(summary: EvolutionSummary) -> list[str]:
    """The input-conditioning gauge of the starting and the best harness's train rollouts, and the edits that made the
    agent read the task less."""
    found = summary.conditioning
    if not found:
        return []
    start, best = (side if side and side.rollouts else None for side in (found.start, found.best))
    if not start and not best:
        return [
            "reads the task (the input-conditioning gauge): not measured, as no train rollout of the starting harness "
            "was scored"
        ]
    lines = [
        f"reads the task (train; identifiability/chance, category dependence, template share): start "
        f"{style.gauge(start)} -> best {style.gauge(best)}"
    ]
    if found.reads_less:
        lines.append(
            "⚠ the agent reads the task less after edit "
            + ", ".join(f"{row.edit} ({row.status.replace('_', ' ')})" for row in found.reads_less)
            + f": harness-evo edits {summary.run_id} EDIT"
        )
    return lines


def next_steps(summary: EvolutionSummary, run_folder: str) -> str:
    """Where the best harness is, and the commands that inspect and export it (one per line, never wrapped)."""
    run, best = summary.run_id, summary.best_node
    return "\n".join(
        [
            f"best harness: {run_folder}/harnesses/{best}",
            f"inspect it:   harness-evo show {run}; harness-evo tree {run}"
            + (
                f"; harness-evo diff {run} {summary.root[:12]} {best[:12]}"
                if best != summary.root
                else " (the best is the start: "
                + ("no edit was accepted)" if summary.nodes <= 1 else "no accepted edit beat it on dev)")
            ),
            f"export it:    harness-evo export {run} --node best --format native|mini-swe-agent|skills|claude-code "
            "--out DIR",
        ]
    )
