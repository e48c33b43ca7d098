"""Runs of repeated steps: the same command (or the same pair of commands) again and again."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Run:
    """Steps `start` .. `start + period * times - 1` (positions in the list) repeat one block of `period` items."""

    start: int
    period: int
    times: int

    @property
    def end(self) -> int:
        return self.start + self.period * self.times

    @property
    def length(self) -> int:
        return self.period * self.times


def segment(items: list[str], periods: tuple[int, ...] = (1, 2)) -> list[Run]:
    """Cover `items` left to right with runs; at each position take the period that repeats over the most items."""
    runs, position = [], 0
    while position < len(items):
        best = Run(position, 1, 1)
        for period in periods:
            times = _repeats(items, position, period)
            if times > 1 and period * times > best.length:
                best = Run(position, period, times)
        runs.append(best)
        position = best.end
    return runs


def longest_loop(items: list[str], min_times: int) -> Run | None:
    """The longest run that repeats its block at least `min_times` times, if any."""
    loops = [run for run in segment(items) if run.times >= min_times]
    return max(loops, key=lambda run: run.length, default=None)


def _repeats(items: list[str], start: int, period: int) -> int:
    block = items[start : start + period]
    if len(block) < period:
        return 0
    times = 1
    while items[start + times * period : start + (times + 1) * period] == block:
        times += 1
    return times
