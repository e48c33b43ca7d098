"""How numbers, times and states look in every view, so that the views agree with each other."""

import time

from rich.text import Text

from harness_evo import stats
from harness_evo.store import EditStatus, NodeStatus, PatternStatus, RunInfo, RunStatus
from harness_evo.store.gauge import Conditioning

BARS = "▁▂▃▄▅▆▇█"
STATUS_STYLES = {
    RunStatus.RUNNING: "yellow",
    RunStatus.FINISHED: "green",
    RunStatus.STOPPED: "magenta",
    RunStatus.FAILED: "red",
    EditStatus.ACCEPTED: "green",
    EditStatus.PROPOSED: "cyan",
    EditStatus.REJECTED_STATIC: "red",
    EditStatus.REJECTED_EMPIRICAL: "red",
    EditStatus.SCREENED: "dim red",
    EditStatus.INVALID: "dim red",
    NodeStatus.ROOT: "bold",
    PatternStatus.PROMOTED: "bold yellow",
    PatternStatus.CANDIDATE: "",
    PatternStatus.RESOLVED: "green",
    PatternStatus.RETIRED: "dim",
}


PLAIN_EVERY_S = 60.0
"""Where the output is not a terminal, a running command prints its progress as a plain line this often (seconds)."""


class Ticker:
    """When a plain progress line is due: at most one per PLAIN_EVERY_S seconds, and the last one always."""

    def __init__(self):
        self.started = self.printed = time.monotonic()

    def due(self, last: bool = False) -> bool:
        now = time.monotonic()
        if last or now - self.printed >= PLAIN_EVERY_S:
            self.printed = now
            return True
        return False

    def elapsed(self) -> str:
        return f"{duration(time.monotonic() - self.started)} elapsed"


def short(node: str | None) -> str:
    return node[:12] if node else "-"


def iteration(value: int | None) -> int:
    """The iteration that made a node: -1 for the starting harness (and when unknown)."""
    return -1 if value is None else value


def score(value: float | None, n: int | None) -> str:
    """`62% [45%, 77%] (n=32)`: a pass rate (a share of `n` scored rollouts) with its 95% interval and `n`; `-` when
    nothing was scored."""
    found = stats.rate_of(value, n)
    return "-" if found is None else str(found)


def score_of(facts: stats.Score | None) -> str:
    """`score` of a pass rate as the views' facts hold it (`Score`); `-` for none."""
    return score(facts.score, facts.n) if facts is not None else "-"


def when(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts)) if ts else "-"


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{seconds:.1f}s"


def run_duration(info: RunInfo, quiet_s: float | None = None) -> float | None:
    """Wall time of a run: to its end, or until now while it runs (until its last event when it has gone quiet)."""
    if not info.started:
        return None
    end = info.finished if info.status != RunStatus.RUNNING else None
    return (end or time.time() - (quiet_s or 0)) - info.started


def dollars(value: float | None) -> str:
    return f"${value or 0:.4f}" if (value or 0) < 1 else f"${value:.2f}"


def status(value: str | None) -> Text:
    return Text((value or "?").replace("_", " "), style=STATUS_STYLES.get(value or "", ""))


def sparkline(values: list[float | None]) -> str:
    """One bar per value on a 0..1 scale (a pass rate); a gap where there is no value."""
    return "".join(" " if value is None else BARS[min(len(BARS) - 1, int(value * len(BARS)))] for value in values)


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


WIDE = 120
"""Terminal columns from which the wide views (`edits`, `compare`) show every column; narrower, they fit a layout of
their own."""


def clip(text: str | None, width: int) -> str:
    """The first line of `text`, cut to `width` characters."""
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def quiet_warning(run: str, quiet_s: float) -> str:
    return (
        f"no event for {duration(quiet_s)}: its process may be gone; "
        f"`harness-evo resume {run}` continues an evolve run, an eval run is started again"
    )


def gauge(row: Conditioning | None) -> str:
    """`id 0.92/0.10 dep 0.61 tpl 0.20 n24`: an input-conditioning gauge (`Conditioning.compact`);
    `-` when unmeasured."""
    return row.compact() if row else "-"
