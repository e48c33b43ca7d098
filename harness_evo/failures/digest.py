"""A trajectory digested for a model: long outputs cut, repeated steps collapsed, under a hard token budget.

However long the episode, the digest never exceeds its budget: outputs are cut harder and harder, then the
middle of the episode is summarized in one line, and as a last resort the text itself is cut.
"""

import re
from collections import Counter

import litellm

from harness_evo.agent.trajectory import Step, Trajectory
from harness_evo.failures.repeats import Run, segment

OUTPUT_CAPS = (1500, 600, 250, 80)
"""Characters kept of each command output, tried in order until the digest fits its budget."""
COMMAND_CHARS = 300
THOUGHT_CHARS = 200


def count_tokens(text: str) -> int:
    """Tokens of `text` by litellm's counter: tiktoken's cl100k, exact for OpenAI models, an estimate for local ones."""
    return litellm.token_counter(text=text)


def digest(trajectory: Trajectory, budget: int) -> str:
    """The trajectory as text of at most `budget` tokens."""
    runs = segment([step_key(step) for step in trajectory.steps])
    header = outcome(trajectory)
    for cap in OUTPUT_CAPS:
        blocks = [render_run(trajectory.steps, run, cap) for run in runs]
        text = "\n".join([header, *blocks, verifier(trajectory, cap * 2)])
        if count_tokens(text) <= budget:
            return text
    return fit(elide(header, blocks, verifier(trajectory, cap * 2), trajectory.steps, runs, budget), budget)


def step_key(step: Step) -> str:
    """What makes two steps "the same": the command, or the kind of format error."""
    if step.action is not None:
        return " ".join(step.action.split())
    return f"format error: {step.format_error}"


def outcome(trajectory: Trajectory) -> str:
    reward = "none" if trajectory.reward is None else f"{trajectory.reward:g}"
    line = (
        f"outcome: {trajectory.exit_reason} after {len(trajectory.steps)} steps; verifier reward {reward}; "
        f"{trajectory.format_errors} format errors"
    )
    return line + (f"\nerror: {cut(trajectory.error, 400)}" if trajectory.error else "")


def verifier(trajectory: Trajectory, chars: int) -> str:
    return f"verifier output:\n{cut(trajectory.verifier_output.strip(), chars) or '(none)'}"


def render_run(steps: list[Step], run: Run, cap: int) -> str:
    first, last = steps[run.start], steps[run.end - 1]
    if run.times == 1:
        return render_step(first, cap)
    span = f"[steps {first.index}-{last.index}]"
    if run.period == 1:
        what = f"the same command {run.times} times: {command(first)}"
    else:
        what = f"the same {run.period} commands in turn, {run.times} times: " + " | ".join(
            command(step) for step in steps[run.start : run.start + run.period]
        )
    codes = sorted({str(step.exit_code) for step in steps[run.start : run.end]})
    return f"{span} {what}\n  -> exit codes {', '.join(codes)}; last output: {cut(last.output, cap)}"


def render_step(step: Step, cap: int) -> str:
    thought = cut(" ".join(re.sub(r"```.*?(```|$)", " ", step.reply, flags=re.S).split()), THOUGHT_CHARS)
    said = f" (said: {thought})" if thought else ""
    if step.action is None:
        return f"[step {step.index}] format error: {cut(step.format_error or '', 150)}{said}"
    if step.finished and not step.action.strip():
        return f"[step {step.index}] declares the task done{said}"
    status = f"exit {step.exit_code}" + (" (timed out)" if step.timed_out else "")
    done = " and declares the task done" if step.finished else ""
    return f"[step {step.index}] {command(step)}{done}{said}\n  -> {status}: {cut(step.output, cap) or '(no output)'}"


def command(step: Step) -> str:
    return f"$ {cut((step.action or '').strip(), COMMAND_CHARS)}"


def elide(header: str, blocks: list[str], footer: str, steps: list[Step], runs: list[Run], budget: int) -> str:
    """Keep the first blocks and the last ones (twice as many) that fit; one line summarizes the middle."""
    room = budget - count_tokens(f"{header}\n{footer}") - 80
    sizes = [count_tokens(block) + 1 for block in blocks]
    head, tail, used = 0, 0, 0
    for turn in range(len(blocks)):
        index = head if turn % 3 == 0 else len(blocks) - 1 - tail
        if head + tail >= len(blocks) or used + sizes[index] > room:
            break
        used += sizes[index]
        head, tail = (head + 1, tail) if turn % 3 == 0 else (head, tail + 1)
    middle = runs[head : len(runs) - tail]
    if not middle:
        return "\n".join([header, *blocks, footer])
    omitted = [step for run in middle for step in steps[run.start : run.end]]
    frequent = Counter(cut(step_key(step), 60) for step in omitted).most_common(3)
    listed = "; ".join(f"`{key}`" + (f" x{n}" if n > 1 else "") for key, n in frequent)
    summary = f"[steps {omitted[0].index}-{omitted[-1].index} omitted: {len(omitted)} steps, e.g. {listed}]"
    return "\n".join([header, *blocks[:head], summary, *blocks[len(blocks) - tail :], footer])


def fit(text: str, budget: int) -> str:
    """Cut `text` (head and tail kept) until it has at most `budget` tokens."""
    tokens = count_tokens(text)
    while tokens > budget:
        chars = int(len(text) * budget / tokens * 0.9)
        if chars < 100:
            return text[: max(budget, 0)]
        text = cut(text, chars)
        tokens = count_tokens(text)
    return text


def cut(text: str, chars: int) -> str:
    """At most about `chars` characters of `text`: its head and its tail (where errors usually are)."""
    if len(text) <= chars:
        return text
    head = chars * 2 // 5
    tail = chars - head
    return f"{text[:head]}[... {len(text) - chars} chars cut ...]{text[len(text) - tail :] if tail else ''}"
