"""The programs a pattern's failures ran without their being installed, read from the triage's root causes and the
failed rollouts' trajectories: what a stand-in tool could supply."""

import keyword
import re
from collections.abc import Iterable

from pydantic import BaseModel

from harness_evo.agent.actions import DONE_MARKER
from harness_evo.agent.trajectory import Trajectory
from harness_evo.failures.digest import cut
from harness_evo.failures.queries import load_trajectory
from harness_evo.failures.triage import (
    CRASHED,
    MAX_CALL_CHARS,
    NOT_FOUND,
    NOT_INSTALLED,
    TOOL_FRAME,
    calling_line,
    work_steps,
)
from harness_evo.store import Failure, PatternMember, Rollout, RunStore

MISSING_IN_ROOT_CAUSE = re.compile(rf"command `(.*)` needs `([\w.+-]+)`, ({NOT_INSTALLED}|{CRASHED})", re.DOTALL)
CALLS_KEPT = 5
UNSCRIPTABLE = frozenset(
    {
        "nano",
        "vi",
        "vim",
        "emacs",
        "less",
        "more",
        "man",
        "top",
        "htop",
        "systemctl",
        "service",
        "journalctl",
        "pip",
        "pip3",
        "wget",
        "curl",
    }
)
"""Programs the agent uses interactively, to manage services, or to install or download with no network: a stand-in
script cannot do their job here."""


class MissingProgram(BaseModel):
    """A program failed rollouts ran without its being installed, or whose stand-in tool crashed on their calls."""

    name: str
    broken: bool = False
    """The harness supplies a tool of this name, and it crashed on the calls."""
    tasks: list[str]
    """The distinct tasks that ran it."""
    calls: dict[str, str]
    """A few of the commands that ran it, as the agent wrote them, each with the task it ran in (one per task)."""

    @property
    def scriptable(self) -> bool:
        return scriptable(self.name)

    def also_missed(self, task: str, call: str) -> "MissingProgram":
        """This program as also missed by `task`'s command `call` (still one call per task, at most `CALLS_KEPT`)."""
        calls = dict(self.calls)
        if task not in calls.values() and call not in calls and len(calls) < CALLS_KEPT:
            calls[call] = task
        return self.model_copy(update={"tasks": sorted({*self.tasks, task}), "calls": calls})


def scriptable(program: str) -> bool:
    """A short script could stand in for `program`: not for an editor, a pager, a service manager or an installer, nor
    for a python keyword (`import: command not found` is python code run as a shell command), nor for the harness's
    own way of finishing (`task_done` is the agent saying TASK_DONE as a command)."""
    return program not in UNSCRIPTABLE and not keyword.iskeyword(program) and program.upper() != DONE_MARKER


def missed_calls(trajectory: Trajectory) -> dict[str, str]:
    """Each program the trajectory's commands ran without its being installed, or whose tool crashed -> the first
    command that ran it, whatever came after (a later command that got by shows how the agent calls it just as well)."""
    calls: dict[str, str] = {}
    for step in work_steps(trajectory):
        programs = [found.group(1) for found in NOT_FOUND.finditer(step.output)] + TOOL_FRAME.findall(step.output)[-1:]
        for program in programs:
            calls.setdefault(program, cut(calling_line(step, program), MAX_CALL_CHARS))
    return calls


def missing_programs(failures: Iterable[Failure]) -> dict[str, MissingProgram]:
    """The programs `failures` ran without their being installed; the program most tasks missed comes first."""
    found: dict[str, MissingProgram] = {}
    for failure in failures:
        if missed := MISSING_IN_ROOT_CAUSE.search(failure.root_cause or ""):
            call, program, how = missed.groups()
            known = found.get(program, MissingProgram(name=program, tasks=[], calls={}))
            found[program] = known.also_missed(failure.task_id, call).model_copy(
                update={"broken": known.broken or how == CRASHED}
            )
    return most_missed_first(found)


def most_missed_first(found: dict[str, MissingProgram]) -> dict[str, MissingProgram]:
    """`found` with the program the most tasks missed first (then by name)."""
    return dict(sorted(found.items(), key=lambda item: (-len(item[1].tasks), item[0])))


def pattern_missing_programs(store: RunStore, pattern_id: str) -> dict[str, MissingProgram]:
    """The programs the pattern's failures ran without their being installed, each with the tasks that ran it, and
    the calls and tasks of the run's other failed train rollouts that ran it too: a rollout that got by with another
    command after `sqlite3: command not found` is no member of the pattern, yet shows how the agent calls sqlite3.
    The program the most tasks missed comes first."""
    found = missing_programs(
        store.records(Failure, id=[member.failure_id for member in store.records(PatternMember, pattern_id=pattern_id)])
    )
    if not found:
        return found
    failed = {failure.rollout_id for failure in store.records(Failure, split="train")}
    for rollout in [row for row in store.records(Rollout, order_by="id") if row.id in failed]:
        for program, call in missed_calls(load_trajectory(store, rollout)).items():
            if program in found:
                found[program] = found[program].also_missed(rollout.task_id, call)
    return most_missed_first(found)
