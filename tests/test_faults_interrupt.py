"""Ctrl-C of `eval` and `evolve` at a few moments, as a user does it: the command says it was interrupted (no
traceback), marks the run stopped, keeps every rollout it had finished, and leaves no container and no temporary
folder behind."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import docker
import pytest

from harness_evo import world
from harness_evo.store import RunStore

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("user_cache")]

ROOT = Path(__file__).parents[1]
EVAL_TASKS = ROOT / "tests" / "fixtures" / "eval-tasks"
LABEL = "harness-evo"
KEPT = {"harness-evo-locks"}
"""What may stay in the temporary folder: the image builds' lock files, shared by every run on purpose."""

WAITING = """
import sys
from harness_evo import world
from harness_evo.cli import main
from harness_evo.llm import scripted

role, moment = sys.argv.pop(1), sys.argv.pop(1)
world.register()
script = {"solver": world.solver, "analyzer": world.analyzer}[role]
waited = []

def waiting(messages):
    if not waited and (moment == "first" or world.FIX in messages[0]["content"]):
        waited.append(True)
        print("NOW", flush=True)
        sys.stdin.readline()
    return script(messages)

scripted.register("world-" + role, waiting)
main()
"""
"""`harness-evo ARGS` in the evolution test world, whose `role` model, at its first call (`first`) or its first call on
a harness with the fix (`fixed`), says NOW and waits for a line on stdin: a model call in flight."""


def interrupted(
    args: list, stdin_hook: list[str], tmp_path: Path, when_ready
) -> tuple[subprocess.CompletedProcess, list]:
    """Run the command until it says NOW, take `when_ready()`, send SIGINT; return what it did and what was taken."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-c", *stdin_hook, *map(str, args)],
        cwd=ROOT,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    try:
        for line in process.stdout:
            if line.startswith("NOW"):
                break
        else:
            pytest.fail(f"the moment never came: {process.communicate()[1][-2000:]}")
        taken = when_ready()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        process.kill()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err), taken


def leftovers(store: RunStore, tmp_path: Path) -> tuple[list, set[str]]:
    """The run's containers, and what is in the command's temporary folder besides the lock files."""
    containers = docker.from_env().containers.list(all=True, filters={"label": f"{LABEL}.run={store.id}"})
    return containers, set(os.listdir(tmp_path / "tmp")) - KEPT


def finished(store: RunStore) -> dict[str, str]:
    """Rollout id -> its trajectory file, of every rollout the run recorded."""
    return {row["id"]: row["trajectory"] for row in store.rows("rollouts")}


@pytest.mark.parametrize(
    ("role", "moment"),
    [("solver", "first"), ("analyzer", "first"), ("solver", "fixed")],
    ids=["during-a-rollout", "during-analysis", "during-the-gate"],
)
def test_ctrl_c_of_evolve_leaves_nothing_behind_and_keeps_every_finished_rollout(tmp_path: Path, role, moment):
    config_file = tmp_path / "evolve.toml"
    world.config().save(config_file)
    runs = tmp_path / "runs"

    def before() -> dict[str, str]:
        [folder] = runs.iterdir()
        return finished(RunStore(folder))

    args = ["evolve", "--config", config_file, "--runs", runs, "--quiet"]
    result, kept = interrupted(args, [WAITING, role, moment], tmp_path, before)
    assert result.returncode == 130 and "interrupted" in result.stderr and "Traceback" not in result.stderr, (
        result.stderr
    )
    [folder] = runs.iterdir()
    store = RunStore(folder)
    assert store.info.status == "stopped"
    after = finished(store)
    assert kept.items() <= after.items(), "every rollout finished before Ctrl-C is kept"
    assert all((folder / path).is_file() for path in after.values()), "with its trajectory"
    if moment == "fixed":
        assert kept, "the root's rollouts had finished"
    assert leftovers(store, tmp_path) == ([], set())


REPORTING = """
import sys
from harness_evo.agent import evaluate as evaluation
from harness_evo.cli import main

evaluate = evaluation.evaluate

def reporting(run):
    store, on_progress = run.store, run.executor.on_progress

    def progress(kind, row):
        on_progress(kind, row)
        if kind == "finished":
            print("NOW", store.folder, flush=True)
    run.executor.on_progress = progress
    return evaluate(run)

evaluation.evaluate = reporting
main()
"""
"""`harness-evo ARGS`, which says NOW each time it has stored a rollout."""


@pytest.mark.parametrize("sandbox", ["local", "docker"])
def test_ctrl_c_of_eval_while_a_rollout_runs_leaves_nothing_behind_and_keeps_the_finished_one(tmp_path: Path, sandbox):
    """The oracle solves `greeting` at once and sleeps through `slow`: Ctrl-C comes while `slow` runs."""
    if sandbox == "local" and not shutil.which("bwrap"):
        pytest.skip("the local sandbox without bubblewrap would write the task's files on this machine")
    runs = tmp_path / "runs"
    args = [
        "eval",
        "--agent",
        "oracle",
        "--tasks",
        EVAL_TASKS,
        "--split",
        "train",
        "--workers",
        "2",
        "--sandbox",
        sandbox,
        "--runs",
        runs,
    ]
    result, _ = interrupted(args, [REPORTING], tmp_path, lambda: None)  # within 120 s: not waiting for the 300 s sleep
    assert result.returncode == 130 and "interrupted" in result.stderr and "Traceback" not in result.stderr, (
        result.stderr
    )
    [folder] = runs.iterdir()
    store = RunStore(folder)
    [row] = store.rows("rollouts")
    assert row["task_id"] == "greeting" and row["passed"] and (folder / row["trajectory"]).is_file()
    assert store.info.status == "stopped"
    assert leftovers(store, tmp_path) == ([], set())


def test_ctrl_c_while_the_command_is_still_importing_is_one_line_not_a_traceback():
    """The `harness-evo` entry point: a Ctrl-C that lands during the imports (before the CLI handles it) is one line."""
    interrupt_the_import = (
        "import builtins, sys\n"
        "real = builtins.__import__\n"
        "def imported(name, *args, **kwargs):\n"
        "    if name == 'harness_evo.cli':\n"
        "        raise KeyboardInterrupt\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = imported\n"
        "from harness_evo.entry import main\n"
        "main()\n"
    )
    process = subprocess.run([sys.executable, "-c", interrupt_the_import], capture_output=True, text=True, timeout=60)
    assert process.returncode == 130
    assert process.stderr.strip().splitlines() == ["interrupted before anything started; nothing was recorded"]


def test_ctrl_c_that_a_library_wraps_in_its_own_error_is_the_notice_not_a_traceback():
    """Ctrl-C while pydantic runs one of our serializers reaches the CLI as pydantic's error, raised from the
    KeyboardInterrupt: the user still sees the one-line notice and exit code 130."""
    interrupt_in_a_serializer = (
        "import pydantic\n"
        "from harness_evo import cli\n"
        "class Record(pydantic.BaseModel):\n"
        "    name: str\n"
        "    @pydantic.field_serializer('name')\n"
        "    def ctrl_c(self, name):\n"
        "        raise KeyboardInterrupt\n"
        "cli.app = lambda: Record(name='x').model_dump()\n"
        "cli.main()\n"
    )
    process = subprocess.run(
        [sys.executable, "-c", interrupt_in_a_serializer], capture_output=True, text=True, timeout=60
    )
    assert process.returncode == 130
    assert "Traceback" not in process.stderr
    assert process.stderr.startswith("interrupted; finished work is kept in the run folder")


def test_the_world_command_s_package_imports_no_model_library_before_it_can_handle_ctrl_c():
    """`python -m harness_evo.world cli` imports the package before its own Ctrl-C handling starts: the package must
    not import litellm or pydantic (seconds of imports, where a Ctrl-C would be a traceback) at import."""
    process = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, harness_evo.world; print(sorted({'litellm', 'pydantic'} & set(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.stdout.strip() == "[]"
