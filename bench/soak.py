"""The soak (a benchmark, minutes long, not a test): break runs on purpose and count what was lost or left behind.

1. Kills: evolution runs of the scripted world (`harness_evo.world`: scripted models, real Docker) are killed with
   SIGKILL at random moments, each kill followed by `harness-evo resume` (which may be killed in turn), until each run
   finishes; each finished run is compared with an uninterrupted run of the same seed. Prints kills survived / tried \
(a kill survived
   when its run finished deciding and paying exactly what the uninterrupted one did), repeats (finished rollouts run
   again, and model calls paid beyond the uninterrupted run's) and the differences found.
2. Interrupts: `eval` and `evolve` (in turn) get SIGINT, as Ctrl-C sends it, at a random moment; after each, the
   containers of its run, the processes it started (model servers included) and its temporary folders still there
   (besides the image-build locks, shared by every run on purpose) are counted, each rollout the run recorded must
   have kept its trajectory, and the command must have said it was interrupted without a traceback.

    python bench/soak.py [--kills 20] [--kills-per-run 5] [--interrupts 20] [--seed 0]
"""

import argparse
import itertools
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from harness_evo import stats, world
from harness_evo.evolve import session
from harness_evo.sandbox.docker import connect, prune
from harness_evo.sandbox.images import LABEL, LOCKS
from harness_evo.store import RunStore


def config():
    config = world.config()
    config.executor.workers = 1
    return config


@dataclass
class Kills:
    tried: int = 0
    survived: int = 0
    repeats: int = 0
    differences: list[str] = field(default_factory=list)


def world_command(args: list[str], env: dict[str, str], **popen) -> subprocess.Popen:
    """`harness-evo ARGS` with the world's scripted models, started in a new process."""
    return subprocess.Popen(
        [sys.executable, "-m", world.__name__, "cli", *map(str, args)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def reference_run(folder: Path) -> tuple[RunStore, float]:
    """The uninterrupted run, and how long it took (the span kills are drawn from, until a run ends before its kill)."""
    env = os.environ | {"HARNESS_EVO_CACHE": str(folder / "cache")}
    store = session.start(config(), folder / "runs")
    started = time.monotonic()
    process = world_command(["resume", store.id, "--runs", folder / "runs", "--quiet"], env)
    _, errors = process.communicate()
    if process.returncode:
        raise SystemExit(f"the uninterrupted run failed: {errors.strip()}")
    return RunStore(store.folder), time.monotonic() - started


def killed_runs(kills: int, per_run: int, rng: random.Random, folder: Path) -> Kills:
    reference, span = reference_run(folder / "reference")
    print(f"uninterrupted run: {span:.0f} s, {len(reference.rows('rollouts'))} rollouts", flush=True)
    result = Kills()
    for number in itertools.count():
        if result.tried >= kills:
            break
        case = folder / f"run-{number}"  # a run of its own, with a response cache of its own
        env = os.environ | {"HARNESS_EVO_CACHE": str(case / "cache")}
        store = session.start(config(), case / "runs")
        in_run, started = 0, time.monotonic()
        while True:
            process = world_command(["resume", store.id, "--runs", case / "runs", "--quiet"], env)
            if in_run < per_run and result.tried + in_run < kills:
                try:
                    process.wait(timeout=rng.uniform(1.0, span))
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
                    prune(connect(), **{f"{LABEL}.run": store.id})
                    in_run += 1
                    continue
            _, errors = process.communicate()
            if process.returncode:
                result.differences.append(f"{store.id}: resume failed: {errors.strip().splitlines()[-1:]}")
            if in_run == 0:  # a run no kill landed in: the machine is faster now, draw the next moments from its time
                span = time.monotonic() - started
            break
        store = RunStore(store.folder)
        differences = world.differences(store, reference)
        repeats = world.repeats(store) + sum(
            (world.facts(store)["model calls paid"] - world.facts(reference)["model calls paid"]).values()
        )
        result.tried += in_run
        result.repeats += repeats
        result.survived += in_run if not differences and not repeats else 0
        result.differences += [
            f"{store.id}: {name}: {mine} where the uninterrupted run has {theirs}"
            for name, (mine, theirs) in differences.items()
        ]
        print(
            f"  run {store.id}: {in_run} kills, differences: {list(differences) or 'none'}, repeats: {repeats}",
            flush=True,
        )
    return result


@dataclass
class Leftovers:
    tried: int = 0
    containers: int = 0
    processes: int = 0
    temp_folders: int = 0
    lost_trajectories: int = 0
    stuck: int = 0
    """Processes that did not end within a minute of Ctrl-C."""
    ended_first: int = 0
    """Commands that finished before their Ctrl-C (not counted as tried)."""
    tracebacks: int = 0
    """Ctrl-C's after which the command printed a traceback instead of its notice."""
    clean: int = 0
    """Ctrl-C's after which the command ended within a minute and nothing was left or lost."""


def marked_processes(mark: str) -> list[int]:
    """Processes whose environment carries `mark` (every process a command started inherits it)."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if mark.encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def interrupts(count: int, rng: random.Random, folder: Path) -> Leftovers:
    folder.mkdir(parents=True)
    config_file = folder / "evolve.toml"
    config().save(config_file)
    result = Leftovers()
    spans = {
        "eval": 20.0,
        "evolve": 60.0,
    }  # seconds a Ctrl-C is drawn from, per command: its whole time once it ended first
    for i in itertools.count():
        if result.tried >= count:
            break
        case = folder / f"interrupt-{i}"
        temp, runs = case / "tmp", case / "runs"
        temp.mkdir(parents=True)
        mark = f"SOAK_MARK={uuid.uuid4().hex}"
        env = os.environ | {
            "HARNESS_EVO_CACHE": str(case / "cache"),
            "TMPDIR": str(temp),
            mark.split("=")[0]: mark.split("=")[1],
        }
        command = "evolve" if i % 2 else "eval"
        args = (
            ["evolve", "--config", config_file]
            if command == "evolve"
            else [
                "eval",
                "--harness",
                world.HARNESS,
                "--tasks",
                world.TASKS,
                "--split",
                "all",
                "--trials",
                2,
                "--model",
                "scripted/world-solver",
                "--workers",
                2,
            ]
        )
        started = time.monotonic()
        process = world_command([*args, "--runs", runs], env, start_new_session=True)
        try:
            process.wait(timeout=rng.uniform(0.5, spans[command]))
            result.ended_first += 1
            spans[command], interrupted = time.monotonic() - started, False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole foreground group
            result.tried, interrupted = result.tried + 1, True
        before = (
            result.stuck,
            result.containers,
            result.processes,
            result.temp_folders,
            result.lost_trajectories,
            result.tracebacks,
        )
        try:
            _, err = process.communicate(timeout=60)
            result.tracebacks += interrupted and "Traceback" in err
        except subprocess.TimeoutExpired:
            result.stuck += 1
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
        folders = list(runs.iterdir()) if runs.is_dir() else []
        client = connect()
        for run in folders:
            left = client.containers.list(all=True, filters={"label": [f"{LABEL}.run={run.name}"]})
            result.containers += len(left)
            prune(client, **{f"{LABEL}.run": run.name})
            store = RunStore(run)
            result.lost_trajectories += sum(
                1
                for row in store.rows("rollouts")
                if not row.get("trajectory") or not (run / row["trajectory"]).is_file()
            )
        alive = marked_processes(mark)
        result.processes += len(alive)
        for pid in alive:
            os.kill(pid, signal.SIGKILL)
        result.temp_folders += sum(
            1 for path in temp.iterdir() if path.name != LOCKS.name
        )  # image-build locks are shared on purpose
        after = (
            result.stuck,
            result.containers,
            result.processes,
            result.temp_folders,
            result.lost_trajectories,
            result.tracebacks,
        )
        result.clean += interrupted and after == before
        print(
            f"  {command} #{i}: exit {process.returncode} after {time.monotonic() - started:.0f} s, "
            f"runs {len(folders)}",
            flush=True,
        )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--kills-per-run", type=int, default=5)
    parser.add_argument("--interrupts", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="soak-") as scratch:
        folder = Path(scratch)
        if args.kills:
            kills = killed_runs(args.kills, args.kills_per_run, rng, folder / "kills")
            print(
                f"kills survived: {kills.survived} / {kills.tried} ({stats.rate(kills.survived, kills.tried)}); "
                f"repeats: {kills.repeats}; differences: {len(kills.differences)}",
                flush=True,
            )
            for difference in kills.differences:
                print(f"  {difference}")
        if args.interrupts:
            left = interrupts(args.interrupts, rng, folder / "interrupts")
            print(
                f"Ctrl-C's: {left.tried} (and {left.ended_first} commands that ended before theirs); left nothing "
                f"behind: {stats.rate(left.clean, left.tried)}; leftover containers: {left.containers}, processes: "
                f"{left.processes}, temporary folders: {left.temp_folders}; rollouts without their trajectory: "
                f"{left.lost_trajectories}; not ended within a minute: {left.stuck}; tracebacks: {left.tracebacks}"
            )


if __name__ == "__main__":
    main()
