"""Where model-written code runs: with `--sandbox docker`, the toolsmith's scripts run in the tasks' containers and
never on this machine; with `--sandbox local` they run on this machine, and the run says so, once."""

from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.evolve import session

pytestmark = pytest.mark.usefixtures("user_cache")

NOTICE = "the code of the edits this run tries (the tools it writes) runs on this machine"


@pytest.mark.parametrize(("sandbox", "times"), [("local", 1), ("docker", 0)])
def test_a_run_on_the_local_sandbox_says_once_that_edits_code_runs_on_this_machine(
    tmp_path: Path, cli, monkeypatch, sandbox, times
):
    monkeypatch.setattr(
        session, "run", lambda store, callbacks: {"stopped_by": "test"}
    )  # what comes before the run is what counts
    monkeypatch.setattr("harness_evo.views.evolution.summary_panel", lambda summary: "")
    monkeypatch.setattr("harness_evo.views.evolution.next_steps", lambda summary, folder: "")
    world.config().save(tmp_path / "evolve.toml")
    result = cli("evolve", "--config", tmp_path / "evolve.toml", "--sandbox", sandbox, "--runs", tmp_path / "runs")
    assert result.exit_code == 0, result.output
    assert " ".join(result.output.split()).count(NOTICE) == times


@pytest.mark.docker
def test_with_the_docker_sandbox_the_toolsmith_s_scripts_run_in_the_task_s_containers_never_here(
    tmp_path: Path, run_putword_world
):
    """Each script the toolsmith writes first writes a file at a path of this machine's; the first then crashes on the
    agent's call, so its traceback reaching the toolsmith shows it ran. Neither left its file here."""
    here = tmp_path / "host"
    prompts = []

    def toolsmith(messages: list[dict]) -> str:
        prompts.append(messages[-1]["content"])
        arguments = "sys.argv[1:3]" if len(prompts) > 1 else "sys.argv[2:4]"
        return (
            '```python\n"""putword WORD FILE: write WORD into FILE."""\nimport os, sys\n'
            f'os.makedirs({str(here)!r}, exist_ok=True)\nopen(os.path.join({str(here)!r}, "ran"), "a").write("x")\n'
            f'word, name = {arguments}\nopen(name, "w").write(word + "\\n")\n```'
        )

    world.register()
    _, store, _ = run_putword_world(tmp_path, toolsmith, "host-code", world.HARNESS)
    assert len(prompts) == 2 and "ValueError: not enough values to unpack" in prompts[1], (
        "the first script ran, and crashed"
    )
    [edit] = store.rows("edits")
    assert edit["status"] == "accepted", "the second ran the agent's calls, in the tryout and the gate"
    assert not here.exists()
