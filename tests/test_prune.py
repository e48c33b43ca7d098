"""The prune move and the knob move over every setting, and what the move policy learns from them: a prune removes one
part of a harness (a prompt's paragraph or sentence, a tool, a skill, the examples), in an order the run learns; a
prune that leaves a template saying nothing, or hiding the task, is refused by the critic with its reason in the
ledger; end to end, the misleading sentence of the evolve world's system prompt is pruned and the gate accepts it, and
workspace discovery turned on by a knob step is accepted where the solver needs the working folder's listing."""

import random
import re
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from harness_evo import world
from harness_evo.config import RoleModel, RunConfig, SearchConfig
from harness_evo.evolve import prune, session
from harness_evo.evolve.critic import Critic
from harness_evo.evolve.gate import Turn
from harness_evo.evolve.knobs import every_step
from harness_evo.evolve.ledger import Ledger
from harness_evo.evolve.move_policy import MoveBandit
from harness_evo.evolve.moves import HarvestMove, KnobMove, PruneMove
from harness_evo.evolve.nodes import Harnesses
from harness_evo.evolve.proposer import Proposal
from harness_evo.evolve.stage import Stage
from harness_evo.harness import Harness
from harness_evo.llm import scripted
from harness_evo.store import Edit, EditStatus, RunStore
from harness_evo.views.evolution import summary_panel

ROOT = Path(__file__).parents[1]
DEFAULT = ROOT / "harnesses" / "bash-agent"


def test_a_prune_part_is_a_paragraph_or_sentence_of_a_prompt_a_tool_a_skill_or_the_examples():
    harness = Harness.load(world.HARNESS)
    parts = prune.parts(harness)
    [defect] = [part for part in parts if part.description == f"the sentence '{world.DEFECT}' of prompts/system.md.j2"]
    assert any(part.description.startswith("the paragraph 'Save every file") for part in parts)
    child = harness.apply(defect.edit)
    system = child.components["prompts/system.md.j2"]
    assert world.DEFECT not in system and "When the task is complete" in system and "\n\n\n" not in system
    assert "```bash\nls -la\n```" in system, "a code fence is no part"

    default = Harness.load(DEFAULT)
    groups = {part.group for part in prune.parts(default)}
    assert {"tool", "skill", "prompts/system.md.j2"} <= groups
    for part in prune.parts(default):
        if part.group.startswith("prompts/"):
            [op] = part.edit.ops
            before = default.components[op.path]
            assert op.text.count("{%") == before.count("{%") and len(op.text) < len(before), "no part cuts a Jinja tag"
            default.apply(part.edit)  # loads: every template renders
    [tool] = [part for part in prune.parts(default) if part.group == "tool"]
    assert default.apply(tool.edit).tools == [] and all(op.op == "delete" for op in tool.edit.ops)


def test_prune_order_tries_groups_whose_removals_were_rejected_less_and_larger_removals_first(gated_edit):
    edit = gated_edit
    harness = Harness.load(DEFAULT)
    parts = prune.parts(harness)
    first = prune.order(harness, parts, [])
    sizes = [prune.removed(harness, part) for part in first]
    assert sizes == sorted(sizes, reverse=True), "with nothing learned, the part that leaves the shorter harness first"

    def rejected(path: str, iteration: int) -> Edit:
        return edit("prune", iteration).model_copy(update={"ops": [{"op": "write", "path": path, "text": ""}]})

    history = [rejected("prompts/system.md.j2", k) for k in range(3)]
    learned = prune.order(harness, parts, history)
    assert learned[0].group != "prompts/system.md.j2"
    assert {part.group for part in learned[-3:]} == {"prompts/system.md.j2"}, "a group that never helped goes last"


def test_the_knob_move_offers_every_setting_with_a_meaningful_step_features_first():
    solver = RoleModel(temperature=0.7)
    steps = [(step.knob, step.after) for step in every_step(Harness.load(DEFAULT), solver)]
    assert steps[:4] == [
        ("agent.discovery", True),
        ("agent.loop_guard", True),
        ("agent.missing_hint", True),
        ("agent.confirm_done", True),
    ]
    assert (
        ("model.temperature", 0.5) in steps
        and ("agent.step_limit", 18) in steps
        and ("model.max_tokens", 1024) in steps
    )
    assert not any(knob in ("agent.loop_guard_repeats", "agent.examples") for knob, _ in steps), (
        "the guard's repeats matter only with the guard on, K only with examples"
    )
    toml = Harness.load(DEFAULT).components["harness.toml"].replace("[agent]\n", "[agent]\nloop_guard = true\n")
    guarded = Harness({**Harness.load(DEFAULT).components, "harness.toml": toml})
    steps = [(step.knob, step.after) for step in every_step(guarded, solver)]
    assert ("agent.loop_guard", False) in steps and ("agent.loop_guard_repeats", 2) in steps
    later = [step.knob for step in every_step(guarded, solver, {"agent.discovery": 0.25})]
    assert later[0] == "agent.loop_guard" and "agent.discovery" in later[1:], "a knob that never paid comes later"


def test_the_move_policy_prefers_a_kind_that_paid(gated_edit):
    edit = gated_edit
    bandit, kinds = MoveBandit(), ["proposer", "knob", "prune"]
    history = [edit("proposer", 0), edit("knob", 1), edit("prune", 2, EditStatus.ACCEPTED, fixed=3, pairs=6)]
    assert bandit.choose(kinds, history) == "prune", "3 tasks gained over 12 rollouts"
    assert bandit.choose(["proposer", "knob"], history) == "proposer"


def test_a_prune_that_leaves_a_template_empty_or_hiding_the_task_is_refused_with_its_reason(tmp_path: Path):
    components = Harness.load(world.HARNESS).components | {
        "prompts/system.md.j2": "You are an agent in a Linux terminal.",
        "prompts/instance.md.j2": "Task:\n{{ instruction }}",
    }
    harness = Harness(components)
    store = RunStore.create(tmp_path / "runs", "evolve")
    ledger = Ledger(store, lambda event: None)
    stage = Stage(Critic(SearchConfig(), []), ledger, Harnesses(store, harness), gate=None, nodes={})
    move = PruneMove(stage, RunConfig(harness=world.HARNESS, tasks=world.TASKS), lambda node: [])
    made = move.make(Turn(0, harness.hash, None, random.Random(0)))

    assert made.candidates == [] and "refused" in made.reason
    reasons = {edit.rationale: edit.reasons for edit in store.records(Edit)}
    assert all(edit.status is EditStatus.REJECTED_STATIC for edit in store.records(Edit))
    system = next(why for rationale, why in reasons.items() if "system.md.j2" in rationale)
    assert system == ["prompts/system.md.j2 renders nothing after the edit; the agent needs what it says"]
    instance = next(why for rationale, why in reasons.items() if "instance.md.j2" in rationale)
    assert any("no longer shows {{ instruction }}" in reason for reason in instance), instance
    assert not move.ready(Turn(1, harness.hash, None, random.Random(1))), "a refused part is not offered again"


def test_an_iteration_redone_after_a_crash_offers_the_knob_steps_prunes_and_harvest_it_offered_before(tmp_path: Path):
    """A run stopped while its candidates were in their gate redoes that iteration on resume: the same candidates, not
    the next ones (their unfinished rows of the ledger would otherwise count as tried)."""
    harness = Harness.load(DEFAULT)
    store = RunStore.create(tmp_path / "runs", "evolve")
    stage = Stage(Critic(SearchConfig(), []), Ledger(store, lambda event: None), Harnesses(store, harness), None, {})
    config = RunConfig(harness=DEFAULT, tasks=world.TASKS)

    def offered(move: KnobMove | PruneMove, iteration: int) -> list[str]:
        made = move.make(Turn(iteration, harness.hash, None, random.Random(iteration)))
        assert made.candidates, made.reason
        return [candidate.edit.rationale for candidate in made.candidates]

    for move in (KnobMove(stage, config, lambda node: []), PruneMove(stage, config, lambda node: [])):
        first = offered(move, 0)
        assert offered(move, 0) == first, f"{move.kind}: the redone iteration offers the same candidates"
        assert not set(offered(move, 1)) & set(first), f"{move.kind}: the next iteration offers others"

    harvest = HarvestMove(stage, episodes=None, train=[], max_chars=0, seed=0)
    stage.ledger.propose(2, 0, 0, harness.hash, "", Proposal(ops=[], move="harvest", sources=["sun", "moon"]))
    assert harvest.taken(Turn(2, harness.hash, None, random.Random(2))) == set(), "a redone harvest takes them again"
    assert harvest.taken(Turn(3, harness.hash, None, random.Random(3))) == {"sun", "moon"}


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_the_misleading_sentence_is_pruned_and_the_gate_accepts_its_removal(tmp_path: Path):
    world.register(f"prune-{tmp_path.name}")
    config = world.config()
    config.search = config.search.model_copy(update={"moves": ["prune"]})
    store = session.start(config, tmp_path / "runs")
    summary = session.run(store)

    prunes = [edit for edit in store.records(Edit) if edit.move == "prune"]
    accepted = [edit for edit in prunes if edit.status is EditStatus.ACCEPTED]
    assert len(accepted) == 1, [e.model_dump(include={"rationale", "status", "reasons", "gate"}) for e in prunes]
    [won] = accepted
    assert won.gate.fixed > 0 and won.gate.broken == 0 and won.pattern_id is None
    child = Harness.load(store.folder / "harnesses" / won.child_id)
    assert world.DEFECT not in child.components["prompts/system.md.j2"]
    assert child.size < Harness.load(world.HARNESS).size
    assert summary.accepted_by_move == {"prune": 1} and summary.best_dev > summary.start_dev
    console = Console(width=200, record=True)
    console.print(summary_panel(summary))
    assert "(1 by prune)" in console.export_text()


def discovery_suite(root: Path, hidden_log_task) -> Path:
    """Tasks whose log file has a name only a listing of the working folder shows: three train, two dev."""
    names = ["a", "b", "c", "d", "e"]
    for name in names:
        task = hidden_log_task(root.parent / "made" / name)
        dockerfile = task / "environment" / "Dockerfile"
        dockerfile.write_text(dockerfile.read_text().replace("run-7f3a.log", f"run-{name}9.log"))
        test = task / "tests" / "test.sh"
        test.write_text(test.read_text().replace("run-7f3a.log", f"run-{name}9.log"))
        shutil.move(task, root / f"log-{name}")
    (root / "suite.toml").write_text(
        '[splits]\ntrain = ["log-a", "log-b", "log-c"]\ndev = ["log-d", "log-e"]\ntest = []\n'
    )
    return root


@pytest.mark.docker
@pytest.mark.usefixtures("user_cache")
def test_a_knob_step_turning_workspace_discovery_on_is_accepted_where_the_solver_needs_the_listing(
    tmp_path: Path, hidden_log_task, log_writer
):
    world.register(f"discovery-{tmp_path.name}")
    name = f"discovery-solver-{tmp_path.name}"
    scripted.register(name, log_writer, token=name)
    config = world.config()
    config.harness, config.tasks = DEFAULT, discovery_suite(tmp_path / "tasks", hidden_log_task)
    config.models.solver.model = f"scripted/{name}"
    config.search = config.search.model_copy(update={"moves": ["knob"]})
    store = session.start(config, tmp_path / "runs")
    summary = session.run(store)

    knobs = store.records(Edit, order_by="id", move="knob")
    assert "agent.discovery False -> True, for every task" in [edit.rationale for edit in knobs], [
        edit.model_dump(include={"rationale", "status", "gate"}) for edit in knobs
    ]
    [accepted] = [edit for edit in knobs if edit.status is EditStatus.ACCEPTED]
    assert accepted.rationale.startswith("agent.discovery") and accepted.gate.fixed > 0 and accepted.gate.broken == 0
    assert re.search(r"discovery = true", (store.folder / "harnesses" / accepted.child_id / "harness.toml").read_text())
    assert summary.accepted_by_move == {"knob": 1} and (summary.start_dev, summary.best_dev) == (0.0, 1.0)
