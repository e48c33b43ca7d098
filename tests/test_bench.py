"""Every benchmark under bench/ runs, each at a tiny size, as a user runs it (`python bench/NAME.py ...`, a process of
its own), so that none can rot unseen while the code it measures changes. What they measure is not checked here."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.evolve import session
from harness_evo.evolve.prune import parts
from harness_evo.harness import Edit, Harness, Write
from harness_evo.harness.settings_edit import set_setting

pytestmark = pytest.mark.slow
ROOT = Path(__file__).parents[1]
BENCH = ROOT / "bench"
FIXTURE_TASKS = world.TASKS
PEER_GEPA = min((BENCH / "results" / "peer_gepa").iterdir())
"""A recorded setting of peer_gepa: its table is printed from the results without running anything."""

SMALL: dict[str, tuple[list[str], list[pytest.MarkDecorator], str]] = {
    "curriculum_sim": (["--seeds", "2", "--budget", "60", "--workers", "1"], [], "Evolution runs: 2 worlds"),
    "gate_calibration": (["--quick", "--workers", "1"], [], "side by side:"),
    "views": (["--rollouts", "100", "--nodes", "5", "--calls", "100"], [], "views of a run with 100 rollouts"),
    "peer_gepa": (["--table", str(PEER_GEPA)], [], "rollouts harness-evo needed to reach GEPA's final test score"),
    "sandbox_overhead": (
        ["--commands", "3", "--rollouts", "1", "--tasks", str(FIXTURE_TASKS)],
        [pytest.mark.docker],
        "throughput (1 rollouts",
    ),
    "soak": (
        ["--kills", "1", "--kills-per-run", "1", "--interrupts", "1"],
        [pytest.mark.docker],
        "not ended within a minute: 0; tracebacks: 0",
    ),
    "distributed": (["--rollouts", "1", "--repeats", "1"], [pytest.mark.docker, pytest.mark.ray], "ray / local"),
    "embedded_throughput": (
        ["--count", "1", "--settings", "1", "--model", "local/qwen2.5-coder-0.5b", "--runs", "{tmp}"],
        [pytest.mark.embedded, pytest.mark.docker],
        "rollouts/min",
    ),
    "llm_local": (["--models", "local/qwen2.5-coder-0.5b"], [pytest.mark.embedded], "cache hit:"),
    "reply_budget": (["{eval}", "--replies", "0"], [pytest.mark.docker], "recorded replies: tokens n="),
    "screen_audit": (["{evolve}"], [pytest.mark.docker], "gated edits: 1; the screen would drop 0, of which"),
    "gate_queue": (
        ["--looks", "1", "--tasks", str(FIXTURE_TASKS), "--harness", str(world.HARNESS), "--workers", "2"]
        + ["--model", "scripted/world-solver", "--data", str(ROOT / "tests" / "fixtures" / "gate_looks.json")],
        [pytest.mark.docker],
        "one queue / a queue per side and trial:",
    ),
    "landscape": (
        ["--harness", str(world.HARNESS), "--tasks", str(FIXTURE_TASKS), "--out", "{tmp}/variants", "--split", "train"]
        + ["--trials", "1", "--rows", "temperature,shorter-system", "--model", "scripted/world-solver"]
        + ["--runs", "{tmp}/runs"],
        [pytest.mark.docker],
        "between C ({tmp}/variants/shorter-system) and A",
    ),
}
"""Bench script -> (arguments of a tiny run, the marks of what it needs, a line its output must hold). peer_gepa's
running pieces are tested in test_peer_gepa.py; `{eval}` is an eval run of the
scripted world made first, `{evolve}` an evolve run of it (one iteration: the fix, gated)."""
EMBEDDED_POOL = ["--embedded", "--skip-simulation", "--tasks", "1", "--pool-trials", "1", "--gates", "5"]
"""gate_calibration's second part: a pool of embedded-model rollouts, one task and one trial per side."""


def test_every_bench_script_has_a_tiny_run_here():
    scripts = {path.stem for path in BENCH.glob("*.py")}
    assert scripts == set(SMALL), "a bench script without a tiny run in this file can rot unseen"


def scripted_eval(runs: Path) -> Path:
    """An eval run of the scripted world's solver on its train split: the folder of a run to read."""
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            world.__name__,
            "cli",
            "eval",
            "--harness",
            str(world.HARNESS),
            "--tasks",
            str(world.TASKS),
            "--split",
            "train",
            "--model",
            "scripted/world-solver",
            "--runs",
            str(runs),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert process.returncode == 0, process.stderr[-3000:]
    [folder] = runs.iterdir()
    return folder


def scripted_evolve(runs: Path) -> Path:
    """An evolve run of the scripted world (one iteration, the world's fix gated): the folder of a run to read."""
    world.register()
    store = session.start(world.config(gate="evidence"), runs)
    session.run(store)
    return store.folder


def bench(name: str, args: list[str], tmp_path: Path) -> str:
    """`python bench/NAME.py ARGS` in a process of its own; its output, after checking it ended well."""
    env = {**os.environ, "COLUMNS": "200"}
    process = subprocess.run(
        [sys.executable, str(BENCH / f"{name}.py"), *(arg.replace("{tmp}", str(tmp_path)) for arg in args)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert process.returncode == 0 and "Traceback" not in process.stderr, f"bench/{name}.py: {process.stderr[-3000:]}"
    return " ".join(process.stdout.split())


@pytest.mark.parametrize("name", [pytest.param(name, marks=marks) for name, (_, marks, _) in SMALL.items()])
@pytest.mark.usefixtures("user_cache")
def test_a_bench_runs_at_a_tiny_size(name: str, tmp_path: Path):
    args, _, expected = SMALL[name]
    if "{eval}" in args:
        args = [str(scripted_eval(tmp_path / "runs")) if arg == "{eval}" else arg for arg in args]
    if "{evolve}" in args:
        args = [str(scripted_evolve(tmp_path / "runs")) if arg == "{evolve}" else arg for arg in args]
    assert expected.replace("{tmp}", str(tmp_path)) in bench(name, args, tmp_path)


@pytest.mark.embedded
@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_the_gate_calibration_pool_of_embedded_rollouts_runs_at_a_tiny_size(tmp_path: Path):
    assert "5 gates drawn from the pool: accepted" in bench(
        "gate_calibration", [*EMBEDDED_POOL, "--runs-dir", str(tmp_path / "runs")], tmp_path
    )


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_the_pass_rate_file_of_an_eval_run_holds_its_rates_and_a_command_that_runs_from_a_checkout(tmp_path: Path):
    run = scripted_eval(tmp_path / "runs")
    out = tmp_path / "pass_rates.json"
    bench("gate_calibration", ["--pass-rates", str(run), "--out", str(out)], tmp_path)
    data = json.loads(out.read_text())
    assert data["synthetic"] is False and data["run"] == run.name
    assert str(ROOT) not in data["command"]
    assert f"--harness {world.HARNESS.relative_to(ROOT)} --tasks {world.TASKS.relative_to(ROOT)}" in data["command"]
    assert data["tasks"] and all(0 <= rate["passed"] <= rate["n"] for rate in data["tasks"].values())


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_the_screen_audit_looks_at_given_children_and_every_prune_candidate_of_an_eval_runs_harness(tmp_path: Path):
    run = scripted_eval(tmp_path / "runs")
    cooler = tmp_path / "cooler"
    harness = Harness.load(world.HARNESS)
    harness.apply(
        Edit(
            ops=[
                Write(
                    path="harness.toml",
                    text=set_setting(harness.components["harness.toml"], "model", "temperature", 0.1),
                )
            ]
        )
    ).save(cooler)
    printed = bench("screen_audit", [str(run), "--children", str(cooler), "--prune"], tmp_path)
    assert "children: " in printed and str(cooler) in printed
    shown, rejected = re.search(r"children: (\d+);.* reject before the screen: (\d+)", printed).groups()
    assert int(shown) - 1 + int(rejected) == len(parts(harness)) and int(rejected) >= 1  # the task's paragraph
