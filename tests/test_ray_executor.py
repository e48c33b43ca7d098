"""The `ray` executor on a real Ray cluster of two nodes on this machine (a head and a worker, separate processes),
with real Docker: the same results as the local executor, a node lost mid-rollout, Ctrl-C, an unreachable cluster."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import docker
import pytest

from harness_evo import world
from harness_evo.agent.evaluate import evaluate
from harness_evo.agent.session import session
from harness_evo.agent.trajectory import Trajectory
from harness_evo.config import RunConfig
from harness_evo.llm import scripted
from harness_evo.store import RunStore

ray = pytest.importorskip("ray")
pytestmark = [pytest.mark.docker, pytest.mark.ray]

ROOT = Path(__file__).parents[1]
CORE = ROOT / "tasks" / "core"
HARNESS = ROOT / "harnesses" / "bash-agent"
SIX = [
    "archive-create-tarball",
    "config-add-json-key",
    "config-set-debug-false",
    "data-csv-row-count",
    "data-sum-numbers",
    "debug-fix-median",
]
LABEL = "harness-evo"
RAY = str(Path(sys.executable).with_name("ray"))
"""Ray's command, beside this Python (scripts/test.sh runs pytest without the virtual environment on PATH)."""
NODE = [
    "--num-cpus",
    "1",
    "--object-store-memory",
    str(100 * 2**20),
    "--disable-usage-stats",
    "--node-ip-address",
    "127.0.0.1",
]
"""Each node's settings: small, and on the loopback address only (its traffic stays on 127.0.0.1)."""
ENV = {
    **os.environ,
    "PYTHONPATH": str(ROOT),
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_health_check_period_ms": "500",
    "RAY_health_check_failure_threshold": "4",
}
"""The nodes' environment: this checkout's package, and a lost node noticed in about two seconds."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """A head (with 1 docker slot) and a worker node (2 slots), each its own `ray start` process."""

    def __init__(self):
        self.port, client_port = free_port(), free_port()
        self.address, self.client_address = f"127.0.0.1:{self.port}", f"ray://127.0.0.1:{client_port}"
        subprocess.run(
            [
                RAY,
                "start",
                "--head",
                "--port",
                str(self.port),
                "--ray-client-server-port",
                str(client_port),
                "--include-dashboard=false",
                "--resources",
                json.dumps({"docker": 1}),
                *NODE,
            ],
            env=ENV,
            check=True,
            capture_output=True,
        )
        self.worker = self.start_worker()

    def start_worker(self) -> subprocess.Popen:
        """The worker node, in its own process group so that it can be killed whole (raylet, its workers)."""
        worker = subprocess.Popen(
            [RAY, "start", "--address", self.address, "--resources", json.dumps({"docker": 2}), "--block", *NODE],
            env=ENV,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while self.docker_slots() < 3:
            assert time.monotonic() < deadline, "the worker node did not join the cluster"
            time.sleep(0.5)
        return worker

    def docker_slots(self) -> float:
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                "import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR'); "
                "print(ray.cluster_resources().get('docker', 0))",
                self.address,
            ],
            env=ENV,
            capture_output=True,
            text=True,
        )
        return (
            float(result.stdout.strip().splitlines()[-1]) if result.returncode == 0 and result.stdout.strip() else 0.0
        )

    def kill_worker(self) -> None:
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait()

    def stop(self) -> None:
        if self.worker.poll() is None:
            self.kill_worker()
        subprocess.run([RAY, "stop", "--force"], env=ENV, capture_output=True)


@pytest.fixture(scope="module")
def cluster():
    if not Path(RAY).is_file():
        pytest.skip(f"{RAY} is missing (pip install 'harness-evo[ray]')")
    cluster = Cluster()
    try:
        yield cluster
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.stop()


def suite_of(tmp_path: Path, names: list[str], extra: dict[str, str] | None = None) -> Path:
    """Core tasks `names`, plus tasks whose reference solution is `extra[name]`, all in the train split."""
    suite = tmp_path / "suite"
    for name in names:
        shutil.copytree(CORE / name, suite / name)
    for name, solution in (extra or {}).items():
        shutil.copytree(CORE / "data-sum-numbers", suite / name)
        (suite / name / "solution" / "solve.sh").write_text(f"#!/bin/bash\n{solution}\nbash /solution/real.sh\n")
        shutil.copy(CORE / "data-sum-numbers" / "solution" / "solve.sh", suite / name / "solution" / "real.sh")
    (suite / "suite.toml").write_text(
        f"[splits]\ntrain = {json.dumps([*names, *(extra or {})])}\ndev = []\ntest = []\n"
    )
    return suite


def outcomes(store: RunStore) -> dict[tuple[str, int], tuple]:
    return {
        (row["task_id"], row["trial"]): (row["passed"], row["reward"], row["exit_reason"], row["steps"])
        for row in store.rows("rollouts")
    }


def run_containers(run_id: str) -> list:
    return docker.from_env().containers.list(all=True, filters={"label": f"{LABEL}.run={run_id}"})


def test_oracle_on_six_tasks_gives_the_same_results_on_the_cluster_as_here(tmp_path: Path, cli, only_run, cluster):
    suite = suite_of(tmp_path, SIX)
    common = ["eval", "--agent", "oracle", "--tasks", suite, "--split", "train", "--workers", "3"]
    here = cli(*common, "--runs", tmp_path / "local")
    assert here.exit_code == 0, here.output
    there = cli(*common, "--executor", "ray", "--ray-address", cluster.address, "--runs", tmp_path / "ray")
    assert there.exit_code == 0, there.output
    local, remote = only_run(tmp_path / "local"), only_run(tmp_path / "ray")
    assert len(outcomes(remote)) == 6 and all(passed for passed, *_ in outcomes(remote).values())
    assert outcomes(remote) == outcomes(local)
    assert remote.info.summary.pass_at_1 == local.info.summary.pass_at_1 == 1.0
    assert RunConfig.load(remote.folder / "config.toml").executor.backend == "ray"
    assert run_containers(remote.id) == []


def test_eval_reaches_the_cluster_through_its_ray_client_address_too(tmp_path: Path, cluster):
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness_evo.cli",
            "eval",
            "--agent",
            "oracle",
            "--split",
            "train",
            "--tasks",
            suite_of(tmp_path, SIX[:2]),
            "--executor",
            "ray",
            "--ray-address",
            cluster.client_address,
            "--runs",
            tmp_path / "runs",
        ],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert process.returncode == 0, process.stderr
    [folder] = (tmp_path / "runs").iterdir()
    assert [row["passed"] for row in RunStore(folder).rows("rollouts")] == [1, 1]


def test_a_scripted_solver_runs_on_the_nodes_with_this_machines_endpoint_keys_and_its_calls_are_recorded_here(
    tmp_path: Path, cluster, monkeypatch
):
    monkeypatch.setenv("EXAMPLE_API_KEY", "key-from-the-head")
    ray.shutdown()  # the next connection carries this environment
    name = f"ray-{time.monotonic_ns()}"
    scripted.register(name, lambda messages: f"```bash\necho {os.environ.get('EXAMPLE_API_KEY')}; echo TASK_DONE\n```")
    config = RunConfig(
        harness=HARNESS,
        tasks=suite_of(tmp_path, ["data-sum-numbers"]),
        split="train",
        executor={"backend": "ray", "address": cluster.address},
        models={"solver": {"model": f"scripted/{name}"}},
    )
    store = RunStore.create(tmp_path / "runs", "eval")
    with session(store, config) as run:
        evaluate(run)
    [row] = store.rows("rollouts")
    assert row["exit_reason"] == "done" and row["steps"] == 1 and not row["passed"]  # said done without doing it
    trajectory = Trajectory.model_validate(store.read_json(row["trajectory"]))
    assert "key-from-the-head" in trajectory.steps[0].reply  # the script ran on a node, which had the key
    [call] = store.rows("llm_calls")
    assert call["role"] == "solver" and call["model"] == f"scripted/{name}" and call["tokens_out"] > 0
    assert scripted.calls(name) == 0  # the call was made on a node, not in this process


@pytest.mark.usefixtures("user_cache")
def test_evolve_on_the_cluster_finds_keeps_and_measures_the_fix_as_it_does_here(tmp_path: Path, cli, only_run, cluster):
    world.register()
    config_file = tmp_path / "evolve.toml"
    world.config().save(config_file)

    result = cli(
        "evolve",
        "--config",
        config_file,
        "--executor",
        "ray",
        "--ray-address",
        cluster.address,
        "--runs",
        tmp_path / "runs",
    )

    assert result.exit_code == 0, result.output
    store = only_run(tmp_path / "runs")
    root, best = store.info.root, store.info.best_node
    leaky, fix = store.rows("edits", order_by="revision")
    assert leaky["status"] == "rejected_static" and fix["status"] == "accepted" and fix["child_id"] == best != root
    assert (fix["gate"]["fixed"], fix["gate"]["broken"]) == (6, 0)  # as tests/test_evolve.py has it on this machine
    nodes = {row["id"]: row for row in store.rows("nodes")}
    assert (nodes[root]["dev_score"], nodes[best]["dev_score"]) == (0.5, 1.0)
    solver_calls = store.rows("llm_calls", role="solver")
    assert len(solver_calls) >= 2 * len(store.rows("rollouts")), (
        "each rollout's two solver calls came back from its node"
    )
    assert scripted.calls("world-solver") == 0


@contextmanager
def slow_eval_on(
    cluster: Cluster, tmp_path: Path, sleep_s: int, reporting
) -> Iterator[tuple[subprocess.Popen, RunStore, list[str]]]:
    """`harness-evo eval` of the oracle on the cluster, of a quick task and two that sleep `sleep_s` first, from the
    moment the quick rollout is stored: the slow ones are then running, one at least on the worker node."""
    slow = [f"slow-{i}" for i in range(2)]
    suite = suite_of(tmp_path, ["data-sum-numbers"], extra={name: f"sleep {sleep_s}" for name in slow})
    process, reports = reporting.start(
        "eval",
        "--agent",
        "oracle",
        "--tasks",
        suite,
        "--split",
        "train",
        "--workers",
        "3",
        "--executor",
        "ray",
        "--ray-address",
        cluster.address,
        "--runs",
        tmp_path,
        env=ENV,
    )
    with reports:
        folder = reporting.first_stored(reports, 300)
        assert folder, "the quick rollout never finished"
        store = RunStore(folder)
        [row] = store.rows("rollouts")
        assert row["task_id"] == "data-sum-numbers" and row["passed"]
        yield process, store, slow


def test_losing_the_worker_node_mid_rollout_keeps_what_was_recorded_and_runs_the_rollout_again(
    tmp_path: Path, cluster, reporting
):
    with slow_eval_on(cluster, tmp_path, 25, reporting) as (process, store, slow):
        [recorded] = store.rows("rollouts")
        cluster.kill_worker()
        _, stderr = process.communicate(timeout=300)
    try:
        assert process.returncode == 0, stderr
        rows = {row["task_id"]: row for row in store.rows("rollouts")}
        assert rows["data-sum-numbers"] == recorded
        assert all(rows[name]["passed"] for name in slow), rows
        retried = [Trajectory.model_validate(store.read_json(rows[name]["trajectory"])).retried for name in slow]
        assert any(reasons and "lost" in reasons[0] for reasons in retried), retried
        assert run_containers(store.id) == []
    finally:
        cluster.worker = cluster.start_worker()


def test_ctrl_c_cancels_the_rollouts_on_every_node_and_leaves_no_container(tmp_path: Path, cluster, reporting):
    with slow_eval_on(cluster, tmp_path, 300, reporting) as (process, store, _):
        reporting.ctrl_c(process, within_s=60)
    assert [row["task_id"] for row in store.rows("rollouts")] == ["data-sum-numbers"]
    assert store.info.status == "stopped"
    assert run_containers(store.id) == []


def test_sandbox_prune_removes_a_runs_leftover_containers_on_the_clusters_nodes(cli, cluster):
    engine = docker.from_env()
    leftover = engine.containers.create(
        "harness-evo/base:latest", ["sleep", "infinity"], labels={LABEL: "1", f"{LABEL}.run": "left-behind"}
    )
    other = engine.containers.create(
        "harness-evo/base:latest", ["sleep", "infinity"], labels={LABEL: "1", f"{LABEL}.run": "other"}
    )
    try:
        result = cli("sandbox", "prune", "--run", "left-behind", "--ray-address", cluster.address)
        assert result.exit_code == 0, result.output
        removed = [int(count) for count in re.findall(r"removed (\d+) container", result.output)]
        assert len(removed) == 2 and sum(removed) == 1, result.output  # two nodes, one engine: one of them removed it
        assert run_containers("left-behind") == [] and run_containers("other") != []
    finally:
        other.remove(force=True)
        if run_containers("left-behind"):
            leftover.remove(force=True)


@pytest.mark.parametrize(
    ("command", "address"),
    [
        (["eval", "--agent", "oracle"], "127.0.0.1:1"),
        (["eval", "--agent", "oracle"], "ray://127.0.0.1:1"),
        (["evolve", "--model", "openai/gpt-4o-mini"], "127.0.0.1:1"),
    ],
)
def test_an_unreachable_cluster_is_one_line_before_any_work(tmp_path: Path, command: list[str], address: str):
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness_evo.cli",
            *command,
            "--tasks",
            CORE,
            "--executor",
            "ray",
            "--ray-address",
            address,
            "--runs",
            tmp_path / "runs",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert process.returncode == 2
    assert process.stderr.strip().count("\n") == 0 and f"cannot reach the Ray cluster at {address}" in process.stderr
    assert "Traceback" not in process.stderr
    assert not (tmp_path / "runs").exists()
