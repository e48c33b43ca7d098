"""Harvesting: solved episodes of passed train rollouts become examples, gated away from their own tasks; end to end, a
solver that needs a similar solved example is lifted on dev by the harvest the gate accepted."""

import contextlib
import random
import re
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.agent.script_steps import script_steps
from harness_evo.agent.trajectory import Step, Trajectory
from harness_evo.config import AcceptanceConfig, SearchConfig
from harness_evo.errors import UserError
from harness_evo.evolve import session
from harness_evo.evolve.critic import Critic
from harness_evo.evolve.harvest import choose_episodes, harmful_examples, harvest, retrieving_tasks
from harness_evo.evolve.plan import PatternAndRegression
from harness_evo.evolve.proposer import shown_components
from harness_evo.evolve.target import Target
from harness_evo.harness import Edit, Harness, Write
from harness_evo.store import RunStore
from harness_evo.taskset import Task

DEFAULT = Path(__file__).parents[1] / "harnesses" / "bash-agent"
INSTRUCTION = "Write the word {word} into /app/{word}.txt."


def task(word: str) -> Task:
    return Task(
        id=word, folder=Path("/nowhere"), instruction=INSTRUCTION.format(word=word), category="files", tags=["fixture"]
    )


def rollout(
    task_id: str, *commands: str, trial: int = 0, passed: bool = True, examples: tuple[str, ...] = ()
) -> Trajectory:
    """A rollout running `commands`, then the done marker."""
    steps = [
        Step(index=k, reply=f"```bash\n{command}\n```", action=command, output="ok\n", exit_code=0)
        for k, command in enumerate(commands)
    ]
    steps.append(
        Step(
            index=len(steps),
            reply="```bash\necho TASK_DONE\n```",
            action="echo TASK_DONE",
            output="TASK_DONE\n",
            exit_code=0,
            finished=True,
        )
    )
    return Trajectory(
        task_id=task_id,
        trial=trial,
        harness_hash="h",
        model="scripted/x",
        steps=steps,
        reward=1.0 if passed else 0.0,
        examples=list(examples),
    )


def test_the_episode_kept_per_task_is_the_shortest_that_looked_and_checked_and_never_a_dev_or_test_task():
    blind = rollout("sun", "echo sun > /app/sun.txt")
    long = rollout("sun", "ls /app", "cat /app/notes", "echo sun > /app/sun.txt", "cat /app/sun.txt", trial=1)
    short = rollout("sun", "ls /app", "echo sun > /app/sun.txt", "cat /app/sun.txt", trial=2)
    unchecked = rollout("moon", "ls /app", "echo moon > /app/moon.txt")
    failed = rollout("star", "ls /app", "echo star > /app/star.txt", "cat /app/star.txt", passed=False)
    dev = rollout("rain", "ls /app", "echo rain > /app/rain.txt", "cat /app/rain.txt")

    chosen = choose_episodes([blind, long, short, unchecked, failed, dev], train={"sun", "moon", "star"})

    assert [(t.task_id, t.trial) for t in chosen] == [("moon", 0), ("sun", 2)], (
        "one per task; an unchecked one only when it is all"
    )
    assert choose_episodes([short, unchecked], train={"sun", "moon"}, taken={"sun"}) == [unchecked]


def test_a_harvest_adds_an_example_per_solved_train_task_and_shows_two_when_the_parent_showed_none():
    parent = Harness.load(DEFAULT)
    tasks = {word: task(word) for word in ("sun", "moon", "rain")}
    trajectories = [
        rollout("sun", "ls /app", "echo sun > /app/sun.txt", "cat /app/sun.txt"),
        rollout("rain", "echo rain > /app/rain.txt"),
    ]

    harvested = harvest(parent, trajectories, tasks, train={"sun", "moon"})
    child = parent.apply(harvested.edit)

    assert harvested.sources == ["sun"] and [example.name for example in child.examples] == ["sun"]
    assert child.agent.examples == 2 and parent.agent.examples == 0
    assert retrieving_tasks(parent, child, list(tasks.values()), harvested.sources) == ["moon", "rain"]
    assert harvest(child, trajectories, tasks, train={"sun", "moon"}) is None, "the parent already holds that episode"


def test_a_harvest_takes_only_the_examples_that_fit_the_size_budget_and_the_tasks_its_limit_picks():
    parent = Harness.load(DEFAULT)
    tasks = {word: task(word) for word in ("moon", "star", "sun")}
    trajectories = [
        rollout(word, "ls /app", f"echo {word} > /app/{word}.txt", f"cat /app/{word}.txt") for word in tasks
    ]
    every = parent.apply(harvest(parent, trajectories, tasks, train=set(tasks)).edit)
    one_example = len(every.components["examples/moon.md"])

    fitting = harvest(parent, trajectories, tasks, train=set(tasks), max_chars=parent.size + 100 + 2 * one_example + 10)
    assert fitting.sources == ["moon", "star"], "the third would leave the budget"
    assert harvest(parent, trajectories, tasks, train=set(tasks), max_chars=parent.size) is None
    limited = harvest(parent, trajectories, tasks, train=set(tasks), limit=lambda solved: solved[-1:])
    assert limited.sources == ["sun"]


def test_the_proposer_sees_many_long_examples_as_one_line_each():
    parent = Harness.load(DEFAULT)
    tasks = {word: task(word) for word in ("moon", "star", "sun")}
    few = parent.apply(harvest(parent, [rollout("moon", "ls /app")], tasks, train=set(tasks)).edit)
    assert shown_components(few)["examples/moon.md"] == few.components["examples/moon.md"]
    long = [rollout(word, "ls /app", "cat /app/" + "x" * 1200, f"cat /app/{word}.txt") for word in tasks]
    many = parent.apply(harvest(parent, long, tasks, train=set(tasks)).edit)
    shown = shown_components(many)
    assert (
        shown["examples/sun.md"].startswith("[a worked example of train task sun (rollout),")
        and len(shown["examples/sun.md"]) < 120
    )
    assert shown["harness.toml"] == many.components["harness.toml"]


def test_examples_that_only_failed_rollouts_retrieved_are_removed():
    trajectories = [
        rollout("moon", passed=False, examples=("sun", "tide")),
        rollout("star", passed=False, examples=("sun", "tide")),
        rollout("moon", trial=1, examples=("tide",)),
    ]
    assert harmful_examples(trajectories, ["sun", "tide", "unused"]) == ["sun"]


def test_the_leakage_check_lets_an_example_quote_its_train_task_and_nothing_else(tmp_path: Path):
    folder = tmp_path / "sun"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "test.sh").write_text('test "$(cat /app/sun.txt)" = "bright-sun-on-the-hill"\n')
    train = Task(
        id="sun", folder=folder, instruction="Write the words bright-sun-on-the-hill into /app/sun.txt now please."
    )
    parent = Harness.load(DEFAULT)
    example = harvest(
        parent,
        [rollout("sun", "ls /app", "echo bright-sun-on-the-hill > /app/sun.txt", "cat /app/sun.txt")],
        {"sun": train},
        train={"sun"},
    ).edit
    critic = Critic(SearchConfig(), [train])
    quoting_prompt = Edit(ops=[Write(path="prompts/confirm_done.md.j2", text=f"Remember: {train.instruction}")])

    assert critic.judge(parent, example, {}).status == "passed"
    refused = critic.judge(parent, quoting_prompt, Target(description="worked examples"))
    assert refused.status == "rejected_static" and any(
        "instruction of training task sun" in reason for reason in refused.reasons
    )


def test_the_gate_never_measures_an_example_on_the_task_it_came_from():
    train = [task(word) for word in ("sun", "moon", "star", "wind")]
    plan = PatternAndRegression(AcceptanceConfig(), train)
    parent = Harness.load(DEFAULT)
    target = Target(description="worked examples", task_ids=["sun", "moon"], sources=["sun"])

    gating = plan.plan(parent, parent, target, [("sun", True), ("star", True)], [], random.Random(0))

    assert "sun" not in gating.tasks and gating.tasks == ["moon", "star"] and gating.protected == ["star"]


# End to end: a solver that solves a task only when shown a solved one like it, or when told to go step by step.

TASK_LINE = re.compile(r"Write the word (\S+) into (/\S+\.txt)")


def imitator(messages: list[dict]) -> str:
    """Looks, writes, checks and finishes when the task says to go step by step or a solved example is in the prompt;
    otherwise says it is done at once."""
    prompt = messages[1]["content"]
    if "step by step" not in prompt and "Example 1:" not in prompt:
        return world.bash("echo TASK_DONE")
    word, path = TASK_LINE.findall(prompt)[-1]
    steps = [world.bash("ls /app"), world.bash(f"echo {word} > {path}"), world.bash(f"cat {path} && echo TASK_DONE")]
    return steps[min(sum(message["role"] == "assistant" for message in messages), len(steps) - 1)]


def idle(messages: list[dict]) -> str:
    """Says it is done at once, whatever the task."""
    return world.bash("echo TASK_DONE")


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_a_harvest_accepted_by_the_gate_lifts_dev(tmp_path: Path, harvest_config):
    store = session.start(harvest_config(tmp_path, imitator, ["harvest", "proposer"]), tmp_path / "runs")
    summary = session.run(store)

    [edit] = store.rows("edits")
    assert edit["move"] == "harvest" and edit["status"] == "accepted" and edit["sources"] == ["sun"]
    assert edit["gate"]["left_out"] == ["sun"] and "sun" not in edit["gate"]["tasks"], "the gate never measured sun"
    assert sorted(edit["gate"]["tasks"]) == ["moon", "star"] and (edit["gate"]["fixed"], edit["gate"]["broken"]) == (
        6,
        0,
    )
    child = store.folder / "harnesses" / edit["child_id"]
    assert (child / "examples" / "sun.md").is_file() and "examples = 2" in (child / "harness.toml").read_text()
    assert (summary.start_dev, summary.best_dev) == (0.0, 1.0) and summary.best_node == edit["child_id"]
    [iteration] = store.rows("iterations")
    assert iteration["outcome"].startswith(f"edit {edit['id']} accepted")


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_a_harvest_that_finds_no_passed_rollout_says_so(tmp_path: Path, harvest_config):
    store = session.start(harvest_config(tmp_path, idle, ["harvest"]), tmp_path / "runs")
    session.run(store)

    assert not store.rows("edits")
    [iteration] = store.rows("iterations")
    assert iteration["outcome"].startswith("harvest: no passed train rollout")


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_harvest_writes_a_harness_whose_examples_from_a_train_eval_lift_dev(cli, tmp_path: Path, eval_words):
    train_run = eval_words(cli, tmp_path, imitator, "train")
    out = tmp_path / "harvested"
    (tmp_path / "elsewhere").mkdir()

    with contextlib.chdir(tmp_path / "elsewhere"):  # not the folder the run's relative suite path was given from
        result = cli("harvest", train_run, "--out", out, "--runs", tmp_path / "runs")

    assert result.exit_code == 0, result.output
    assert "1 worked example(s), from passed train rollouts of sun" in result.output
    assert sorted(path.name for path in (out / "examples").iterdir()) == ["sun.md"]
    assert "examples = 2" in (out / "harness.toml").read_text()
    dev_run = eval_words(cli, tmp_path, imitator, "dev", harness=out)
    rollouts = RunStore.find(dev_run, tmp_path / "runs").rows("rollouts")
    assert len(rollouts) == 4 and all(row["passed"] for row in rollouts), (
        "shown the sun example, every dev rollout passes"
    )


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_harvest_of_a_run_with_no_passed_train_rollout_says_so_and_writes_nothing(cli, tmp_path: Path, eval_words):
    train_run = eval_words(cli, tmp_path, idle, "train")
    out = tmp_path / "harvested"

    result = cli("harvest", train_run, "--out", out, "--runs", tmp_path / "runs")

    message = str(result.exception)
    assert isinstance(result.exception, UserError) and "6 train rollout(s)" in message and ", 0 passed" in message
    assert "no solved episode" in message and not out.exists()


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_the_reference_solutions_run_a_command_per_step_and_become_examples_of_source_solution(
    cli, tmp_path: Path, eval_words
):
    train_run = eval_words(cli, tmp_path, idle, "train", agent="solution")
    rollouts = RunStore.find(train_run, tmp_path / "runs").rows("rollouts")
    assert len(rollouts) == 6 and all(row["passed"] and row["steps"] == 3 for row in rollouts), rollouts

    result = cli("harvest", train_run, "--out", tmp_path / "harvested", "--runs", tmp_path / "runs")

    assert result.exit_code == 0, result.output
    harness = Harness.load(tmp_path / "harvested")
    assert sorted(example.task for example in harness.examples) == ["moon", "star", "sun"]
    moon = next(example for example in harness.examples if example.task == "moon")
    assert moon.source == "solution"
    assert [turn.reply for turn in moon.turns] == [
        world.bash("echo moon > /app/moon.txt"),
        world.bash("cat /app/moon.txt"),
        world.bash("echo TASK_DONE"),
    ]
    assert "moon" in moon.turns[1].observation, "the observation is what the command really printed"


@pytest.mark.parametrize(
    "script, steps",
    [
        (
            "#!/bin/bash\nset -e\n\n# make it\nmkdir -p /out\nprintf 'a\\n' > /out/a\n",
            ["mkdir -p /out", "printf 'a\\n' > /out/a"],
        ),
        (
            "cat > /app/x.sh <<'SH'\n#!/bin/sh\n# kept: part of the file\necho hi\nSH\nchmod +x /app/x.sh\n",
            ["cat > /app/x.sh <<'SH'\n#!/bin/sh\n# kept: part of the file\necho hi\nSH", "chmod +x /app/x.sh"],
        ),
        ('for f in /app/*.txt; do\n  wc -l "$f"\ndone\n', ['for f in /app/*.txt; do\n  wc -l "$f"\ndone']),
        ("#!/bin/bash\nset -euo pipefail\ncd /app\nls\n", ["cd /app\nls"]),
        ("name=world\necho $name\n", ["name=world\necho $name"]),
        ("# nothing but a comment\n", []),
    ],
)
def test_a_solution_script_splits_into_one_complete_command_per_step_unless_they_share_shell_state(
    script: str, steps: list[str]
):
    assert script_steps(script) == steps


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_a_harvest_of_reference_solutions_takes_half_the_train_tasks_and_is_gated_on_the_others(
    tmp_path: Path, harvest_config
):
    config = harvest_config(tmp_path, imitator, ["harvest"])
    config.search = config.search.model_copy(update={"examples_from": ["solutions"]})
    store = session.start(config, tmp_path / "runs")
    summary = session.run(store)

    [edit] = store.rows("edits")
    assert edit["move"] == "harvest" and edit["status"] == "accepted" and len(edit["sources"]) == 1, edit
    [source] = edit["sources"]
    assert sorted(edit["gate"]["tasks"]) == sorted({"sun", "moon", "star"} - {source}), (
        "gated on the train tasks it did not quote"
    )
    child = Harness.load(store.folder / "harnesses" / edit["child_id"])
    assert [(example.task, example.source) for example in child.examples] == [(source, "solution")]
    assert (store.folder / "solutions" / "run.db").is_file()
    assert summary.rollouts == len(store.rows("rollouts")) and all(
        row["model"] != "solution" for row in store.rows("rollouts")
    ), "the solutions' episodes are no rollouts of the run"
    assert (summary.start_dev, summary.best_dev) == (0.0, 1.0)
