"""Crash anywhere, resume exactly: an `evolve` process killed with SIGKILL at a chosen moment (in a model call, in a
rollout, in the gate, inside the checkpoint's write, in dev scoring), or stopped by a disk that filled up, then resumed
with `harness-evo resume`, ends with the nodes, edits, verdicts and best node of an uninterrupted run with the same
seed, and paid no rollout or model call twice (the `rollout` events and the `llm_calls` rows say so)."""

import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.evolve import session
from harness_evo.sandbox.docker import connect, prune
from harness_evo.sandbox.images import LABEL
from harness_evo.store import RunStore

pytestmark = pytest.mark.docker


def config(gate: str = "in-turn"):
    config = world.config(gate=gate)
    config.executor.workers = 1  # one rollout at a time: the moment a kill lands is the same in every run
    return config


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> RunStore:
    """The uninterrupted run, with its own response cache."""
    folder = tmp_path_factory.mktemp("reference")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HARNESS_EVO_CACHE", str(folder / "cache"))
        world.register("reference")
        store = session.start(config(), folder / "runs")
        session.run(store)
    return store


def killed_at(moment: str, runs: Path, cache: Path, gate: str = "in-turn") -> RunStore:
    """A new run gated by `gate`, continued in another process until `moment`, where it is killed with SIGKILL."""
    store = session.start(config(gate), runs)
    process = subprocess.Popen(
        [sys.executable, "-m", world.__name__, str(store.folder), moment],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ | {"HARNESS_EVO_CACHE": str(cache)},
    )
    try:
        reached = any(line.strip() == "KILL-ME" for line in process.stdout)  # stops reading at the first
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
        prune(connect(), **{f"{LABEL}.run": store.id})  # the container of a rollout in flight (a new run prunes it too)
    assert reached, f"the run ended before the moment {moment!r}"
    return RunStore(store.folder)


def assert_same_run(store: RunStore, reference: RunStore) -> None:
    """`store` finished as the uninterrupted `reference` did, each rollout and model call paid once."""
    assert store.db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    facts = world.facts(store)
    assert facts["status"] == "finished" and len(facts["nodes"]) == 2 and facts["best node"] != store.info.root
    assert any(edit[1] == "accepted" for edit in facts["edits"])
    assert world.differences(store, reference) == {}, (
        "the resumed run decided or paid otherwise than the uninterrupted one"
    )
    assert world.repeats(store) == 0, "a finished rollout was run again"


@pytest.mark.parametrize("moment", world.MOMENTS)
def test_a_run_killed_at_any_moment_resumes_to_the_uninterrupted_run_paying_nothing_twice(
    moment: str, reference: RunStore, tmp_path: Path, monkeypatch, cli
):
    store = killed_at(moment, tmp_path / "runs", tmp_path / "cache")
    assert store.info.status == "running", "killed: nobody marked the run"
    assert 0 < len(store.rows("rollouts")) <= len(reference.rows("rollouts"))

    monkeypatch.setenv("HARNESS_EVO_CACHE", str(tmp_path / "cache"))
    world.register()
    result = cli("resume", store.id, "--runs", tmp_path / "runs", "--quiet")

    assert result.exit_code == 0, result.output
    assert_same_run(RunStore(store.folder), reference)


def test_a_run_killed_in_the_evidence_engine_s_gate_resumes_to_the_uninterrupted_run_paying_nothing_twice(
    tmp_path: Path, monkeypatch, cli
):
    with monkeypatch.context() as patch:
        patch.setenv("HARNESS_EVO_CACHE", str(tmp_path / "reference-cache"))
        world.register("reference-evidence")
        reference = session.start(config("evidence"), tmp_path / "reference")
        session.run(reference)
    store = killed_at("gate", tmp_path / "runs", tmp_path / "cache", gate="evidence")
    assert 0 < len(store.rows("rollouts")) < len(reference.rows("rollouts"))

    monkeypatch.setenv("HARNESS_EVO_CACHE", str(tmp_path / "cache"))
    world.register()
    result = cli("resume", store.id, "--runs", tmp_path / "runs", "--quiet")

    assert result.exit_code == 0, result.output
    assert_same_run(RunStore(store.folder), reference)
    [fix] = [edit for edit in world.facts(RunStore(store.folder))["edits"] if edit[1] == "accepted"]
    assert "e = " in fix[4][5], "the evidence engine decided it"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A folder on a tmpfs of 32 MB of its own (skipped where mounting one is not permitted)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=32m", "tmpfs", str(folder)], capture_output=True, text=True
    )
    if mounted.returncode:
        pytest.skip(
            f"cannot mount a tmpfs here ({mounted.stderr.strip() or mounted.returncode}); the disk-full test needs root"
        )
    yield folder
    subprocess.run(["umount", "--lazy", str(folder)], check=True)


def world_cli(*args, env: dict[str, str]) -> subprocess.CompletedProcess:
    """`harness-evo ARGS` with the world's scripted models, in a new process."""
    return subprocess.run(
        [sys.executable, "-m", world.__name__, "cli", *map(str, args)], capture_output=True, text=True, env=env
    )


FILL_AFTER = 12
"""Rollouts recorded before the disk fills: the root's dev scoring (10) and the first of the iteration's."""


def test_a_disk_that_fills_mid_run_stops_it_with_one_line_and_resume_finishes_it_once_space_is_freed(
    reference: RunStore, small_disk: Path, tmp_path: Path
):
    config_file = tmp_path / "evolve.toml"
    config().save(config_file)
    runs, ballast = small_disk / "runs", small_disk / "ballast"
    env = os.environ | {"HARNESS_EVO_CACHE": str(tmp_path / "cache")}

    full = world_cli(
        "evolve",
        "--config",
        config_file,
        "--runs",
        runs,
        "--quiet",
        env=env | {"WORLD_FILL_DISK": f"{FILL_AFTER}:{ballast}"},
    )

    [folder] = runs.iterdir()
    prune(connect(), **{f"{LABEL}.run": folder.name})
    assert full.returncode == 2, full.stderr
    lines = full.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and f"harness-evo resume {folder.name}" in lines[0], (
        full.stderr
    )
    assert "space" in lines[0] or "full" in lines[0], lines[0]
    with sqlite3.connect(f"file:{folder / 'run.db'}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT count(*) FROM rollouts").fetchone()[0] == FILL_AFTER

    ballast.unlink()
    resumed = world_cli("resume", folder.name, "--runs", runs, "--quiet", env=env)

    assert resumed.returncode == 0, resumed.stderr
    assert_same_run(RunStore(folder), reference)
