"""Two runs at once on one machine (an `eval` beside an `evolve`, two `eval`s on the embedded model): each keeps its own
model server, containers and run folder, and the files they share (the response cache, pace.json, the server records)
stay whole."""

import contextlib
import json
import multiprocessing
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import docker
import pytest

from harness_evo import world
from harness_evo.llm.cache import ResponseCache
from harness_evo.llm.process import running_servers
from harness_evo.sandbox.docker import listed
from harness_evo.sandbox.images import LABEL
from harness_evo.store import RunStore

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("user_cache")]
ROOT = Path(__file__).parents[1]


def harness_evo(*args: object) -> subprocess.Popen:
    """The `harness-evo` command with the evolve world's scripted models, in a process of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", world.__name__, "cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finished(*processes: subprocess.Popen) -> None:
    for process in processes:
        out, err = process.communicate(timeout=900)
        assert process.returncode == 0, f"{process.args[3]}: {err[-2000:]}"
        assert "Traceback" not in err


def runs_of(folder: Path) -> dict[str, RunStore]:
    return {store.info.kind: store for store in map(RunStore, folder.iterdir())}


def overlapped(a: RunStore, b: RunStore) -> bool:
    return a.info.started < b.info.finished and b.info.started < a.info.finished


def left_over() -> list:
    """harness-evo's containers, as the list call gives them (one removed meanwhile by another run is no error)."""
    return listed(docker.from_env(), [LABEL])


def test_an_eval_beside_an_evolve_keeps_its_containers_and_the_shared_cache_files_stay_whole(
    tmp_path: Path, user_cache: Path
):
    world.config(max_iterations=1).save(tmp_path / "evolve.toml")
    runs = tmp_path / "runs"

    evolving = harness_evo("evolve", "--config", tmp_path / "evolve.toml", "--runs", runs, "--quiet")
    evaluating = harness_evo(
        "eval",
        "--harness",
        world.HARNESS,
        "--tasks",
        world.TASKS,
        "--split",
        "train",
        "--trials",
        3,
        "--model",
        "scripted/world-solver",
        "--runs",
        runs,
    )
    finished(evolving, evaluating)

    found = runs_of(runs)
    evolve, evaluation = found["evolve"], found["eval"]
    assert overlapped(evolve, evaluation), "the two runs did not run at the same time"
    assert evolve.info.status == evaluation.info.status == "finished"
    rollouts = [row for store in (evolve, evaluation) for row in store.rows("rollouts")]
    assert rollouts and not [row["id"] for row in rollouts if row["exit_reason"] == "infra_error"], (
        "no rollout lost its container to the other run's pruning"
    )
    assert not [c.id for c in left_over() if c.attrs["Labels"].get(f"{LABEL}.run") in (evolve.id, evaluation.id)]
    paces = json.loads((user_cache / "pace.json").read_text())
    assert [row["run"] for rows in paces.values() for row in rows] == [evolve.id]
    with contextlib.closing(sqlite3.connect(user_cache / "responses.sqlite")) as cache:
        assert cache.execute("PRAGMA integrity_check").fetchone() == ("ok",)


@pytest.mark.embedded
def test_two_evals_on_the_embedded_model_each_start_their_own_server_and_stop_it(tmp_path: Path):
    harness = shutil.copytree(world.HARNESS, tmp_path / "harness")
    toml = harness / "harness.toml"
    toml.write_text(toml.read_text().replace("step_limit = 6", "step_limit = 2"))
    runs = [tmp_path / "runs-a", tmp_path / "runs-b"]
    processes = [
        harness_evo(
            "eval",
            "--harness",
            harness,
            "--tasks",
            world.TASKS,
            "--split",
            "dev",
            "--trials",
            1,
            "--model",
            "local/qwen2.5-coder-0.5b",
            "--runs",
            folder,
        )
        for folder in runs
    ]
    finished(*processes)

    stores = [next(iter(runs_of(folder).values())) for folder in runs]
    assert overlapped(*stores), "the two runs did not run at the same time"
    for store in stores:
        calls = store.rows("llm_calls")
        assert calls and not [call["error"] for call in calls if call["error"]], "a call reached the other run's server"
        assert all(row["exit_reason"] != "infra_error" for row in store.rows("rollouts"))
    assert [record for record in running_servers()] == []
    assert not list((Path(os.environ["HARNESS_EVO_CACHE"]) / "servers").glob("*.log")), (
        "each server took its log with it"
    )


def open_and_put(path: Path, at: float, key: str) -> None:
    while time.time() < at:
        pass
    cache = ResponseCache(path)
    cache.put(key, {"content": key})
    cache.close()


def test_runs_that_start_at_once_on_a_new_response_cache_all_open_it(tmp_path: Path):
    """Two commands started together on a fresh machine both create the response cache: SQLite refuses, without
    waiting, a journal-mode switch or a table created from a stale read while another process does the same; each
    process must still open the cache and write to it. Six processes at once, ten fresh files."""
    context = multiprocessing.get_context("fork")
    for round_ in range(10):
        path, at = tmp_path / f"responses-{round_}.sqlite", time.time() + 0.3
        processes = [context.Process(target=open_and_put, args=(path, at, f"key-{i}")) for i in range(6)]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=60)
        assert [process.exitcode for process in processes] == [0] * 6
        cache = ResponseCache(path)
        assert [cache.get(f"key-{i}") for i in range(6)] == [{"content": f"key-{i}"} for i in range(6)]
        cache.close()
