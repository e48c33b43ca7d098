"""The scripted world tests and bench/ share (`harness_evo.world`): its command is `harness-evo` with the world's
models, its seeded defect fails exactly the tasks that name their file relative to the working directory, and one
iteration of evolution on the local sandbox finds the fix (on Docker, and every step in detail: test_evolve.py)."""

import runpy
import shutil
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.evolve import session

pytestmark = [
    pytest.mark.usefixtures("user_cache"),
    pytest.mark.skipif(
        shutil.which("bwrap") is None,
        reason="the local sandbox isolates the world's files only under bubblewrap, which is not installed",
    ),
]


def test_the_world_command_runs_harness_evo_with_the_world_s_models_and_its_defect_fails_the_relative_paths(
    tmp_path: Path, monkeypatch, only_run
):
    world.config().save(tmp_path / "world.toml")
    monkeypatch.setattr(
        "sys.argv",
        [
            "harness_evo.world",
            "cli",
            "eval",
            "--config",
            str(tmp_path / "world.toml"),
            "--split",
            "train",
            "--sandbox",
            "local",
            "--runs",
            str(tmp_path / "runs"),
        ],
    )

    with pytest.raises(SystemExit) as exit_:
        runpy.run_module(world.__name__, run_name="__main__")

    assert exit_.value.code in (0, None)
    store = only_run(tmp_path / "runs")
    assert {row["task_id"]: bool(row["passed"]) for row in store.rows("rollouts")} == {
        "color": False,
        "fruit": False,
        "stone": True,
    }
    assert {row["model"] for row in store.rows("llm_calls")} == {"scripted/world-solver"}


def test_one_iteration_of_the_world_on_the_local_sandbox_refuses_the_leaky_edit_and_keeps_the_fix(tmp_path: Path):
    """The evolution loop end to end without Docker, so that the fast tier runs it."""
    world.register("world-local")
    config = world.config(dev_trials=2)
    config.sandbox.backend = "local"

    store = session.start(config, tmp_path / "runs")
    session.run(store)

    leaky, fix = store.rows("edits")
    assert leaky["status"] == "rejected_static" and any("training task fruit" in reason for reason in leaky["reasons"])
    assert (
        fix["status"] == "accepted"
        and world.FIX in (store.folder / "harnesses" / fix["child_id"] / "prompts" / "system.md.j2").read_text()
    )
    assert fix["gate"]["fixed"] > 0 and fix["gate"]["broken"] == 0
