"""A run configuration fails closed: the file given to `--config` is honoured, an option given still wins over it, and a
misspelt role or a setting out of its bounds is one line naming the field and the file."""

from pathlib import Path

import pytest
import tomli_w

from harness_evo.config import RunConfig
from harness_evo.store import RunStore

HARNESS = Path(__file__).parents[1] / "harnesses" / "bash-agent"


pytestmark = pytest.mark.usefixtures("user_cache")


def local_only_suite(tmp_path: Path) -> Path:
    """One train task whose image exists nowhere: only the local sandbox, which ignores the Dockerfile, can run it."""
    task = tmp_path / "suite" / "note"
    for folder in ("environment", "solution", "tests"):
        (task / folder).mkdir(parents=True)
    (task / "environment" / "Dockerfile").write_text("FROM harness-evo/no-such-image:never\nWORKDIR /app\n")
    (task / "solution" / "solve.sh").write_text("#!/bin/bash\necho noted > /app/note.txt\n")
    (task / "tests" / "test.sh").write_text(
        '#!/bin/bash\n[ "$(cat /app/note.txt)" = noted ] && echo 1 > /logs/verifier/reward.txt '
        "|| echo 0 > /logs/verifier/reward.txt\n"
    )
    (task / "task.toml").write_text("[agent]\ntimeout_sec = 60\n[verifier]\ntimeout_sec = 30\n")
    (task / "instruction.md").write_text("Write the word noted into /app/note.txt.\n")
    (tmp_path / "suite" / "suite.toml").write_text('[splits]\ntrain = ["note"]\ndev = []\ntest = []\n')
    return tmp_path / "suite"


def config_file(tmp_path: Path, text: str = "", **settings) -> Path:
    path = tmp_path / "run.toml"
    path.write_text(tomli_w.dumps(settings) + text)
    return path


@pytest.fixture
def eval_run(tmp_path: Path, cli, only_run):
    """`eval_run(*args)`: the run of `harness-evo eval` with these arguments, which must succeed."""

    def run(*args: str) -> RunStore:
        result = cli("eval", *args, "--runs", tmp_path / "runs")
        assert result.exit_code == 0, result.output
        return only_run(tmp_path / "runs")

    return run


def test_eval_runs_as_its_config_file_says_when_no_option_is_given(tmp_path: Path, eval_run):
    settings = dict(
        harness=str(HARNESS),
        tasks=str(local_only_suite(tmp_path)),
        split="train",
        agent="oracle",
        sandbox={"backend": "local"},
        executor={"trials": 2},
    )

    store = eval_run("--config", str(config_file(tmp_path, **settings)))

    ran = RunConfig.load(store.folder / "config.toml")
    assert (ran.sandbox.backend, ran.agent, ran.split, ran.executor.trials) == ("local", "oracle", "train", 2)
    assert [row["passed"] for row in store.rows("rollouts", order_by="trial")] == [1, 1], (
        "the local sandbox ran the task"
    )


def test_an_option_given_on_the_command_line_wins_over_the_config_file(tmp_path: Path, eval_run):
    settings = dict(
        harness=str(HARNESS),
        tasks=str(local_only_suite(tmp_path)),
        split="dev",
        agent="noop",
        sandbox={"backend": "docker", "memory_mb": 1024},
    )

    store = eval_run(
        "--config",
        str(config_file(tmp_path, **settings)),
        "--sandbox",
        "local",
        "--agent",
        "oracle",
        "--split",
        "train",
    )

    ran = RunConfig.load(store.folder / "config.toml")
    assert (ran.sandbox.backend, ran.agent, ran.split) == ("local", "oracle", "train")
    assert ran.sandbox.memory_mb == 1024, "what no option names stays as the file says"
    assert [row["passed"] for row in store.rows("rollouts")] == [1]


def test_a_dollar_cap_on_a_misspelt_role_is_refused_in_one_line_that_names_the_roles(tmp_path: Path, one_line_error):
    path = config_file(tmp_path, "[budget.max_dollars]\npropser = 2.0\n")

    error = one_line_error("evolve", "--config", str(path), "--runs", str(tmp_path / "runs"))

    assert (
        f"{path}: budget.max_dollars: 'propser' is not a role; the roles are solver, analyzer, proposer, critic"
        in error
    )
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "text, field",
    [
        ("[executor]\ntrials = 0\n", "executor.trials: Input should be greater than or equal to 1"),
        (
            "[models.solver]\ntemperature = -0.5\n",
            "models.solver.temperature: Input should be greater than or equal to 0",
        ),
        (
            "[failures]\nmin_harness_blame = 1.5\n",
            "failures.min_harness_blame: Input should be less than or equal to 1",
        ),
        ("[sandbox]\ncpus = 0\n", "sandbox.cpus: Input should be greater than 0"),
        (
            "[budget.max_dollars]\nproposer = -1.0\n",
            "budget.max_dollars.proposer: Input should be greater than or equal to 0",
        ),
        (
            '[models.critic]\nparams = { api_key = "sk-live-0123456789" }\n',
            "models.critic.params: api_key holds a secret, which every run would copy into the config.toml of its "
            "folder; set it in an "
            'environment variable and write api_key = "env:VARIABLE"',
        ),
    ],
)
def test_a_setting_out_of_its_bounds_is_one_line_naming_the_field_and_the_file(
    tmp_path: Path, text: str, field: str, one_line_error
):
    path = config_file(tmp_path, text)

    error = one_line_error("eval", "--config", str(path), "--runs", str(tmp_path / "runs"))

    assert f"{path}: {field}" in error
    assert not (tmp_path / "runs").exists()


def test_an_option_out_of_its_bounds_is_one_line_naming_the_field(tmp_path: Path, one_line_error):
    error = one_line_error("eval", "--sandbox", "dockr", "--runs", str(tmp_path / "runs"))

    assert "sandbox.backend: Input should be 'docker' or 'local'" in error


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (
            ["--executor", "ray", "--ray-address", "head.example:6379"],
            "the solver local/qwen2.5-coder-1.5b is served on this machine only",
        ),
        (["--executor", "ray", "--agent", "oracle", "--sandbox", "local"], 'set sandbox.backend = "docker"'),
        (
            ["--executor", "ray", "--agent", "oracle", "--ray-address", "head.example"],
            "executor.address: 'head.example' is no Ray address",
        ),
        (["--executor", "slurm"], "executor.backend: Input should be 'local' or 'ray'"),
        (
            ["--executor", "ray", "--agent", "oracle", "--ray-address", "127.0.0.1:1"],
            "cannot reach the Ray cluster at 127.0.0.1:1",
        ),
    ],
)
def test_a_ray_executor_that_could_not_run_the_rollouts_is_one_line_before_any_work(
    tmp_path: Path, argv: list[str], says: str, one_line_error
):
    error = one_line_error("eval", *argv, "--runs", str(tmp_path / "runs"))

    assert says in error
    assert not (tmp_path / "runs").exists()


def test_resuming_a_run_whose_task_suite_changed_is_refused_unless_allowed_and_then_the_new_suite_is_the_runs(
    tmp_path: Path, one_line_error
):
    from harness_evo.evolve import session

    suite = local_only_suite(tmp_path)
    config = RunConfig(harness=HARNESS, tasks=suite, search={"gate": "in-turn"})  # one train task: too few to test on
    store = session.start(config, tmp_path / "runs")
    events = len(list(store.events()))
    (suite / "note" / "instruction.md").write_text("Write the word noted into /app/notes.txt.\n")

    error = one_line_error("resume", store.id, "--runs", str(tmp_path / "runs"))

    assert f"the task suite {suite} changed since run {store.id} started (changed: note)" in error
    assert "--allow-changed-suite" in error and len(list(store.events())) == events, "a refused resume records nothing"
    assert session.check_suite(store, allow_changed=True) == "changed: note"
    assert session.check_suite(RunStore(store.folder)) is None, "the changed suite is now the run's"
