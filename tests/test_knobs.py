"""Knob steps and the choice of move: a setting of `harness.toml` one step from the parent's, against a pattern whose
category it addresses, within its bounds; end to end, a solver that checks its work only when asked to confirm is lifted
on dev by the `confirm_done` step the gate accepted; the move bandit tries each kind, then follows accepted gain."""

import re
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.agent.agents import CONFIRM_QUESTION
from harness_evo.config import RoleModel
from harness_evo.errors import HarnessError
from harness_evo.evolve import session
from harness_evo.evolve.knobs import KNOBS, knob_edit, knob_steps
from harness_evo.evolve.move_policy import FirstHarvest, MoveBandit
from harness_evo.harness import Harness
from harness_evo.harness.settings_edit import set_setting
from harness_evo.llm import scripted
from harness_evo.store import Edit, EditStatus

SOLVER = RoleModel(temperature=0.7)
DEFAULT = Path(__file__).parents[1] / "harnesses" / "bash-agent"
TASK_LINE = re.compile(r"Write the word (\S+) into (/\S+\.txt)")


def harness_with(toml_extra: str = "", agent_extra: str = "") -> Harness:
    components = Harness.load(DEFAULT).components
    toml = components["harness.toml"].replace("[agent]\n", f"[agent]\n{agent_extra}") + toml_extra
    return Harness({**components, "harness.toml": toml})


def test_a_knob_step_moves_one_setting_one_step_toward_what_the_pattern_needs():
    parent = harness_with()
    [loop] = knob_steps(parent, "command-loop", SOLVER)
    assert (loop.knob, loop.before, loop.after) == ("model.temperature", 0.7, 0.5), "unset: the run's own temperature"
    [confirm] = knob_steps(parent, "no-verification", SOLVER)
    assert (confirm.knob, confirm.before, confirm.after) == ("agent.confirm_done", False, True)
    assert [step.knob for step in knob_steps(parent, "incomplete-solution", SOLVER)] == [
        "agent.confirm_done",
        "agent.step_limit",
    ]
    assert knob_steps(parent, "misread-instruction", SOLVER) == [], "no setting addresses a misread instruction"

    child = parent.apply(knob_edit(parent, loop, "command-loop"))
    assert child.sampling.temperature == 0.5 and child.agent == parent.agent
    assert parent.apply(knob_edit(parent, confirm, "no-verification")).confirms_done


def test_a_knob_at_its_bound_offers_no_step():
    cold = harness_with(toml_extra="\n[model]\ntemperature = 0.1\n")
    assert knob_steps(cold, "command-loop", SOLVER) == [], "0.1 - 0.2 leaves the bounds"
    confirming = harness_with(agent_extra="confirm_done = true\n")
    assert knob_steps(confirming, "no-verification", SOLVER) == []
    longest = harness_with().apply(
        knob_edit(harness_with(), knob_steps(harness_with(), "step-limit", SOLVER)[0], "step-limit")
    )
    assert longest.agent.step_limit == 18 and KNOBS["agent.step_limit"].high == 60


def test_set_setting_keeps_the_rest_of_the_file():
    toml = '# my harness\n[harness]\nname = "x"  # short\n\n[agent]\nstep_limit = 5\n'
    changed = set_setting(toml, "agent", "step_limit", 11)
    assert changed == '# my harness\n[harness]\nname = "x"  # short\n\n[agent]\nstep_limit = 11\n'
    assert set_setting(toml, "model", "temperature", 0.3).endswith("[model]\ntemperature = 0.3\n")


@pytest.mark.parametrize(
    "section, line, key",
    [
        ("model", "temperature = 3.0", "temperature"),
        ("model", "max_tokens = 4", "max_tokens"),
        ("model", "top_k = 3", "top_k"),
        ("agent", 'confirm_done = "maybe"', "confirm_done"),
    ],
)
def test_a_setting_out_of_bounds_is_one_line_naming_the_key(section: str, line: str, key: str):
    extra = f"\n[model]\n{line}\n" if section == "model" else ""
    with pytest.raises(HarnessError, match=rf"harness.toml.*{key}"):
        harness_with(toml_extra=extra, agent_extra="" if extra else f"{line}\n")


def test_the_move_bandit_tries_each_kind_then_follows_accepted_gain_per_rollout(gated_edit):
    edit = gated_edit
    bandit, kinds = MoveBandit(), ["proposer", "harvest", "knob"]
    assert bandit.choose(kinds, []) == "proposer"
    assert bandit.choose(kinds, [edit("proposer", 0)]) == "harvest"
    history = [edit("proposer", 0), edit("harvest", 1, EditStatus.ACCEPTED, fixed=4, pairs=6), edit("knob", 2)]
    assert bandit.choose(kinds, history) == "harvest", "4 tasks gained over 12 rollouts"
    assert bandit.choose(["proposer", "knob"], history) == "proposer", "ties go to the order of the moves"
    many_failures = history + [edit("harvest", k) for k in range(3, 60)]
    assert bandit.choose(kinds, many_failures) != "harvest", "a kind that stops gaining loses to exploring the others"
    assert (
        FirstHarvest().choose(kinds, []) == "harvest" and FirstHarvest().choose(["proposer", "knob"], []) == "proposer"
    )


# End to end: a solver that checks its work only when asked to confirm it is done.


def hesitant(messages: list[dict]) -> str:
    """Looks and says it is done; asked to confirm, writes the word, shows it and finishes."""
    word, path = TASK_LINE.findall(messages[1]["content"])[-1]
    asked = next(
        (
            k
            for k, message in enumerate(messages)
            if message["role"] == "user" and CONFIRM_QUESTION in message["content"]
        ),
        None,
    )
    if asked is None:
        return world.bash("ls /app && echo TASK_DONE")
    after = sum(message["role"] == "assistant" for message in messages[asked:])
    return world.bash(f"echo {word} > {path}") if after == 0 else world.bash(f"cat {path} && echo TASK_DONE")


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_a_confirm_done_step_accepted_by_the_gate_lifts_dev(cli, tmp_path: Path, harvest_config):
    config = harvest_config(tmp_path, hesitant, ["knob", "proposer"])
    config.budget = config.budget.model_copy(update={"max_iterations": 2})
    store = session.start(config, tmp_path / "runs")
    summary = session.run(store)

    knobs = store.records(Edit, order_by="iteration, id", move="knob")
    assert [edit.status for edit in knobs][:1] == [EditStatus.ACCEPTED], [edit.model_dump() for edit in knobs]
    [accepted] = [edit for edit in knobs if edit.status is EditStatus.ACCEPTED]
    assert knobs[0] == accepted, "the step against the pattern's category is gated first"
    assert "agent.confirm_done False -> True" in accepted.rationale and accepted.pattern_id
    assert accepted.gate.fixed > 0 and accepted.gate.broken == 0
    child = store.folder / "harnesses" / accepted.child_id
    assert "confirm_done = true" in (child / "harness.toml").read_text()
    assert (summary.start_dev, summary.best_dev) == (0.0, 1.0) and summary.best_node == accepted.child_id
    assert summary.accepted_by_move == {"knob": 1}
    shown = cli("edits", store.folder, "--last", 0, env={"COLUMNS": "200"}).output
    assert any(line.split()[:3] == [accepted.id, "0", "knob"] for line in shown.replace("│", " ").splitlines()), shown
    assert f"{accepted.id} knob [{accepted.pattern_id}]" in cli("tree", store.folder).output


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_the_harness_sampling_settings_reach_the_solver_and_unset_ones_are_the_runs(cli, tmp_path: Path, eval_words):
    sampled = harness_with(toml_extra='\n[model]\ntemperature = 0.2\nmax_tokens = 64\nstop = ["</done>"]\n').save(
        tmp_path / "sampled"
    )
    eval_words(cli, tmp_path, hesitant, "dev", harness=sampled)
    params = scripted.last_params(f"harvest-cli-hesitant-{tmp_path.name}")
    assert (params["temperature"], params["max_tokens"]) == (0.2, 64)
    assert "</done>" in params["stop"] and "\n```\n" in params["stop"], (
        "the harness's stop sequences add to the action format's"
    )

    eval_words(cli, tmp_path, hesitant, "dev", harness=DEFAULT)
    params = scripted.last_params(f"harvest-cli-hesitant-{tmp_path.name}")
    assert (params["temperature"], params["max_tokens"]) == (0.7, 512), "the run's [models.solver] settings"
