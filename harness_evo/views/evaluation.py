"""The live progress of an evaluation and its closing table."""

import threading
import time

from rich import get_console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from harness_evo.agent.evaluate import EvalResult
from harness_evo.store import Rollout
from harness_evo.views import style
from harness_evo.views.tasks import skipped_line


class RolloutProgress:
    """A rich progress bar over rollouts, with the pass count; its `update` is the executor's progress callback. Where
    the output is not a terminal (a log file, a pipe), one plain line every `style.PLAIN_EVERY_S` seconds instead."""

    def __init__(self, total: int, console=None):
        self.passed = self.finished = 0
        self.total = total
        self._lock = threading.Lock()
        self.console = console or get_console()
        self.ticker = style.Ticker() if not self.console.is_terminal else None
        self.progress = Progress(
            TextColumn("[bold]rollouts"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("[green]{task.fields[passed]} passed"),
            TextColumn("{task.fields[last]}"),
            TimeElapsedColumn(),
            console=self.console,
            transient=False,
            disable=self.ticker is not None,
        )
        self.bar = self.progress.add_task("rollouts", total=total, passed=0, last="")

    def update(self, kind: str, row: Rollout) -> None:
        if kind == "started":
            return
        with self._lock:
            self.finished += 1
            self.passed += row.passed
            mark = "cached" if kind == "cached" else row.exit_reason
            self.progress.update(self.bar, advance=1, passed=self.passed, last=f"{row.task_id}#{row.trial}: {mark}")
            if self.ticker and self.ticker.due(last=self.finished == self.total):
                self.console.print(
                    f"rollouts {self.finished}/{self.total}, {self.passed} passed; last {row.task_id}#{row.trial}: "
                    f"{mark}; {self.ticker.elapsed()}",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )

    def __enter__(self) -> "RolloutProgress":
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()


def eval_table(result: EvalResult, started: float) -> Table:
    table = Table(
        title=f"{result.harness.name} ({result.harness.short_hash}) on {style.plural(len(result.tasks), 'task')}",
        title_justify="left",
    )
    for column in ("task", "split", "passed", "reward", "exit reasons", "tokens", "wall s"):
        table.add_column(column, justify="right" if column in ("passed", "reward", "tokens", "wall s") else "left")
    for task in sorted(result.tasks, key=lambda t: t.task_id):
        ok = task.scored and task.passed == task.scored
        passed = f"[{'green' if ok else 'red'}]{task.passed}/{task.scored}[/]" if task.scored else "[yellow]infra[/]"
        reasons = ", ".join(f"{reason}×{n}" if n > 1 else reason for reason, n in task.exit_reasons.most_common())
        reward = f"{task.reward / task.scored:.2f}" if task.scored else "-"
        table.add_row(task.task_id, task.split, passed, reward, reasons, f"{task.tokens:,}", f"{task.wall_s:.1f}")
    failures = style.plural(result.infra_failures, "infrastructure failure")
    infra = f"; {failures} not counted" if result.infra_failures else ""
    infra += f"; {style.plural(result.reused, 'rollout')} reused from earlier runs" if result.reused else ""
    table.caption = (
        f"pass@1 {style.score(result.pass_at_1, result.scored)} over scored rollouts{infra}; "
        f"tokens {sum(t.tokens for t in result.tasks):,}; wall {time.time() - started:.0f} s; run {result.run.folder}"
        + (f"\n{skipped_line(result.skipped)}" if result.skipped else "")
    )
    table.caption_justify = "left"
    return table
