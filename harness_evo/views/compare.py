"""What `harness-evo compare` prints: the harnesses with pass@1 and its interval,
the tasks they differ on, the verdicts."""

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text

from harness_evo.compare import CompareFacts
from harness_evo.store.info import HarnessResult
from harness_evo.views import style

FLATTERED = 0.25
"""A harness whose rollouts took at least this share of their model calls from the response cache gets a line saying
that its wall time a rollout is not its own speed."""


NUMBERS = ("tokens / rollout", "s / rollout", "cached calls", "infra", "rollouts paid", "reused")
NARROW = ("", "pass@1 [95% interval]", "tokens / rollout", "s / rollout", "cached calls")


class Overview:
    """The harnesses' table, fitted to the terminal it is printed on."""

    def __init__(self, title: str, harnesses: list[HarnessResult]):
        self.title, self.harnesses, self.caption = title, harnesses, ""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        wide = options.max_width >= style.WIDE
        grid = Table(title=self.title, title_justify="left", caption=self.caption or None, caption_justify="left")
        columns = ("", "harness", "hash", "pass@1 [95% interval]", *NUMBERS)
        for column in columns if wide else NARROW:
            grid.add_column(
                column,
                justify="right" if column in NUMBERS else "left",
                no_wrap=column == "pass@1 [95% interval]",
                overflow="fold",
            )
        for row in self.harnesses:
            cells = {
                "": row.letter,
                "harness": row.spec,
                "hash": row.hash[:12],
                "pass@1 [95% interval]": str(row.pass_at_1),
                "tokens / rollout": f"{row.tokens_per_rollout:,.0f}",
                "s / rollout": f"{row.seconds_per_rollout:.1f}",
                "cached calls": "-" if row.cached_share is None else f"{row.cached_share:.0%}",
                "infra": str(row.infra),
                "rollouts paid": str(row.paid),
                "reused": str(row.reused),
            }
            grid.add_row(*(cells[column] for column in (columns if wide else NARROW)))
        yield grid
        if not wide:
            yield Text("\n".join(f"{row.letter}  {row.spec} ({row.hash[:12]})" for row in self.harnesses))


def render(facts: CompareFacts, every_task: bool = False) -> Group:
    """The tables and verdicts; per task only the tasks the harnesses differ on (or that some did not score) and how
    many others there are, unless `every_task`."""
    harnesses = facts.harnesses
    recorded = (
        (
            f", on the {harnesses[0].pass_at_1.n} (task, trial) keys recorded for every harness (--recorded: "
            "nothing was run)"
        )
        if facts.recorded
        else ""
    )
    overview = Overview(
        f"{len(harnesses)} harnesses on {style.plural(facts.tasks, f'{facts.split} task')} "
        f"x {style.plural(facts.trials, 'trial')}" + recorded,
        harnesses,
    )
    flattered = [row for row in harnesses if (row.cached_share or 0.0) >= FLATTERED]
    overview.caption = "; ".join(
        f"{row.letter} took {row.cached_share:.0%} of its model calls from the response cache (requests made "
        "before, by another rollout), so its s / rollout is not its own speed"
        for row in flattered
    )
    measured = [row for row in facts.per_task if all(cell.scored for cell in row.cells)]
    same = {row.task_id for row in measured if not row.differs}
    shown = [row for row in facts.per_task if every_task or row.task_id not in same]
    tasks = Table(
        title="passes / scored trials per task"
        + (" (tasks where the harnesses differ first)" if every_task else ", of the tasks where the harnesses differ"),
        title_justify="left",
    )
    tasks.add_column("task")
    for row in harnesses:
        tasks.add_column(row.letter, justify="right")
    for row in shown:
        cells = [f"{cell.passed}/{cell.scored}" if cell.scored else "-" for cell in row.cells]
        tasks.add_row(row.task_id, *cells, style="" if row.differs else "dim")
    hidden = "" if every_task or not same else " (not listed; --all lists every task, --json gives every row)"
    alike = Text(f"{len(same)} of {len(measured)} tasks score the same on every harness{hidden}", style="dim")
    verdicts = Text()
    for comparison in facts.comparisons:
        counts = (
            f"  ({style.plural(comparison.b_better, 'pair')} better, {comparison.a_better} worse, "
            f"of {comparison.n} on {style.plural(comparison.tasks, 'task')})\n"
        )
        verdicts.append(
            comparison.verdict,
            style="bold green"
            if comparison.significant and comparison.diff > 0
            else "bold red"
            if comparison.significant
            else "bold",
        )
        verdicts.append(counts, style="dim")
        if comparison.cost:
            verdicts.append(f"  tokens: {comparison.cost}\n", style="dim")
    verdicts.append(f"run folder: {facts.folder}", style="dim")
    return Group(overview, tasks, alike, verdicts)
