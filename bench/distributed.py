"""Rollouts per minute, local executor vs Ray executor, at 1, 2, 4 and 8 rollouts at once (a benchmark, not a test).

The model answers at once (a scripted reply that says it is done), so what is measured is the executor's own cost:
a sandbox per rollout, the verifier, and for Ray the task's trip to a node and back. Both backends run the same
rollouts against the same Docker engine; with no `--address` a one-node Ray cluster is started here (and stopped),
so the ratio is Ray's overhead on one machine, not its gain on many. Each setting runs `--repeats` times, local and
Ray alternating; rates are the mean with a 95% t-interval over the repeats, and the ratio is Ray's rate over local's.

    python bench/distributed.py [--rollouts 16] [--repeats 3] [--address HOST:PORT]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scipy.stats import t as student

from harness_evo.agent.executor import Executor
from harness_evo.config import ExecutorConfig, ModelsConfig, RoleModel, RunConfig, SandboxConfig
from harness_evo.harness import Harness
from harness_evo.llm import LLM, scripted
from harness_evo.sandbox.docker import DockerBackend
from harness_evo.store import RunStore
from harness_evo.taskset import load_suite

ROOT = Path(__file__).resolve().parents[1]
CONCURRENCY = (1, 2, 4, 8)
HEAD_PORT = 6399


def rollouts_per_minute(backend: DockerBackend, tasks: list, cluster: ExecutorConfig, workers: int) -> float:
    """Rollouts of the default harness per minute, `workers` at once, with a model that answers at once."""
    name = f"bench-instant-{time.monotonic_ns()}"
    scripted.register(name, lambda messages: "```bash\necho TASK_DONE\n```")
    models = ModelsConfig(solver=RoleModel(model=f"scripted/{name}"), cache=False)
    suite = load_suite(ROOT / "tasks" / "core")
    with tempfile.TemporaryDirectory() as runs:
        store = RunStore.create(Path(runs), "eval")
        with LLM(models, store=store, cache=False) as llm:
            config = RunConfig(models=models, executor=cluster.model_copy(update={"workers": workers}))
            executor = Executor.from_config(store, config, suite, llm, backend)
            started = time.perf_counter()
            rows = executor.run(Harness.load(ROOT / "harnesses" / "bash-agent"), tasks, trials=1)
            elapsed = time.perf_counter() - started
        store.close()
    if infra := sum(row.infra for row in rows):
        print(f"  ({infra} of {len(rows)} rollouts were infrastructure failures)", flush=True)
    return len(rows) / elapsed * 60


def mean_interval(values: list[float]) -> tuple[float, float, float]:
    """The mean and its 95% t-interval (the mean twice when there is one value)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, mean, mean
    half = student.ppf(0.975, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
    return mean, mean - half, mean + half


def start_cluster() -> str:
    """A one-node Ray cluster here whose node runs 8 rollouts at once; its address."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
    ray = Path(sys.executable).with_name("ray")
    subprocess.run(
        [
            str(ray),
            "start",
            "--head",
            "--port",
            str(HEAD_PORT),
            "--include-dashboard=false",
            "--num-cpus",
            "8",
            "--resources",
            json.dumps({"docker": 8}),
            "--object-store-memory",
            str(200 * 2**20),
            "--disable-usage-stats",
            "--node-ip-address",
            "127.0.0.1",
        ],
        env=env,
        check=True,
        capture_output=True,
    )
    return f"127.0.0.1:{HEAD_PORT}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rollouts", type=int, default=16, help="Rollouts per run (one per task).")
    parser.add_argument("--repeats", type=int, default=3, help="Runs per backend and concurrency.")
    parser.add_argument("--address", help="A running Ray cluster with `docker` nodes; default: start one here.")
    args = parser.parse_args()
    address = args.address or start_cluster()
    try:
        backend = DockerBackend(SandboxConfig())
        tasks = sorted(load_suite(ROOT / "tasks" / "core").tasks.values(), key=lambda task: task.id)[: args.rollouts]
        for task in tasks:
            backend.prepare(task)
        local, ray = ExecutorConfig(), ExecutorConfig(backend="ray", address=address)
        rollouts_per_minute(
            backend, tasks[: max(CONCURRENCY)], ray, max(CONCURRENCY)
        )  # warm-up: Ray's worker processes
        print(
            f"rollouts per minute ({args.rollouts} rollouts a run, {args.repeats} runs each, instant scripted model; "
            "mean [95% interval])"
        )
        print(f"{'at once':>8}  {'local':>22}  {'ray':>22}  {'ray / local':>22}")
        for workers in CONCURRENCY:
            rates: dict[str, list[float]] = {"local": [], "ray": []}
            for _ in range(args.repeats):
                rates["local"].append(rollouts_per_minute(backend, tasks, local, workers))
                rates["ray"].append(rollouts_per_minute(backend, tasks, ray, workers))
            ratios = [r / lo for r, lo in zip(rates["ray"], rates["local"])]
            cells = [mean_interval(values) for values in (rates["local"], rates["ray"])]
            ratio = mean_interval(ratios)
            print(
                f"{workers:>8}  "
                + "  ".join(f"{m:6.1f} [{lo:5.1f}, {hi:5.1f}]    " for m, lo, hi in cells)
                + f"{ratio[0]:5.2f}x [{ratio[1]:.2f}, {ratio[2]:.2f}]",
                flush=True,
            )
    finally:
        import ray

        ray.shutdown()  # before the cluster stops: a driver left connected reports its raylet's end as a crash
        if not args.address:
            subprocess.run([str(Path(sys.executable).with_name("ray")), "stop", "--force"], capture_output=True)


if __name__ == "__main__":
    main()
