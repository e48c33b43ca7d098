"""GEPA side by side (bench/peer_gepa.py, run as a program): GEPA's engine proposes through our proposer role, its
candidates run through our executor (`harness_evo.gepa_adapter`), and one table compares it with harness-evo, random
search and the start on the test split.

Run as a program (`python tests/test_peer_gepa.py TAG REFLECTIONS ARGS`), this file is `python bench/peer_gepa.py ARGS`
with the scripted models below registered (their names tagged TAG) and each of GEPA's reflection prompts appended to the
file REFLECTIONS."""

import json
import os
import re
import runpy
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.agent.executor import Executor
from harness_evo.config import RunConfig
from harness_evo.evolve.tree import SearchTree
from harness_evo.gepa_adapter import WITHHELD, HarnessAdapter
from harness_evo.harness import Harness
from harness_evo.llm import scripted
from harness_evo.sandbox import get_backend
from harness_evo.sandbox.docker import connect, listed
from harness_evo.sandbox.images import LABEL
from harness_evo.store import Node, RunStore
from harness_evo.taskset import load_suite
from harness_evo.views import style

pytestmark = pytest.mark.usefixtures("user_cache")

ROOT = Path(__file__).parents[1]
BENCH = ROOT / "bench" / "peer_gepa.py"
DEFAULT = ROOT / "harnesses" / "bash-agent"
SPLITS = {"train": ["sun", "moon"], "dev": ["rain"], "test": ["snow"]}
SECRET = "verifier-says-expected-this"
"""Printed by every verifier: an optimizer must never read it."""
TASK = re.compile(r"Write the word (\S+) into (\S+)\.")
SHORT, LONG = "step_limit = 2", "step_limit = 6"


def suite(root: Path) -> Path:
    """One task per word; the verifier wants the word in the file and prints SECRET."""
    for word in sum(SPLITS.values(), []):
        folder = root / word
        (folder / "environment").mkdir(parents=True)
        (folder / "tests").mkdir()
        (folder / "task.toml").write_text(
            '[metadata]\ncategory = "files"\ndifficulty = "easy"\n[agent]\ntimeout_sec = 60\n'
        )
        (folder / "instruction.md").write_text(f"Write the word {word} into /app/{word}.txt.\n")
        (folder / "environment" / "Dockerfile").write_text("FROM python:3.11-slim-bookworm\nWORKDIR /app\n")
        (folder / "tests" / "test.sh").write_text(
            f'#!/bin/bash\necho {SECRET}\nif [ "$(cat /app/{word}.txt 2>/dev/null)" = "{word}" ]; then echo 1 > '
            "/logs/verifier/reward.txt; "
            "else echo 0 > /logs/verifier/reward.txt; fi\n"
        )
    (root / "suite.toml").write_text(
        "[splits]\n" + "".join(f"{name} = {json.dumps(ids)}\n" for name, ids in SPLITS.items())
    )
    return root


def short_harness(folder: Path) -> Path:
    """The default harness with too few steps for the solver below: the defect both optimizers should find."""
    shutil.copytree(DEFAULT, folder)
    toml = folder / "harness.toml"
    toml.write_text(re.sub(r"step_limit = \d+", SHORT, toml.read_text()))
    return folder


def solver(messages: list[dict]) -> str:
    """Looks around twice, then writes the word, shows it and says it is done: three steps."""
    word, path = TASK.search(messages[1]["content"]).groups()
    steps = [
        world.bash("ls /app"),
        world.bash("pwd"),
        world.bash(f"echo {word} > {path} && cat {path} && echo TASK_DONE"),
    ]
    return steps[min(sum(message["role"] == "assistant" for message in messages), 2)]


def proposer(reflections: Path):
    """To GEPA's reflection: the component it shows, with the step limit raised (the prompt appended to `reflections`, a
    JSON string a line); to harness-evo's proposer: that edit."""

    def propose(messages: list[dict]) -> str:
        prompt = messages[-1]["content"]
        if "Provide the new instructions within ``` blocks" in prompt:
            with reflections.open("a") as file:
                file.write(json.dumps(prompt) + "\n")
            current = prompt.split("```\n", 1)[1].split("\n```", 1)[0]
            return f"```\n{current.replace(SHORT, LONG)}\n```"
        edit = {
            "rationale": "the agent runs out of steps",
            "prediction": "tasks needing three steps pass",
            "ops": [{"op": "replace", "path": "harness.toml", "old": SHORT, "new": LONG}],
        }
        return json.dumps({"edits": [edit]})

    return propose


def register(tag: str, reflections: Path) -> None:
    """The scripted models of a bench run, each `scripted/peer-ROLE-TAG`, with that name as its token too, so that the
    runs of one tag share the response cache."""
    for role, script in (
        ("solver", solver),
        ("analyzer", world.analyzer),
        ("proposer", proposer(reflections)),
        ("critic", world.critic),
    ):
        scripted.register(f"peer-{role}-{tag}", script, token=f"peer-{role}-{tag}")


def base_config(tmp_path: Path) -> Path:
    """Scripted roles (tagged with the test's folder name) and a lenient world (the in-turn gate at alpha 0.25): a gate
    of 2 trials that 4 fixes pass, and 3 dev trials that name the fixed node best."""
    config = RunConfig()
    for role in ("analyzer", "proposer", "critic"):
        config.models.role(role).model = f"scripted/peer-{role}-{tmp_path.name}"
    config.executor.workers = 2
    config.acceptance = config.acceptance.model_copy(update={"alpha": 0.25, "trials": 2, "extra_trials": 0})
    config.search = config.search.model_copy(update={"dev_trials": 3, "gate": "in-turn"})
    config.save(tmp_path / "base.toml")
    return tmp_path / "base.toml"


class Bench:
    """`python bench/peer_gepa.py ARGS` in a new process with this file's scripted models tagged `tag` (GEPA's
    reflection prompts in `reflections`), on a wide terminal: its exit code and its output."""

    def __init__(self, tag: str, reflections: Path):
        self.tag, self.reflections = tag, reflections

    def __call__(self, args: list) -> tuple[int, str]:
        done = subprocess.run(
            [sys.executable, __file__, self.tag, self.reflections, *map(str, args)],
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=os.environ | {"COLUMNS": "220"},
        )
        return done.returncode, done.stdout


@pytest.mark.docker
def test_gepa_harness_evo_and_random_search_side_by_side_on_the_test_split(tmp_path: Path):
    bench = Bench(tmp_path.name, tmp_path / "reflections.jsonl")
    args = [
        "--tasks",
        suite(tmp_path / "tasks"),
        "--harness",
        short_harness(tmp_path / "harness"),
        "--budget",
        16,
        "--model",
        f"scripted/peer-solver-{tmp_path.name}",
        "--config",
        base_config(tmp_path),
        "--out",
        tmp_path / "results",
        "--runs",
        tmp_path / "runs",
    ]

    code, first = bench([*args, "--no-random-search"])

    assert code == 0, first
    assert {"start", "GEPA", "harness-evo"} == set(table_rows(first)) and "random search: not run" in first
    progress = first.split("GEPA: run ", 1)[1]
    assert "rollouts 1/16, " in progress and "evolving run" in progress and "rollouts: " in progress, (
        "each piece shows its progress"
    )
    assert re.search(r"rollouts 1/\d+, ", progress.split("test: compare of", 1)[1]), "the test piece too"

    code, result = bench(args)

    assert code == 0, result
    rows = table_rows(result)
    assert {"start", "GEPA", "harness-evo", "random search"} <= rows.keys()
    assert "0% [" in rows["start"] and all(
        "100% [" in rows[system] and "+100.0 pp" in rows[system] for system in ("GEPA", "harness-evo", "random search")
    )
    assert "harness-evo's gain / GEPA's: 1.00" in result
    words = " ".join(result.split())
    assert "valset is the dev split" in result and "pool took 1 of its proposals" in words
    assert "2 distinct harnesses, the start and its proposals, ran through harness-evo's executor" in words
    [gepa_run] = (tmp_path / "runs" / "peer-gepa").glob("*/gepa/*")
    store = RunStore(gepa_run)
    fixed = {row["harness_hash"] for row in store.rows("rollouts")} - {Harness.load(tmp_path / "harness").hash}
    [candidate] = fixed
    assert LONG in (gepa_run / "harnesses" / candidate / "harness.toml").read_text(), (
        "GEPA's candidate ran through our executor"
    )
    assert any(row["role"] == "proposer" for row in store.rows("llm_calls")), "GEPA reflected through our proposer role"
    reflections = [json.loads(line) for line in (tmp_path / "reflections.jsonl").read_text().splitlines()]
    assert reflections and all(SECRET not in prompt and WITHHELD in prompt for prompt in reflections)
    assert "Write the word" in reflections[0] and "outcome: step_limit after 2 steps" in reflections[0]
    [evolved], [searched] = (
        (tmp_path / "runs" / "peer-gepa").glob(f"*/{piece}/*") for piece in ("harness-evo", "random-search")
    )
    [evolved_result], [searched_result] = (
        (tmp_path / "results").glob(f"*/{piece}.json") for piece in ("harness-evo", "random-search")
    )
    assert json.loads(evolved_result.read_text())["hash"] == RunStore(evolved).info.best_node, (
        "harness-evo's confirmed best"
    )
    assert (
        json.loads(searched_result.read_text())["hash"] == SearchTree(RunStore(searched).records(Node)).highest_dev()
    ), "random search's node with the best dev score"

    code, again = bench(args)

    assert "the result in" in result and "random search: harness-evo's loop" in result
    before, after = (
        RunStore(folder).rows("rollouts") for folder in sorted((tmp_path / "runs" / "peer-gepa").glob("*/test/*"))
    )
    scored = {row["harness_hash"] for row in before}
    assert len(after) == len(before) + 3 * len({row["harness_hash"] for row in after} - scored)
    assert all(row["reused_from"] for row in after if row["harness_hash"] in scored), (
        "adding random search paid only for its own test rollouts"
    )
    assert code == 0 and again.count("the result in") == 4, again
    assert len(list((tmp_path / "runs" / "peer-gepa").glob("*/*/*"))) == 5, "nothing was run again"
    [gepa_result] = (tmp_path / "results").glob("*/gepa.json")
    gepa_result.unlink()
    code, refused = bench(args)
    assert code == 1 and "holds an interrupted run of this piece; pass --resume" in refused
    code, resumed = bench([*args, "--resume"])
    assert code == 0 and "+100.0 pp" in resumed and len(store.rows("rollouts")) == 16, resumed


def table_rows(output: str) -> dict[str, str]:
    """The bench table's rows by system."""
    rows = {line.split("│")[1].strip(): line for line in output.splitlines() if line.count("│") > 5}
    return {system: row for system, row in rows.items() if system}


def test_a_candidate_that_does_not_load_as_a_harness_scores_zero_without_a_rollout(tmp_path: Path):
    tasks = load_suite(suite(tmp_path / "tasks")).split("train")
    store = RunStore.create(tmp_path / "runs", "gepa")
    executor = Executor(
        store,
        get_backend(RunConfig().sandbox.model_copy(update={"backend": "local"})),
        load_suite(tmp_path / "tasks"),
        agent="noop",
    )
    adapter = HarnessAdapter(executor, token_budget=500)
    broken = {**Harness.load(DEFAULT).components, "harness.toml": "[agent\nstep_limit = 2"}

    batch = adapter.evaluate(tasks, broken, capture_traces=True)

    assert batch.scores == [0.0, 0.0] and not store.rows("rollouts")
    dataset = adapter.make_reflective_dataset(broken, batch, ["harness.toml"])
    assert (
        dataset["harness.toml"][0]["Verdict"].startswith("the harness did not load: ")
        and "bad TOML" in dataset["harness.toml"][0]["Verdict"]
    )


@pytest.mark.docker
def test_sigterm_stops_the_bench_as_ctrl_c_does_with_no_sandbox_left(tmp_path: Path, user_cache: Path):
    tasks = suite(tmp_path / "tasks")
    for test in tasks.glob("*/tests/test.sh"):
        test.write_text("#!/bin/bash\nsleep 300\n")  # a verifier that holds its sandbox until the bench is stopped
    config = RunConfig(agent="noop")
    config.save(tmp_path / "base.toml")
    process = subprocess.Popen(
        [
            sys.executable,
            BENCH,
            "--tasks",
            tasks,
            "--harness",
            DEFAULT,
            "--budget",
            "4",
            "--config",
            tmp_path / "base.toml",
            "--out",
            tmp_path / "results",
            "--runs",
            tmp_path / "runs",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=os.environ | {"COLUMNS": "200"},
    )
    client, run = connect(), None
    try:
        for _ in range(240):
            run = next((folder.name for folder in (tmp_path / "runs").glob("peer-gepa/*/gepa/*")), None)
            if run and listed(client, [f"{LABEL}.run={run}"]):
                break
            time.sleep(0.5)
        assert run and listed(client, [f"{LABEL}.run={run}"]), "no sandbox started"

        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=120)
    finally:
        process.kill()

    assert process.returncode == 130 and "stopped; run again with --resume" in output, output
    assert not listed(client, [f"{LABEL}.run={run}"]), "the bench's sandboxes were removed"


@pytest.mark.slow
def table_of(folder: Path, results: dict[str, dict]) -> subprocess.CompletedProcess:
    """`--table` of a results folder holding `results` (piece -> its result file's contents), printed 250 wide."""
    for piece, result in results.items():
        (folder / f"{piece}.json").write_text(json.dumps(result))
    shown = subprocess.run(
        [sys.executable, BENCH, "--table", folder],
        capture_output=True,
        text=True,
        env=os.environ | {"COLUMNS": "250"},
    )
    assert shown.returncode == 0, shown.stdout + shown.stderr
    return shown


def test_when_every_optimizer_keeps_the_start_the_table_shows_no_gain_and_no_ratio(tmp_path: Path):
    start = {"letter": "A", "pass_at_1": {"passed": 3, "n": 54}}
    test = {
        "tasks": 18,
        "trials": 3,
        "letters": dict.fromkeys(("start", "GEPA", "harness-evo"), "A"),
        "harnesses": [start],
        "comparisons": [],
    }
    results = {
        "gepa": {
            "rollouts": 176,
            "evaluated": 17,
            "calls": {"solver": {"calls": 947, "tokens": 904_224}},
            "wall_s": 4480.0,
            "best_dev": 0.11,
            "candidates": 2,
            "metric_calls": 200,
        },
        "harness-evo": {"rollouts": 221, "best_at_rollouts": 0, "calls": {}, "wall_s": 1424.2},
        "test": test,
    }

    shown = table_of(tmp_path, results)

    rows = table_rows(shown.stdout)
    assert all("6% [" in rows[system] for system in ("start", "GEPA", "harness-evo"))
    assert (
        "0 (the start's harness)" in rows["GEPA"]
        and "0 (the start's harness)" in rows["harness-evo"]
        and "random search" not in rows
    )
    words = " ".join(shown.stdout.split())
    assert "harness-evo's gain / GEPA's: undefined, GEPA's test gain is +0.0 pp" in words
    assert words.endswith(
        "rollouts harness-evo needed to reach GEPA's final test score: 0 (the start already scores as well)"
    )
    assert "random search: not run" in words


def test_the_table_shows_each_system_s_tokens_a_rollout_on_test_and_how_often_it_was_the_cheaper(tmp_path: Path):
    test = {
        "tasks": 18,
        "trials": 10,
        "letters": {"start": "A", "GEPA": "A", "harness-evo": "B"},
        "harnesses": [
            {"letter": "A", "pass_at_1": {"passed": 31, "n": 180}, "tokens_per_rollout": 3097.0},
            {"letter": "B", "pass_at_1": {"passed": 31, "n": 180}, "tokens_per_rollout": 1880.0},
        ],
        "comparisons": [
            {"a": "A", "b": "B", "n": 180, "diff": 0.0, "low": 0.0, "high": 0.0, "b_cheaper": 38, "a_cheaper": 6}
            | {"cost_p": 4.7e-07}
        ],
    }
    results = {
        "gepa": {"rollouts": 490, "evaluated": 3, "calls": {}, "wall_s": 60.0, "best_dev": 0.1, "candidates": 1}
        | {"metric_calls": 490},
        "harness-evo": {"rollouts": 490, "best_at_rollouts": 400, "calls": {}, "wall_s": 60.0},
        "test": test,
    }

    shown = table_of(tmp_path, results)

    rows = table_rows(shown.stdout)
    assert "3,097" in rows["start"] and "3,097" in rows["GEPA"] and "1,880 (-39%);" in rows["harness-evo"]
    assert "cheaper on 38 of 44 keys, p = 4.7e-07" in " ".join(shown.stdout.split())


@pytest.mark.slow
def test_a_results_folder_without_a_finished_setting_is_refused_with_one_line(tmp_path: Path):
    (tmp_path / "gepa.json").write_text("{}")

    shown = subprocess.run(
        [sys.executable, BENCH, "--table", tmp_path],
        capture_output=True,
        text=True,
        env=os.environ | {"COLUMNS": "200"},
    )

    assert shown.returncode == 1 and shown.stdout.count("\n") == 1 and "holds no finished setting" in shown.stdout, (
        shown.stdout
    )
    assert not shown.stderr


def test_a_setting_s_name_changes_with_a_setting_but_not_with_a_new_one_at_its_default(tmp_path: Path):
    setting = runpy.run_path(str(BENCH))["setting"]
    harness, tasks = Harness.load(DEFAULT), suite(tmp_path / "suite")
    config = RunConfig(harness=DEFAULT, tasks=tasks)

    class Later(RunConfig):
        """The configuration of a later version of the code, with one setting more."""

        new_setting: int = 0

    name = setting(config, harness, 490)

    assert name == setting(Later(harness=DEFAULT, tasks=tasks), harness, 490), "recorded pieces stay findable"
    assert name == setting(config.with_options({"evidence.futility_differing": 0}), harness, 490)
    assert name != setting(config.with_options({"evidence.futility_differing": 3}), harness, 490)
    assert name != setting(config, harness, 200) and name.startswith("suite-bash-agent-490r-")


if __name__ == "__main__":  # the bench, with this file's scripted models
    register(sys.argv.pop(1), Path(sys.argv.pop(1)))
    style.PLAIN_EVERY_S = 0.0  # a progress line for every rollout
    sys.argv[0] = str(BENCH)
    runpy.run_path(str(BENCH), run_name="__main__")
