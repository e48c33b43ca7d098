"""A passed rollout as a worked example (`examples/<name>.md`), for a harness to show tasks like it."""

from harness_evo.agent.actions import closed, cut, says_done
from harness_evo.agent.agents import SolutionAgent
from harness_evo.agent.trajectory import Step, Trajectory
from harness_evo.harness import Harness
from harness_evo.harness.actions import FormatError, parse_bash_block
from harness_evo.harness.examples import Example, Turn
from harness_evo.taskset import Task

MAX_OUTPUT_CHARS = 600
"""A command's output in an example is cut to this many characters (head and tail kept): examples count toward the
harness's size budget and the prompt of every task they are retrieved for."""


def as_example(
    trajectory: Trajectory,
    task: Task,
    harness: Harness,
    name: str | None = None,
    max_output_chars: int = MAX_OUTPUT_CHARS,
) -> Example:
    """The rollout of `task` by `harness` that passed, as an example named `name` (the task's id unless given): each
    reply that ran, with the observation the harness showed for it, to the finish; replies that did not parse, and a
    finish the harness asked the agent to confirm, are left out."""
    if not trajectory.passed or not trajectory.steps or not trajectory.steps[-1].finished:
        raise ValueError(
            f"the rollout of {trajectory.task_id} (trial {trajectory.trial}) did not pass by saying it was done"
        )
    ran = [
        step for step in trajectory.steps if step.action is not None and (step.finished or not says_done(step.output))
    ]
    turns = [
        Turn(
            reply=reply(step),
            observation=harness.render(
                "observation.md.j2",
                output=cut(step.output, max_output_chars),
                exit_code=step.exit_code,
                timed_out=step.timed_out,
                step=step.index + 1,
                steps_left=harness.agent.step_limit - step.index - 1,
            ),
        )
        for step in ran
    ]
    return Example(
        name=name or task.id,
        task=task.id,
        category=task.category,
        tags=task.tags,
        source="solution" if trajectory.model == SolutionAgent.name else "rollout",
        instruction=task.instruction,
        turns=turns,
    )


def reply(step: Step) -> str:
    """The reply as the model meant it, or only its command when the reply does not read back as that command."""
    text = closed(step.reply)
    try:
        if parse_bash_block(text) == step.action:
            return text
    except FormatError:
        pass
    return f"```bash\n{step.action}\n```"
