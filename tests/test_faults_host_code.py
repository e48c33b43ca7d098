"""With `--sandbox local`, the code of the edits an evolution run tries runs on this machine: the run says so, once."""

from pathlib import Path

import pytest
from fixtures import evolve_world as world

from harness_evo.evolve import session

pytestmark = pytest.mark.usefixtures("user_cache")

NOTICE = "the code of the edits this run tries (the tools it writes) runs on this machine"


@pytest.mark.parametrize(("sandbox", "times"), [("local", 1), ("docker", 0)])
def test_a_run_on_the_local_sandbox_says_once_that_edits_code_runs_on_this_machine(tmp_path: Path, cli, monkeypatch, sandbox, times):
    monkeypatch.setattr(session, "run", lambda store, callbacks: {"stopped_by": "test"})  # what comes before the run is what counts
    monkeypatch.setattr("harness_evo.views.evolution.summary_panel", lambda summary: "")
    monkeypatch.setattr("harness_evo.views.evolution.next_steps", lambda summary, folder: "")
    world.config().save(tmp_path / "evolve.toml")
    result = cli("evolve", "--config", tmp_path / "evolve.toml", "--sandbox", sandbox, "--runs", tmp_path / "runs")
    assert result.exit_code == 0, result.output
    assert " ".join(result.output.split()).count(NOTICE) == times
