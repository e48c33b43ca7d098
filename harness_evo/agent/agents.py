"""The agents a rollout can run: the harness driven by a model, the task's oracle, and a do-nothing baseline."""

import shlex
import threading
import time
from collections.abc import Iterable
from typing import Protocol

from harness_evo.agent.actions import DONE_MARKER, STOP_SEQUENCES, closed, cut, says_done
from harness_evo.agent.discovery import discover
from harness_evo.agent.notices import Notices
from harness_evo.agent.script_steps import script_steps
from harness_evo.agent.task_skills import bundled
from harness_evo.agent.trajectory import ExitReason, Step, Trajectory
from harness_evo.errors import HarnessError
from harness_evo.harness import Harness, Skill, Tool
from harness_evo.harness.actions import FormatError, parse_bash_block
from harness_evo.harness.examples import Example
from harness_evo.harness.features import Finding
from harness_evo.harness.folder import SANDBOX_ROOT
from harness_evo.llm import ContextTooLong
from harness_evo.sandbox import CommandResult, Sandbox
from harness_evo.taskset import Task
from harness_evo.taskset.task import SOLUTION_DIR

MAX_FORMAT_ERRORS_IN_A_ROW = 3
TOOLS_BIN = f"{SANDBOX_ROOT}/bin"
CONFIRM_QUESTION = (
    "You said the task is done. Check the result against the task once more (look at the files or output it "
    "asked for). If it is right, finish again; if not, fix it."
)
"""What the agent is asked when `confirm_done = true` and the harness has no `prompts/confirm_done.md.j2`."""


class Submitted(Exception):
    """The agent said it has finished."""


class LimitsExceeded(Exception):
    """The episode ran out of steps, time or well-formed replies."""

    def __init__(self, reason: ExitReason):
        super().__init__(reason)
        self.reason = reason


class Interrupted(Exception):
    """The run is stopping (Ctrl-C); the rollout is abandoned and will be run again on resume."""


class Agent(Protocol):
    name: str

    def run(self, harness: Harness, task: Task, sandbox: Sandbox, trajectory: Trajectory) -> None:
        """Act in the sandbox, filling `trajectory` (steps, messages, exit reason) as it goes."""
        ...


class ModelAgent:
    """The harness under evolution: render its prompts, ask the solver model, run one bash block per reply."""

    name = "model"

    def __init__(self, llm, stop: threading.Event | None = None):
        self.llm = llm
        self.stop = stop or threading.Event()

    def run(self, harness: Harness, task: Task, sandbox: Sandbox, trajectory: Trajectory) -> None:
        settings = harness.agent
        if settings.action_format != "bash-block":
            raise HarnessError(
                f"{harness.where('harness.toml')}: action_format {settings.action_format!r} is not supported by "
                'the agent loop yet (neither embedded model makes native tool calls); use "bash-block"'
            )
        install_harness(harness, sandbox)
        brought, files = bundled(task)
        if files:
            sandbox.write_files(files)
        skills = [*harness.skills, *brought]
        examples = harness.examples_for(task.instruction)
        trajectory.examples = [example.name for example in examples]
        started, errors_in_a_row = time.monotonic(), 0

        def run(command: str, timeout_s: float) -> CommandResult:
            return sandbox.run(with_tools(command), timeout_s=timeout_s)

        if settings.discovery:
            trajectory.discovery = discover(settings, task.instruction, run)
        notices = Notices(settings, run)
        messages = trajectory.messages
        messages += opening(harness, task, examples, skills, trajectory.discovery)
        try:
            while True:
                remaining = task.agent_timeout_s - (time.monotonic() - started)
                if self.stop.is_set():
                    raise Interrupted()
                if len(trajectory.steps) >= settings.step_limit:
                    raise LimitsExceeded("step_limit")
                if remaining <= 0:
                    raise LimitsExceeded("time_limit")
                try:
                    reply = self.llm.complete("solver", messages, seed=trajectory.trial, **sampling_of(harness))
                except ContextTooLong:
                    raise LimitsExceeded("context_limit") from None
                step = Step(
                    index=len(trajectory.steps),
                    reply=reply.text,
                    model_s=reply.latency_s,
                    cached=reply.cached,
                    tokens_in=reply.tokens_in,
                    tokens_out=reply.tokens_out,
                )
                trajectory.steps.append(step)
                trajectory.cost += reply.cost
                messages.append({"role": "assistant", "content": closed(reply.text)})
                try:
                    step.action = parse_bash_block(reply.text)
                except FormatError as e:
                    step.format_error = str(e)
                    trajectory.format_errors += 1
                    errors_in_a_row += 1
                    if errors_in_a_row >= MAX_FORMAT_ERRORS_IN_A_ROW:
                        raise LimitsExceeded("format_errors") from None
                    messages.append({"role": "user", "content": harness.render("format_error.md.j2", error=str(e))})
                    continue
                errors_in_a_row = 0
                remaining = task.agent_timeout_s - (time.monotonic() - started)  # the model's reply took time too
                timeout = max(1.0, min(settings.command_timeout_s, remaining))
                result = sandbox.run(with_tools(step.action), timeout_s=timeout)
                step.output, step.exit_code = result.output, result.exit_code
                step.timed_out, step.duration_s = result.timed_out, result.duration_s
                if says_done(result.output):
                    if harness.confirms_done and trajectory.confirmations == 0:
                        trajectory.confirmations += 1
                        messages.append({"role": "user", "content": confirmation(harness)})
                        continue
                    step.finished = True
                    raise Submitted()
                notice = notices.after(step.action, result)
                if notices.looping:
                    raise LimitsExceeded("loop_guard")
                messages.append(
                    {
                        "role": "user",
                        "content": harness.render(
                            "observation.md.j2",
                            output=cut(result.output, settings.max_observation_chars),
                            exit_code=result.exit_code,
                            timed_out=result.timed_out,
                            step=len(trajectory.steps),
                            steps_left=settings.step_limit - len(trajectory.steps),
                            elapsed_s=time.monotonic() - started,
                            time_limit_s=task.agent_timeout_s,
                            **notice.model_dump(),
                        ),
                    }
                )
        except Submitted:
            trajectory.exit_reason = "done"
        except LimitsExceeded as e:
            trajectory.exit_reason = e.reason


def opening(
    harness: Harness, task: Task, examples: list[Example], skills: list[Skill], discovery: list[Finding]
) -> list[dict]:
    """The first two messages of an episode: the system prompt and the task's instance prompt (with the examples
    retrieved for it, the skills listed and what workspace discovery found)."""
    return [
        {"role": "system", "content": harness.render("system.md.j2", skills=skills)},
        {
            "role": "user",
            "content": harness.render(
                "instance.md.j2",
                instruction=task.instruction,
                step=0,
                steps_left=harness.agent.step_limit,
                examples=examples,
                skills=skills,
                discovery=discovery,
            ),
        },
    ]


def sampling_of(harness: Harness) -> dict:
    """How the solver model samples a reply under `harness`: its stop sequences, temperature and reply cap."""
    sampling = harness.sampling
    return {
        "stop": [*STOP_SEQUENCES, *sampling.stop],
        "temperature": sampling.temperature,
        "max_tokens": sampling.max_tokens,
    }


def confirmation(harness: Harness) -> str:
    """The question asking the agent to confirm it is done: the harness's template, or the built-in one."""
    return harness.render("confirm_done.md.j2") if harness.has_template("confirm_done.md.j2") else CONFIRM_QUESTION


class OracleAgent:
    """Runs the task's reference solution (`solution/solve.sh`), to validate tasks as Harbor's oracle does."""

    name = "oracle"

    def run(self, harness: Harness, task: Task, sandbox: Sandbox, trajectory: Trajectory) -> None:
        sandbox.copy_dir(task.solution_dir, SOLUTION_DIR)
        result = sandbox.run(f"bash {SOLUTION_DIR}/solve.sh", timeout_s=task.agent_timeout_s)
        trajectory.steps.append(
            Step(
                index=0,
                reply="(oracle)",
                action=f"bash {SOLUTION_DIR}/solve.sh",
                output=result.output,
                exit_code=result.exit_code,
                timed_out=result.timed_out,
                duration_s=result.duration_s,
                finished=True,
            )
        )
        trajectory.exit_reason = "time_limit" if result.timed_out else "done"


class SolutionAgent:
    """Runs the task's reference solution as an agent would: one command of `solution/solve.sh` per step (see
    `script_steps`), each shown its output, then `echo TASK_DONE`;
    its passed rollouts are worked examples to harvest."""

    name = "solution"

    def run(self, harness: Harness, task: Task, sandbox: Sandbox, trajectory: Trajectory) -> None:
        script = task.solution_dir / "solve.sh"
        commands = script_steps(script.read_text()) if script.is_file() else []
        install_harness(harness, sandbox)
        for command in [*commands, f"echo {DONE_MARKER}"]:
            result = sandbox.run(with_tools(command), timeout_s=max(1.0, harness.agent.command_timeout_s))
            trajectory.steps.append(
                Step(
                    index=len(trajectory.steps),
                    reply=f"```bash\n{command}\n```",
                    action=command,
                    output=result.output,
                    exit_code=result.exit_code,
                    timed_out=result.timed_out,
                    duration_s=result.duration_s,
                    finished=says_done(result.output),
                )
            )
        trajectory.exit_reason = "done" if trajectory.steps[-1].finished else "step_limit"


class NoopAgent:
    """Does nothing and says it is done: every verifier must give it 0."""

    name = "noop"

    def run(self, harness: Harness, task: Task, sandbox: Sandbox, trajectory: Trajectory) -> None:
        trajectory.exit_reason = "done"


def install_harness(harness: Harness, sandbox: Sandbox) -> None:
    """Copy tools and skills to /opt/harness and put a command for each tool on PATH (in /opt/harness/bin)."""
    sandbox.write_files(harness.files_for_sandbox())
    if wrappers := tool_wrappers(harness.tools):
        sandbox.write_files(wrappers, executable=True)


def tool_wrappers(tools: Iterable[Tool]) -> dict[str, str]:
    """The program on PATH for each tool: it runs the tool's command with its arguments, `$TOOL_DIR` its folder."""
    return {
        f"{TOOLS_BIN}/{tool.name}": (
            f'#!/bin/sh\nTOOL_DIR={shlex.quote(tool.folder)}\nexport TOOL_DIR\nexec {tool.command} "$@"\n'
        )
        for tool in tools
    }


def with_tools(command: str) -> str:
    """`command` as the agent's shell runs it: with the harness's tools on PATH."""
    return f'export PATH="{TOOLS_BIN}:$PATH"\n{command}'
