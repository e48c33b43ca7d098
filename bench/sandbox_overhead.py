"""What the Docker sandbox costs, measured in one run (a benchmark, not a test).

1. Per command: the median wall time of `DockerSandbox.run("true")` against a raw `docker exec` subprocess
   and a raw SDK `exec_run` in the same container (N each, interleaved so load spikes hit all three alike),
   and the ratios. The goal is `DockerSandbox.run` under 1.2x a raw `docker exec`.
2. Per rollout: container set-up (`open`: create + start) and tear-down (`close`: forced removal), medians.
3. Throughput: rollouts per minute through the executor at 1, 2 and 4 workers, with an instant scripted model
   (one step that says it is done, then the task's verifier), on built-in tasks whose images are built beforehand.

    python bench/sandbox_overhead.py [--commands 50] [--rollouts 12] [--tasks tasks/core]
"""

import argparse
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from harness_evo.agent.executor import Executor
from harness_evo.config import ModelsConfig, RoleModel, RunConfig, SandboxConfig
from harness_evo.harness import Harness
from harness_evo.llm import LLM, scripted
from harness_evo.sandbox.docker import DockerBackend
from harness_evo.store import RunStore
from harness_evo.taskset import Suite, load_suite

ROOT = Path(__file__).resolve().parents[1]


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def command_overhead(backend: DockerBackend, suite: Suite, repeat: int) -> None:
    task = next(iter(suite.tasks.values()))
    with backend.open(task) as sandbox:
        container = backend.client.containers.get(sandbox.id)
        ways = {
            "DockerSandbox.run": lambda: sandbox.run("true", timeout_s=30),
            "docker exec (CLI)": lambda: subprocess.run(["docker", "exec", sandbox.id, "true"], check=True),
            "SDK exec_run": lambda: container.exec_run(["true"]),
        }
        for action in ways.values():
            action()
        times: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(repeat):
            for name, action in ways.items():
                times[name].append(timed(action))
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"per command (median of {repeat}, `true`):")
    for name, seconds in medians.items():
        print(f"  {name:20} {seconds * 1000:7.1f} ms")
    ours = medians["DockerSandbox.run"]
    print(f"  ratio over docker exec (CLI): {ours / medians['docker exec (CLI)']:.2f}x   (goal < 1.2x)")
    print(f"  ratio over SDK exec_run:      {ours / medians['SDK exec_run']:.2f}x")


def rollout_overhead(backend: DockerBackend, suite: Suite, repeat: int) -> None:
    task = next(iter(suite.tasks.values()))
    opens, closes = [], []
    for _ in range(repeat):
        sandboxes = []
        opens.append(timed(lambda: sandboxes.append(backend.open(task))))  # noqa: B023 (called at once)
        closes.append(timed(sandboxes[0].close))
    print(
        f"per rollout (median of {repeat}): set-up {statistics.median(opens) * 1000:.0f} ms, "
        f"tear-down {statistics.median(closes) * 1000:.0f} ms"
    )


def rollouts_per_minute(backend: DockerBackend, suite: Suite, rollouts: int, workers: int) -> float:
    """Rollouts of the default harness per minute with `workers` in parallel and a model that answers at once."""
    name = f"bench-instant-{time.monotonic_ns()}"
    scripted.register(name, lambda messages: "```bash\necho TASK_DONE\n```")
    models = ModelsConfig(solver=RoleModel(model=f"scripted/{name}"), cache=False)
    tasks = sorted(suite.tasks.values(), key=lambda task: task.id)[:rollouts]
    with tempfile.TemporaryDirectory() as runs:
        store = RunStore.create(Path(runs), "eval")
        with LLM(models, store=store, cache=False) as llm:
            executor = Executor.from_config(
                store, RunConfig(models=models, executor={"workers": workers}), suite, llm, backend
            )
            started = time.perf_counter()
            rows = executor.run(Harness.load(ROOT / "harnesses" / "bash-agent"), tasks, trials=1)
            elapsed = time.perf_counter() - started
        store.close()
    infra = sum(row.exit_reason == "infra_error" for row in rows)
    if infra:
        print(f"  ({infra} of {len(rows)} rollouts were infrastructure failures)")
    return len(rows) / elapsed * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=50, help="Commands timed per way of running one.")
    parser.add_argument("--rollouts", type=int, default=12, help="Rollouts per worker count (one per task).")
    parser.add_argument("--tasks", type=Path, default=ROOT / "tasks" / "core", help="The task suite.")
    args = parser.parse_args()
    backend = DockerBackend(SandboxConfig())
    suite = load_suite(args.tasks)
    for task in sorted(suite.tasks.values(), key=lambda task: task.id)[: args.rollouts]:
        backend.prepare(task)
    command_overhead(backend, suite, args.commands)
    rollout_overhead(backend, suite, 10)
    print(f"throughput ({args.rollouts} rollouts, instant scripted model, one step + verifier each):")
    for workers in (1, 2, 4):
        print(
            f"  {workers} worker{'s' if workers > 1 else ' '}: "
            f"{rollouts_per_minute(backend, suite, args.rollouts, workers):6.1f} rollouts/min"
        )


if __name__ == "__main__":
    main()
