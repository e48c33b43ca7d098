"""Harness features the agent loop enforces in code: workspace discovery, the loop guard, the missing-program hint.
Real Docker and the scripted model; each feature is off in the default harness and on by one line of harness.toml."""

import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness_evo.agent.discovery import path_words
from harness_evo.agent.evaluate import evaluate
from harness_evo.agent.notices import Notices
from harness_evo.agent.session import session
from harness_evo.agent.trajectory import Step, Trajectory
from harness_evo.config import RunConfig
from harness_evo.errors import HarnessError
from harness_evo.evolve.knobs import KnobStep, knob_edit
from harness_evo.failures.triage import triage
from harness_evo.harness import AgentSettings, Harness
from harness_evo.harness.settings_edit import set_setting
from harness_evo.llm import scripted
from harness_evo.sandbox import CommandResult
from harness_evo.store import RunStore

ROOT = Path(__file__).parents[1]
HARNESS = ROOT / "harnesses" / "bash-agent"
GREETING = ROOT / "tests" / "fixtures" / "eval-tasks" / "greeting"


def bash(command: str) -> str:
    return f"```bash\n{command}\n```"


def harness_with(tmp_path: Path, **agent) -> Path:
    """The default harness with these `[agent]` settings."""
    folder = shutil.copytree(HARNESS, tmp_path / f"harness-{time.monotonic_ns()}")
    toml = folder / "harness.toml"
    for key, value in agent.items():
        toml.write_text(set_setting(toml.read_text(), "agent", key, value))
    return folder


def suite(tmp_path: Path, task: Path = GREETING) -> Path:
    """A suite of one task, in the train split."""
    folder = tmp_path / f"suite-{time.monotonic_ns()}"
    shutil.copytree(task, folder / task.name)
    (folder / "suite.toml").write_text(f'[splits]\ntrain = ["{task.name}"]\ndev = []\ntest = []\n')
    return folder


def rollout(tmp_path: Path, harness: Path, solver, tasks: Path) -> tuple[dict, Trajectory]:
    """Evaluate `harness` on the one task of `tasks` with the scripted `solver`: the rollout's row and trajectory."""
    name = f"features-{time.monotonic_ns()}"
    scripted.register(name, solver)
    config = RunConfig(harness=harness, tasks=tasks, split="train")
    config.models.solver.model = f"scripted/{name}"
    store = RunStore.create(tmp_path / "runs", "eval")
    with session(store, config) as run:
        evaluate(run)
    [row] = store.rows("rollouts")
    return row, Trajectory.model_validate(store.read_json(row["trajectory"]))


def greeter(messages: list[dict]) -> str:
    return bash("echo 'hello harness' > /app/greeting.txt && echo TASK_DONE")


@pytest.mark.docker
def test_a_solver_that_needs_the_working_folders_listing_passes_with_discovery_and_fails_without(
    tmp_path: Path, hidden_log_task, log_writer
):
    tasks = suite(tmp_path, hidden_log_task(tmp_path))

    without, _ = rollout(tmp_path, harness_with(tmp_path), log_writer, tasks)
    found, trajectory = rollout(tmp_path, harness_with(tmp_path, discovery=True), log_writer, tasks)

    assert not without["passed"] and found["passed"]
    first = trajectory.messages[1]["content"]
    assert "$ ls -la" in first and "run-7f3a.log" in first and "$ pwd\n/app" in first
    assert "$ head -n 10 notes.txt\nKeep the log file as it is" in first, "the file the instruction names is shown"
    assert [finding.command for finding in trajectory.discovery] == ["pwd", "ls -la", "head -n 10 notes.txt"]


@pytest.mark.docker
def test_a_discovery_command_that_fails_or_times_out_is_said_so_in_the_first_prompt_and_the_rollout_goes_on(
    tmp_path: Path,
):
    harness = harness_with(
        tmp_path, discovery=True, command_timeout_s=2, discovery_commands=["cat missing.cfg", "sleep 30", "ls"]
    )

    row, trajectory = rollout(tmp_path, harness, greeter, suite(tmp_path))

    assert row["passed"] and row["exit_reason"] == "done"
    first = trajectory.messages[1]["content"]
    assert "$ cat missing.cfg\n(failed: exit code 1)\ncat: missing.cfg: No such file or directory" in first
    assert "$ sleep 30\n(timed out after 2.0 s)" in first
    assert "$ ls\nnotes.txt" in first, "the commands after a failed one still run"
    assert [finding.failed for finding in trajectory.discovery] == [True, True, False]


@pytest.mark.docker
def test_the_loop_guard_says_a_command_repeats_and_ends_the_episode_at_the_nth_repeat(tmp_path: Path):
    harness = harness_with(tmp_path, loop_guard=True, loop_guard_repeats=2)

    row, trajectory = rollout(tmp_path, harness, lambda messages: bash("cat /app/notes.txt"), suite(tmp_path))

    assert row["exit_reason"] == "loop_guard" and row["steps"] == 3 and not row["passed"], "the step limit is 12"
    observations = [message["content"] for message in trajectory.messages[3::2]]
    assert (
        "same output" not in observations[0]
        and "You ran this same command before and got this same output" in observations[1]
    )


@pytest.mark.docker
def test_a_missing_program_is_named_with_what_is_installed_to_do_its_job(tmp_path: Path):
    harness = harness_with(tmp_path, missing_hint=True)
    replies = iter([bash("sqlite3 /app/data.db 'select 1'"), bash("frobnicate --all"), bash("sudo ls"), greeter([])])

    row, trajectory = rollout(tmp_path, harness, lambda messages: next(replies), suite(tmp_path))

    assert row["passed"]
    known, unknown, root = (trajectory.messages[i]["content"] for i in (3, 5, 7))
    assert "Use instead: the same command without sudo (you are root)." in root
    assert "`sqlite3` is not installed here" in known and "Use instead: python3 (its sqlite3 module)." in known
    assert (
        "`frobnicate` is not installed here" in unknown
        and "Use instead: python3; perl; awk; sed; grep; find; sort; tar." in unknown
    )


def test_features_are_off_in_the_default_harness_and_its_prompts_render_as_without_them():
    harness = Harness.load(HARNESS)
    settings = harness.agent
    assert not (settings.discovery or settings.loop_guard or settings.missing_hint)
    assert "What the working folder holds" not in harness.render(
        "instance.md.j2", instruction="x", step=0, steps_left=1
    )
    observation = harness.render(
        "observation.md.j2",
        output="hi",
        exit_code=0,
        timed_out=False,
        step=1,
        steps_left=1,
        elapsed_s=1.0,
        time_limit_s=9.0,
    )
    assert observation == "Exit code: 0\nOutput:\nhi"


@pytest.mark.parametrize(
    ("setting", "value", "problem"),
    [
        ("loop_guard_repeats", 0, "loop_guard_repeats"),
        ("discovery_head_lines", -1, "discovery_head_lines"),
        ("discovery_commands", ["pwd", ""], "discovery_commands.1: String should have at least 1 character"),
    ],
)
def test_a_setting_out_of_its_bounds_is_a_one_line_error(tmp_path: Path, setting: str, value: int | list, problem: str):
    with pytest.raises(HarnessError) as error:
        Harness.load(harness_with(tmp_path, **{setting: value}))
    assert problem in str(error.value) and "\n" not in str(error.value)


def test_a_guard_repeat_count_below_1_is_one_line_from_the_command(tmp_path: Path):
    harness = harness_with(tmp_path, loop_guard=True, loop_guard_repeats=0)

    process = subprocess.run(
        [sys.executable, "-m", "harness_evo.cli", "eval", "--harness", str(harness), "--runs", str(tmp_path / "runs")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert process.returncode == 2 and "Traceback" not in process.stderr and process.stderr.strip().count("\n") == 0
    assert "agent.loop_guard_repeats: Input should be greater than or equal to 1" in process.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("setting", "template"),
    [("discovery", "instance.md.j2"), ("loop_guard", "observation.md.j2"), ("missing_hint", "observation.md.j2")],
)
def test_a_feature_turned_on_in_a_harness_whose_template_does_not_show_it_is_refused(
    tmp_path: Path, setting: str, template: str
):
    folder = harness_with(tmp_path, **{setting: True})
    (folder / "prompts" / template).write_text("{{ instruction }}" if template == "instance.md.j2" else "{{ output }}")

    with pytest.raises(
        HarnessError, match=rf"\[agent\] {setting} is on, but prompts/{re.escape(template)} does not show"
    ):
        Harness.load(folder)


def test_the_loop_guard_counts_a_command_only_when_its_output_is_the_same_too():
    notices = Notices(
        AgentSettings(loop_guard=True, loop_guard_repeats=2),
        run=lambda command, timeout_s: CommandResult(output="", exit_code=0),
    )
    same, other = CommandResult(output="a\n", exit_code=0), CommandResult(output="b\n", exit_code=0)

    counts = [
        notices.after(command, result).repeated
        for command, result in [("ls", same), ("ls", other), ("ls ", same), ("cat x", same), ("ls", other)]
    ]

    assert counts == [0, 0, 1, 0, 1] and notices.looping


def test_the_words_of_an_instruction_that_look_like_paths():
    instruction = (
        "Read `/app/data.csv` and config.yaml, then write the sum to out/total.txt. Version 3.5 is fine; "
        "see https://example.com/a.html (not a path). Put it in /srv/."
    )
    assert path_words(instruction) == ["/app/data.csv", "config.yaml", "out/total.txt", "/srv/"]


def test_a_rollout_the_loop_guard_ended_is_triaged_as_a_command_loop_without_a_model():
    steps = [
        Step(index=i, reply=bash(command), action=command, output=output, exit_code=0)
        for i, (command, output) in enumerate([("ls", "a"), ("cat a", "x"), ("ls", "a"), ("cat a", "x")])
    ]
    trajectory = Trajectory(
        task_id="t", trial=0, harness_hash="h", model="m", steps=steps, exit_reason="loop_guard", reward=0.0
    )

    found = triage(trajectory, loop_repeats=3)

    assert (
        found.final
        and found.record.category == "command-loop"
        and "loop guard ended the episode" in found.record.root_cause
    )


@pytest.mark.parametrize("feature", ["discovery", "loop_guard", "missing_hint"])
def test_a_knob_step_turns_a_feature_on_in_the_default_harness(feature: str):
    parent = Harness.load(HARNESS)

    child = parent.apply(knob_edit(parent, KnobStep(knob=f"agent.{feature}", before=False, after=True), "any"))

    assert getattr(child.agent, feature) and child.changed_paths(parent) == ["harness.toml"]
