"""GEPA side by side (bench/peer_gepa.py): GEPA's engine proposes through our proposer role, its candidates run through
our executor, and one table compares it with harness-evo, random search and the start on the test split."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import Result
from fixtures import evolve_world as world
from rich.console import Console
from typer.testing import CliRunner

from harness_evo.agent.executor import Executor
from harness_evo.config import RunConfig
from harness_evo.evolve.tree import SearchTree
from harness_evo.harness import Harness
from harness_evo.llm import scripted
from harness_evo.sandbox import get_backend
from harness_evo.sandbox.docker import connect, listed
from harness_evo.sandbox.images import LABEL
from harness_evo.store import Node, NodeStatus, RunStore
from harness_evo.store.info import EvolutionSummary
from harness_evo.taskset import load_suite
from harness_evo.views import style

sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))
import gepa_adapter  # noqa: E402
import peer_gepa  # noqa: E402

pytestmark = pytest.mark.usefixtures("user_cache")

DEFAULT = Path(__file__).parents[1] / "harnesses" / "bash-agent"
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
            f'#!/bin/bash\necho {SECRET}\nif [ "$(cat /app/{word}.txt 2>/dev/null)" = "{word}" ]; then echo 1 > /logs/verifier/reward.txt; '
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


REFLECTIONS: list[str] = []
"""GEPA's reflection prompts, as the proposer model got them."""


def proposer(messages: list[dict]) -> str:
    """To GEPA's reflection: the component it shows, with the step limit raised; to harness-evo's proposer: that edit."""
    prompt = messages[-1]["content"]
    if "Provide the new instructions within ``` blocks" in prompt:
        REFLECTIONS.append(prompt)
        current = prompt.split("```\n", 1)[1].split("\n```", 1)[0]
        return f"```\n{current.replace(SHORT, LONG)}\n```"
    edit = {
        "rationale": "the agent runs out of steps",
        "prediction": "tasks needing three steps pass",
        "ops": [{"op": "replace", "path": "harness.toml", "old": SHORT, "new": LONG}],
    }
    return json.dumps({"edits": [edit]})


def base_config(tmp_path: Path) -> Path:
    """Scripted roles and a lenient world (alpha 0.25): a gate of 2 trials that 4 fixes pass, and 3 dev trials that name
    the fixed node best."""
    config = RunConfig()
    for role, script in (("analyzer", world.analyzer), ("proposer", proposer), ("critic", world.critic)):
        name = f"peer-{role}-{tmp_path.name}"
        scripted.register(name, script, token=name)
        config.models.role(role).model = f"scripted/{name}"
    config.executor.workers = 2
    config.acceptance = config.acceptance.model_copy(update={"alpha": 0.25, "trials": 2, "extra_trials": 0})
    config.search = config.search.model_copy(update={"dev_trials": 3})
    config.save(tmp_path / "base.toml")
    return tmp_path / "base.toml"


def bench(args: list) -> Result:
    """`python bench/peer_gepa.py ARGS`, run in this process (so the scripted models answer), on a wide terminal."""
    return CliRunner().invoke(peer_gepa.app, [str(arg) for arg in args], env={"COLUMNS": "220"})


@pytest.mark.docker
def test_gepa_harness_evo_and_random_search_side_by_side_on_the_test_split(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(style, "PLAIN_EVERY_S", 0.0)  # a progress line for every rollout
    name = f"peer-solver-{tmp_path.name}"
    scripted.register(name, solver, token=name)
    args = [
        "--tasks",
        suite(tmp_path / "tasks"),
        "--harness",
        short_harness(tmp_path / "harness"),
        "--budget",
        16,
        "--model",
        f"scripted/{name}",
        "--config",
        base_config(tmp_path),
        "--out",
        tmp_path / "results",
        "--runs",
        tmp_path / "runs",
    ]

    first = bench([*args, "--no-random-search"])

    assert first.exit_code == 0, first.output
    assert {"start", "GEPA", "harness-evo"} == set(table_rows(first)) and "random search: not run" in first.output
    progress = first.output.split("GEPA: run ", 1)[1]
    assert "rollouts 1/16, " in progress and "evolving run" in progress and "rollouts: " in progress, (
        "each piece shows its progress"
    )
    assert re.search(r"rollouts 1/\d+, ", progress.split("test: compare of", 1)[1]), "the test piece too"

    result = bench(args)

    assert result.exit_code == 0, result.output
    rows = table_rows(result)
    assert {"start", "GEPA", "harness-evo", "random search"} <= rows.keys()
    assert "0% [" in rows["start"] and all(
        "100% [" in rows[system] and "+100.0 pp" in rows[system] for system in ("GEPA", "harness-evo", "random search")
    )
    assert "harness-evo's gain / GEPA's: 1.00" in result.output
    words = " ".join(result.output.split())
    assert "valset is the dev split" in result.output and "pool took 1 of its proposals" in words
    assert "2 distinct harnesses, the start and its proposals, ran through harness-evo's executor" in words
    [gepa_run] = (tmp_path / "runs" / "peer-gepa").glob("*/gepa/*")
    store = RunStore(gepa_run)
    fixed = {row["harness_hash"] for row in store.rows("rollouts")} - {Harness.load(tmp_path / "harness").hash}
    [candidate] = fixed
    assert LONG in (gepa_run / "harnesses" / candidate / "harness.toml").read_text(), (
        "GEPA's candidate ran through our executor"
    )
    assert any(row["role"] == "proposer" for row in store.rows("llm_calls")), "GEPA reflected through our proposer role"
    assert REFLECTIONS and all(SECRET not in prompt and gepa_adapter.WITHHELD in prompt for prompt in REFLECTIONS)
    assert "Write the word" in REFLECTIONS[0] and "outcome: step_limit after 2 steps" in REFLECTIONS[0]

    again = bench(args)

    assert "the result in" in result.output and "random search: harness-evo's loop" in result.output
    before, after = (
        RunStore(folder).rows("rollouts") for folder in sorted((tmp_path / "runs" / "peer-gepa").glob("*/test/*"))
    )
    scored = {row["harness_hash"] for row in before}
    assert len(after) == len(before) + 3 * len({row["harness_hash"] for row in after} - scored)
    assert all(row["reused_from"] for row in after if row["harness_hash"] in scored), (
        "adding random search paid only for its own test rollouts"
    )
    assert again.exit_code == 0 and again.output.count("the result in") == 4, again.output
    assert len(list((tmp_path / "runs" / "peer-gepa").glob("*/*/*"))) == 5, "nothing was run again"
    [gepa_result] = (tmp_path / "results").glob("*/gepa.json")
    gepa_result.unlink()
    refused = bench(args)
    assert refused.exit_code == 1 and "holds an interrupted run of this piece; pass --resume" in refused.output
    resumed = bench([*args, "--resume"])
    assert resumed.exit_code == 0 and "+100.0 pp" in resumed.output and len(store.rows("rollouts")) == 16, (
        resumed.output
    )


def table_rows(result: Result) -> dict[str, str]:
    """The bench table's rows by system."""
    rows = {line.split("│")[1].strip(): line for line in result.output.splitlines() if line.count("│") > 5}
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
    adapter = gepa_adapter.HarnessAdapter(executor, token_budget=500)
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
            Path(peer_gepa.__file__),
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


def test_when_every_optimizer_keeps_the_start_the_table_shows_no_gain_and_no_ratio():
    start = {"letter": "A", "pass_at_1": {"passed": 3, "n": 54}}
    test = {
        "tasks": 18,
        "trials": 3,
        "letters": dict.fromkeys(("start", "GEPA", "harness-evo"), "A"),
        "harnesses": [start],
        "comparisons": [],
    }
    results = {
        "GEPA": {
            "rollouts": 176,
            "evaluated": 17,
            "calls": {"solver": {"calls": 947, "tokens": 904_224}},
            "wall_s": 4480.0,
        },
        "harness-evo": {"rollouts": 221, "best_at_rollouts": 0, "calls": {}, "wall_s": 1424.2},
    }
    console = Console(width=200, record=True)

    console.print(peer_gepa.table(results, test))

    rows = {line.split("│")[1].strip(): line for line in console.export_text().splitlines() if line.count("│") > 5}
    assert all("6% [" in rows[system] for system in ("start", "GEPA", "harness-evo"))
    assert (
        "0 (the start's harness)" in rows["GEPA"]
        and "0 (the start's harness)" in rows["harness-evo"]
        and "random search" not in rows
    )
    assert peer_gepa.ratio_line(test).startswith("harness-evo's gain / GEPA's: undefined, GEPA's test gain is +0.0 pp")
    assert peer_gepa.reach_line(results, test).endswith("0 (the start already scores as well)")


def test_random_search_returns_its_best_dev_node_where_harness_evo_keeps_the_start_without_a_confirmed_gain():
    tree = SearchTree(
        [
            Node(id="start", iteration=-1, status=NodeStatus.ROOT, dev_score=3 / 28, dev_n=28, created=1.0),
            Node(id="lucky", parent_id="start", status=NodeStatus.ACCEPTED, dev_score=5 / 28, dev_n=28, created=2.0),
            Node(id="worse", parent_id="lucky", status=NodeStatus.ACCEPTED, dev_score=2 / 28, dev_n=28, created=3.0),
        ]
    )
    summary = EvolutionSummary(best_node="start", root="start")

    assert peer_gepa.result_node("harness-evo", tree, summary) == "start"
    assert peer_gepa.result_node("random search", tree, summary) == "lucky"
