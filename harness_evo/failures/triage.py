"""Rule-based triage of a failed rollout, no model needed: a category and a signature straight from the facts.

Final categories need no model: infrastructure (reported, never a harness pattern; a wall-time limit spent
waiting for a slow model counts as such), a program that is not installed, or whose stand-in tool in the harness
crashed, and that no later command got past, repeated format errors, command loops, and a wrong claim of success
made right after a failed command or after a single command (their mechanism is the whole story). The others (any
other wrong claim of success, exhausted steps, wall time or context) are symptoms: they go to the analyzer for a root
cause, and are its fallback.
"""

import re
from collections import Counter

from pydantic import BaseModel

from harness_evo.agent.actions import DONE_MARKER, NOT_FOUND, command_lines, running
from harness_evo.agent.trajectory import Step, Trajectory
from harness_evo.failures.digest import cut, step_key
from harness_evo.failures.record import Blame, FailureRecord
from harness_evo.failures.repeats import longest_loop
from harness_evo.harness.folder import SANDBOX_ROOT

LIMITS: dict[str, tuple[str, Blame]] = {
    "step_limit": ("step limit", "model"),
    "time_limit": ("wall-time limit", "model"),
    "context_limit": ("model's context window", "harness"),
}
"""Exit reasons of exhaustion: what ran out, and who is blamed when the analyzer cannot say more."""


class Triage(BaseModel):
    """What the rules say about one failed rollout."""

    record: FailureRecord
    """The record the rules can make; the analyzer's fallback when the triage is not final."""
    final: bool
    """True when no model is needed for the root cause."""
    infra: bool = False
    """The failure says nothing about the harness: reported, never promoted."""


def triage(trajectory: Trajectory, loop_repeats: int) -> Triage | None:
    """The triage of a failed rollout, or None when there is nothing to explain (it was interrupted)."""
    if trajectory.exit_reason == "interrupted":
        return None
    return (
        infrastructure(trajectory)
        or slow_model(trajectory)
        or missing_program(trajectory)
        or format_errors(trajectory)
        or command_loop(trajectory, loop_repeats)
        or unchecked_success(trajectory)
        or declared_success(trajectory)
        or exhaustion(trajectory)
    )


CONTAINER = re.compile(r"\bharness-evo-[\w.-]+-[0-9a-f]{6}\b")
"""A sandbox container's name (`harness-evo-<task>-<random suffix>`), which differs from one rollout to the next."""


def infrastructure(trajectory: Trajectory) -> Triage | None:
    """A rollout that was not scored; its pattern names neither its task nor its container, so that the same failure on
    other tasks and containers is one pattern."""
    if trajectory.scored:
        return None
    what = (trajectory.error or "").strip().splitlines()[:1] or ["the verifier wrote no reward"]
    message = CONTAINER.sub("harness-evo-<task>", what[0]).replace(trajectory.task_id, "<task>")
    return Triage(
        infra=True,
        final=True,
        record=FailureRecord(
            category="infrastructure",
            pattern=f"{trajectory.exit_reason}: {message}",
            root_cause=f"The rollout ended in {trajectory.exit_reason}: {cut(message, 200)}.",
            critical_step=last_step(trajectory),
            evidence=cut(message, 200),
            blame="environment",
            confidence=1.0,
        ),
    )


def slow_model(trajectory: Trajectory) -> Triage | None:
    """Wall time ran out while commands used little of it: the model's replies were too slow, not the agent's doing."""
    commands = sum(step.duration_s for step in trajectory.steps)
    if trajectory.exit_reason != "time_limit" or not trajectory.duration_s or commands > trajectory.duration_s / 2:
        return None
    return Triage(
        infra=True,
        final=True,
        record=FailureRecord(
            category="infrastructure",
            pattern="time_limit: the model's replies took most of the wall time",
            root_cause=(
                f"Commands ran {commands:.0f} s of the {trajectory.duration_s:.0f} s episode; the rest was spent "
                "waiting for the model."
            ),
            critical_step=last_step(trajectory),
            evidence=f"{len(trajectory.steps)} steps in {trajectory.duration_s:.0f} s",
            blame="environment",
            confidence=0.7,
        ),
    )


NOT_INSTALLED = "which is not installed here"
CRASHED = "whose tool in the harness crashed"
TOOL_FRAME = re.compile(rf'File "{re.escape(SANDBOX_ROOT)}/tools/([\w.+-]+)/')
"""A traceback frame in a script of the harness's own tools: the tool crashed on the agent's call."""
MAX_CALL_CHARS = 240
"""A longer call is cut in the root cause (and cannot be tried out as it was written)."""


def missing_program(trajectory: Trajectory) -> Triage | None:
    """A command called a program that is not installed, or whose stand-in tool in the harness crashed, and no later
    command succeeded: whatever the agent did next (claim success, plead in prose, retry, `apt-get install` without a
    network) follows from that, and the harness can supply the program as a tool (or a tool that works) or name one
    that is there."""
    work = work_steps(trajectory)
    missing = [(i, found) for i, step in enumerate(work) if (found := missed_program(step))]
    if not missing:
        return None
    i, (program, message, crashed) = missing[-1]
    if any(step.exit_code == 0 and not step.timed_out for step in work[i + 1 :]):
        return None
    step = work[i]
    if crashed:
        category, pattern, why = (
            "broken-harness-tool",
            "calls a tool the harness supplies, the tool crashes, and the agent does not get past it",
            f"{CRASHED} ({cut(message, 120)})",
        )
    else:
        category, pattern, why = (
            "wrong-tool-missing-binary",
            "runs a program that is not installed, and does not switch to one that is",
            NOT_INSTALLED,
        )
    return Triage(
        final=True,
        record=FailureRecord(
            category=category,
            pattern=pattern,
            root_cause=(
                f"The agent's command `{cut(calling_line(step, program), MAX_CALL_CHARS)}` needs `{program}`, {why}, "
                "and no later command of the agent succeeded."
            ),
            critical_step=step.index,
            evidence=cut(f"{step_key(step)} -> {message}", 200),
            blame="harness",
            confidence=0.9,
        ),
    )


def missed_program(step: Step) -> tuple[str, str, bool] | None:
    """(program, the error line, whether it was the harness's tool that crashed) when the step's command needed a
    program it could not run: one that is not installed, or a tool of the harness whose script raised."""
    if found := NOT_FOUND.search(step.output):
        return found.group(1), found.group(0), False
    if frames := TOOL_FRAME.findall(step.output):
        error = next((line.strip() for line in reversed(step.output.splitlines()) if line.strip()), "")
        return frames[-1], error, True
    return None


def calling_line(step: Step, program: str) -> str:
    """The line of the step's command that runs `program` (a command is often several lines, with comments): one
    where it is the command (`sqlite3 a.db`, `cd /app && sqlite3 a.db`, `sudo sqlite3 a.db`) before one that only
    names it (`apt-get install sqlite3`)."""
    lines = command_lines(step.action or "")
    for runs in (running(program), rf"(?:^|[\s;&|(`]){re.escape(program)}(?:\s|$)"):
        if line := next((line for line in lines if re.search(runs, line)), None):
            return line
    return step_key(step)


def format_errors(trajectory: Trajectory) -> Triage | None:
    if trajectory.exit_reason != "format_errors":
        return None
    errors = [step for step in trajectory.steps if step.action is None]
    reason = (errors[-1].format_error if errors else None) or "unparseable reply"
    return Triage(
        final=True,
        record=FailureRecord(
            category="format-errors",
            pattern=f"replies the harness cannot parse as an action: {reason}",
            root_cause=f"The agent kept sending replies without a runnable action ({cut(reason, 120)}).",
            critical_step=errors[0].index if errors else last_step(trajectory),
            evidence=cut(errors[-1].reply if errors else "", 200),
            blame="harness",
            confidence=0.8,
        ),
    )


def command_loop(trajectory: Trajectory, loop_repeats: int) -> Triage | None:
    """Commands repeated in a row `loop_repeats` times,
    or repeated (anywhere) until the harness's loop guard ended it."""
    steps = trajectory.steps
    loop = longest_loop([step_key(step) for step in steps], loop_repeats)
    if loop is None and trajectory.exit_reason == "loop_guard" and steps:
        command, times = Counter(step_key(step) for step in steps).most_common(1)[0]
        first = next(step for step in steps if step_key(step) == command)
        return Triage(
            final=True,
            record=FailureRecord(
                category="command-loop",
                pattern="repeats the same commands without changing its approach",
                root_cause=f"The agent ran `{cut(command, 120)}` {times} times, and repeated earlier commands with the "
                "same output until the harness's loop guard ended the episode.",
                critical_step=first.index,
                evidence=f"{times} times: `{cut(command, 150)}`",
                blame="harness",
                confidence=0.7,
            ),
        )
    if loop is None:
        return None
    first, last = steps[loop.start], steps[loop.end - 1]
    commands = " | ".join(step_key(step) for step in steps[loop.start : loop.start + loop.period])
    return Triage(
        final=True,
        record=FailureRecord(
            category="command-loop",
            pattern="repeats the same commands without changing its approach",
            root_cause=(
                f"The agent ran `{cut(commands, 120)}` {loop.times} times in a row instead of changing its approach."
            ),
            critical_step=first.index,
            evidence=f"steps {first.index}-{last.index}: `{cut(commands, 150)}`",
            blame="harness",
            confidence=0.7,
        ),
    )


def unchecked_success(trajectory: Trajectory) -> Triage | None:
    """A wrong claim of success whose mechanism is plain from the steps: it followed a failed command,
    or one command."""
    if trajectory.exit_reason != "done":
        return None
    work = work_steps(trajectory)
    if not work:
        return None
    last, claim = work[-1], claim_step(trajectory) or trajectory.steps[-1]
    if last.exit_code not in (0, None) or last.timed_out:
        failed = "timed out" if last.timed_out else f"exited {last.exit_code}"
        return Triage(
            final=True,
            record=FailureRecord(
                category="premature-success",
                pattern="declares the task done right after its last command failed",
                root_cause=(
                    f"The agent declared success although its last command `{cut(step_key(last), 100)}` {failed}."
                ),
                critical_step=claim.index,
                evidence=cut(f"{step_key(last)} -> {last.output.strip()}", 200),
                blame="harness",
                confidence=0.9,
            ),
        )
    if len(work) == 1:
        return Triage(
            final=True,
            record=FailureRecord(
                category="no-verification",
                pattern=(
                    "declares the task done after a single command, without inspecting the input or checking the result"
                ),
                root_cause=(
                    f"The agent ran only `{cut(step_key(last), 100)}` and declared success without looking at what it "
                    "produced."
                ),
                critical_step=claim.index,
                evidence=cut(step_key(last), 200),
                blame="harness",
                confidence=0.8,
            ),
        )
    return None


def work_steps(trajectory: Trajectory) -> list[Step]:
    """The steps that ran a command other than a bare claim of success."""
    return [step for step in trajectory.steps if step.action and not is_bare_claim(step.action)]


def is_bare_claim(action: str) -> bool:
    """The action only says the task is done (`echo TASK_DONE`), it does no work."""
    return action.strip().replace('"', "").replace("'", "") == f"echo {DONE_MARKER}"


def claim_step(trajectory: Trajectory) -> Step | None:
    """The step in which the agent said it had finished."""
    return next((step for step in reversed(trajectory.steps) if step.finished), None)


def declared_success(trajectory: Trajectory) -> Triage | None:
    if trajectory.exit_reason != "done":
        return None
    claim = claim_step(trajectory)
    return Triage(
        final=False,
        record=FailureRecord(
            category="premature-success",
            pattern="declares the task done although the verifier disagrees",
            root_cause=f"The agent declared success but the verifier gave reward {trajectory.reward:g}.",
            critical_step=claim.index if claim else last_step(trajectory),
            evidence=cut(claim.reply if claim else "", 200),
            blame="harness",
            confidence=0.4,
        ),
    )


def exhaustion(trajectory: Trajectory) -> Triage:
    limit, blame = LIMITS.get(trajectory.exit_reason, (trajectory.exit_reason.replace("_", " "), "model"))
    timed_out = next((step for step in trajectory.steps if step.timed_out), None)
    evidence = (
        f"step {timed_out.index} timed out: `{cut(timed_out.action or '', 150)}`"
        if timed_out
        else f"{len(trajectory.steps)} steps"
    )
    return Triage(
        final=False,
        record=FailureRecord(
            category=trajectory.exit_reason.replace("_", "-"),
            pattern=f"runs out of the {limit} before finishing",
            root_cause=f"The agent ran out of the {limit} without finishing the task.",
            critical_step=last_step(trajectory),
            evidence=evidence,
            blame=blame,
            confidence=0.3,
        ),
    )


def last_step(trajectory: Trajectory) -> int:
    return trajectory.steps[-1].index if trajectory.steps else 0
