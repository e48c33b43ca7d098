"""`harness-evo eval` end to end on real Docker: the agent loop, the verifier, the run folder."""

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import docker
import pytest
from rich.console import Console
from scipy.stats import binomtest

from harness_evo.agent.evaluate import evaluate
from harness_evo.agent.session import new_run, session
from harness_evo.agent.trajectory import Trajectory
from harness_evo.config import RunConfig
from harness_evo.llm import scripted
from harness_evo.store import Rollout, RunStore
from harness_evo.views.evaluation import eval_table

pytestmark = pytest.mark.docker

ROOT = Path(__file__).parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "eval-tasks"
HARNESS = ROOT / "harnesses" / "bash-agent"
LABEL = "harness-evo"


def bash(command: str) -> str:
    return f"```bash\n{command}\n```"


def run_eval(
    tmp_path: Path, replies, split: str = "train", tasks: Path = FIXTURES, harness: Path = HARNESS, **overrides
) -> RunStore:
    name = f"test-{time.monotonic_ns()}"
    scripted.register(name, replies)
    config = RunConfig(harness=harness, tasks=tasks, split=split, **overrides)
    config.models.solver.model = f"scripted/{name}"
    store = RunStore.create(tmp_path, "eval")
    with session(store, config) as run:
        evaluate(run)
    return store


def greeting_suite(tmp_path: Path) -> Path:
    """Only the greeting task, in the train split."""
    suite = tmp_path / "suite"
    shutil.copytree(FIXTURES / "greeting", suite / "greeting")
    (suite / "suite.toml").write_text('[splits]\ntrain = ["greeting"]\ndev = []\ntest = []\n')
    return suite


def test_scripted_model_solves_a_task_through_the_default_harness(tmp_path: Path):
    replies = [
        bash("ls"),
        bash("echo 'hello harness' > /app/greeting.txt"),
        bash("cat /app/greeting.txt && echo TASK_DONE"),
    ]
    store = run_eval(tmp_path, replies, tasks=greeting_suite(tmp_path))
    [row] = store.rows("rollouts")
    assert row["passed"] and row["reward"] == 1.0 and row["exit_reason"] == "done" and row["steps"] == 3
    trajectory = Trajectory.model_validate(store.read_json(row["trajectory"]))
    assert "notes.txt" in trajectory.steps[0].output  # the observation of `ls` in the task's workdir
    assert "notes.txt" in trajectory.messages[3]["content"]
    assert trajectory.steps[2].finished
    assert len(store.rows("llm_calls")) == 3
    assert (store.folder / "harnesses" / row["harness_hash"] / "harness.toml").is_file()
    assert store.info.status == "finished" and store.info.summary.pass_at_1 == 1.0


def test_eval_gives_pass_at_1_with_its_n_and_wilson_interval(tmp_path: Path):
    """Three trials, one at a time: the first and the last write the file, the middle one says done without it."""
    write, done = bash("echo 'hello harness' > /app/greeting.txt"), bash("echo TASK_DONE")
    name = f"test-interval-{time.monotonic_ns()}"
    scripted.register(name, [write, done, done, write, done])
    config = RunConfig(
        harness=HARNESS, tasks=greeting_suite(tmp_path), split="train", executor={"trials": 3, "workers": 1}
    )
    config.models.solver.model = f"scripted/{name}"
    store = RunStore.create(tmp_path, "eval")
    with session(store, config) as run:
        result = evaluate(run)
    wilson = binomtest(2, 3).proportion_ci(confidence_level=0.95, method="wilson")
    summary = store.info.summary
    assert (summary.pass_at_1, summary.passed, summary.n) == (pytest.approx(2 / 3), 2, 3)
    assert (summary.low, summary.high) == (pytest.approx(wilson.low), pytest.approx(wilson.high))
    console = Console(record=True, width=400, color_system=None, file=io.StringIO())
    console.print(eval_table(result, time.time()))
    screen = console.export_text()
    assert (
        f"pass@1 67% [{wilson.low:.0%}, {wilson.high:.0%}] (n=3) over scored rollouts" in screen
        and "[21%, 94%]" in screen
    )
    assert "2/3" in next(line for line in screen.splitlines() if "greeting" in line)


def test_tools_of_the_harness_are_on_the_agents_path(tmp_path: Path):
    replies = [bash("view /app/notes.txt"), bash("echo TASK_DONE")]
    store = run_eval(tmp_path, replies, tasks=greeting_suite(tmp_path))
    trajectory = Trajectory.model_validate(store.read_json(store.rows("rollouts")[0]["trajectory"]))
    assert "1  notes" in trajectory.steps[0].output


def test_skills_a_task_brings_are_listed_beside_the_harnesss_and_readable_in_the_sandbox(tmp_path: Path):
    suite = greeting_suite(tmp_path)
    skill = suite / "greeting" / "environment" / "skills" / "greeting-style"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeting-style\ndescription: How greetings are written here.\n---\nWrite exactly: hello harness\n"
    )

    def solver(messages: list[dict]) -> str:
        listed = [line for line in messages[0]["content"].splitlines() if "greeting-style" in line]
        if len(messages) == 2:
            path = next(word.strip("():") for word in listed[0].split() if word.strip("():").endswith("SKILL.md"))
            return bash(f"cat {path}")
        return bash("echo 'hello harness' > /app/greeting.txt && echo TASK_DONE")

    store = run_eval(tmp_path, solver, tasks=suite)
    trajectory = Trajectory.model_validate(store.read_json(store.rows("rollouts")[0]["trajectory"]))
    assert (
        "python-instead-of-missing-tools" in trajectory.messages[0]["content"]
    )  # the harness's own skill is still there
    assert "Write exactly: hello harness" in trajectory.steps[0].output


@pytest.mark.parametrize("brought_by", ["harness", "task"])
def test_claude_skill_dir_in_a_skill_is_the_folder_the_skill_is_installed_in(brought_by: str, tmp_path: Path):
    suite = greeting_suite(tmp_path)
    harness = shutil.copytree(HARNESS, tmp_path / "harness")
    skill = (
        harness / "skills" if brought_by == "harness" else suite / "greeting" / "environment" / "skills"
    ) / "greeter"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: greeter\ndescription: Writes the greeting.\n---\n"
        "Run `sh ${CLAUDE_SKILL_DIR}/scripts/greet.sh` to write it.\n"
    )
    (skill / "scripts" / "greet.sh").write_text("echo 'hello harness' > /app/greeting.txt\n")

    def solver(messages: list[dict]) -> str:
        if len(messages) == 2:
            listed = next(line for line in messages[0]["content"].splitlines() if "greeter" in line)
            return bash(
                f"cat {next(word.strip('():') for word in listed.split() if word.strip('():').endswith('SKILL.md'))}"
            )
        command = messages[-1]["content"].split("Run `", 1)[1].split("`", 1)[0]
        return bash(f"{command} && echo TASK_DONE")

    store = run_eval(tmp_path, solver, tasks=suite, harness=harness)
    [row] = store.rows("rollouts")
    trajectory = Trajectory.model_validate(store.read_json(row["trajectory"]))
    assert "${CLAUDE_SKILL_DIR}" not in trajectory.steps[0].output and "/scripts/greet.sh" in trajectory.steps[0].output
    assert row["passed"], trajectory.steps[-1].output


def test_an_agent_that_never_acts_fails_with_format_errors(tmp_path: Path):
    store = run_eval(
        tmp_path, lambda messages: "I have completed the task successfully.", tasks=greeting_suite(tmp_path)
    )
    [row] = store.rows("rollouts")
    assert (row["exit_reason"], row["reward"], row["passed"], row["format_errors"]) == ("format_errors", 0.0, False, 3)


def test_a_looping_agent_stops_at_the_step_limit(tmp_path: Path):
    store = run_eval(tmp_path, lambda messages: bash("ls"), tasks=greeting_suite(tmp_path))
    [row] = store.rows("rollouts")
    assert row["exit_reason"] == "step_limit" and row["steps"] == 12 and not row["passed"]


def test_a_command_past_its_timeout_is_killed_and_recorded(tmp_path: Path):
    harness = shutil.copytree(HARNESS, tmp_path / "harness")
    toml = harness / "harness.toml"
    toml.write_text(toml.read_text().replace("command_timeout_s = 30", "command_timeout_s = 2"))
    store = run_eval(
        tmp_path, [bash("sleep 60; echo woke"), bash("echo TASK_DONE")], tasks=greeting_suite(tmp_path), harness=harness
    )
    trajectory = Trajectory.model_validate(store.read_json(store.rows("rollouts")[0]["trajectory"]))
    assert trajectory.steps[0].timed_out and "woke" not in trajectory.steps[0].output
    assert "timed out" in trajectory.messages[3]["content"]


def test_second_eval_of_the_same_keys_pays_nothing(tmp_path: Path):
    suite = greeting_suite(tmp_path)
    replies = [bash("echo 'hello harness' > /app/greeting.txt"), bash("echo TASK_DONE")]
    name = f"test-cache-{time.monotonic_ns()}"
    scripted.register(name, replies)
    config = RunConfig(harness=HARNESS, tasks=suite, split="train")
    config.models.solver.model = f"scripted/{name}"
    store = RunStore.create(tmp_path, "eval")
    with session(store, config) as run:
        evaluate(run)
        evaluate(run)
    assert len(store.rows("rollouts")) == 1 and scripted.calls(name) == 2


@pytest.mark.parametrize("cache", [True, False])
def test_an_eval_in_a_new_run_pays_only_for_the_keys_no_earlier_run_has(tmp_path: Path, cache: bool):
    name = f"test-reuse-{time.monotonic_ns()}"
    write, done = bash("echo 'hello harness' > /app/greeting.txt"), bash("echo TASK_DONE")
    scripted.register(name, lambda messages: done if len(messages) > 2 else write)
    config = RunConfig(harness=HARNESS, tasks=greeting_suite(tmp_path), split="train", executor={"trials": 1})
    config.models.solver.model = f"scripted/{name}"
    first = new_run("eval", config, tmp_path / "runs")
    with session(first, config) as run:
        evaluate(run)
    config.executor.trials, config.models.cache = 2, cache
    second = new_run("eval", config, tmp_path / "runs")
    with session(second, config) as run:
        result = evaluate(run)

    rows = {row.trial: row for row in second.records(Rollout)}
    if cache:
        assert rows[0].reused_from == first.id and rows[1].reused_from is None, "trial 0 copied, trial 1 paid"
        assert second.info.summary.reused == result.reused == 1 and scripted.calls(name) == 2 + 2
    else:
        assert not any(row.reused_from for row in rows.values()) and second.info.summary.reused == 0, (
            "--no-cache: every rollout sampled afresh"
        )
    assert second.info.summary.n == 2 and second.info.summary.passed == 2


def test_infrastructure_failure_is_recorded_as_such_and_the_others_go_on(tmp_path: Path):
    store = RunStore.create(tmp_path, "eval")
    config = RunConfig(harness=HARNESS, tasks=FIXTURES, split="all", agent="oracle")
    suite = tmp_path / "suite"
    for name in ("greeting", "broken-image"):
        shutil.copytree(FIXTURES / name, suite / name)
    config.tasks = suite
    with session(store, config) as run:
        evaluate(run)
    rows = {row["task_id"]: row for row in store.rows("rollouts")}
    assert rows["greeting"]["passed"]
    assert (
        rows["broken-image"]["exit_reason"] == "infra_error"
        and "registry.example.invalid" in rows["broken-image"]["error"]
    )


def harness_evo(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "harness_evo.cli", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_ctrl_c_during_eval_removes_every_container_and_keeps_finished_rollouts(tmp_path: Path, reporting):
    process, reports = reporting.start(
        "eval", "--agent", "oracle", "--tasks", FIXTURES, "--split", "train", "--workers", "2", "--runs", tmp_path
    )
    with reports:
        folder = reporting.first_stored(reports, 120)  # the quick rollout, stored while the slow one runs
        assert folder, "the quick rollout never finished"
        db = RunStore(folder)
        assert db.rows("rollouts"), "the quick rollout was reported before it was stored"
        reporting.ctrl_c(process, within_s=30)
    [row] = db.rows("rollouts")
    assert row["task_id"] == "greeting" and row["passed"]
    assert db.info.status == "stopped"
    assert docker.from_env().containers.list(all=True, filters={"label": f"{LABEL}.run={db.id}"}) == []


def test_malformed_harness_is_one_line_without_traceback(tmp_path: Path):
    harness = shutil.copytree(HARNESS, tmp_path / "harness")
    (harness / "harness.toml").write_text("[harness]\nname = 'x'\n[agent]\nstep_limt = 3\n")
    process = harness_evo("eval", "--harness", str(harness), "--tasks", str(FIXTURES), "--runs", str(tmp_path / "runs"))
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 2
    assert stderr.strip().count("\n") == 0 and "step_limt" in stderr and "Traceback" not in stderr
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


@pytest.mark.embedded
def test_eval_runs_on_the_embedded_model_with_no_configuration_at_all(tmp_path: Path):
    harness = shutil.copytree(HARNESS, tmp_path / "harness")
    toml = harness / "harness.toml"
    toml.write_text(toml.read_text().replace("step_limit = 12", "step_limit = 3"))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    process = harness_evo(
        "eval",
        "--harness",
        str(harness),
        "--tasks",
        str(greeting_suite(tmp_path)),
        "--split",
        "train",
        "--runs",
        str(tmp_path / "runs"),
        env=env,
    )
    stdout, stderr = process.communicate(timeout=900)
    assert process.returncode == 0, stderr
    assert "pass@1" in stdout
    store = RunStore(next((tmp_path / "runs").iterdir()))
    [row] = store.rows("rollouts")
    assert row["model"] == "local/qwen2.5-coder-1.5b"
    assert row["exit_reason"] in ("done", "step_limit", "format_errors") and row["steps"] >= 1
    calls = store.rows("llm_calls")
    assert calls and all(call["tokens_out"] > 0 and call["cost"] == 0 for call in calls if not call["cache_hit"])
