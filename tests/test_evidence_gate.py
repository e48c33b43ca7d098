"""`evolve` gated by the evidence engine (`search.gate = "evidence"`), end to end on real Docker with every role
scripted, in a wider copy of the scripted world: six train tasks the seeded defect fails and six it passes, so a gate
has tasks to choose among. The fix of the system prompt helps every task the defect fails; an inert edit changes
nothing the scripted solver does."""

import json
import shutil
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.evolve import session
from harness_evo.llm import scripted
from harness_evo.store import Edit, Rollout, RunStore
from harness_evo.views.evolution import dev_lines

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("user_cache")]

INERT = world.DEFECT + " Keep each reply short."
LATER = "(an edit of the observation template)"


def wide_world(folder: Path) -> Path:
    """The world's tasks, with train widened to six tasks naming a relative file (failed under the defect) and six an
    absolute one (passed); dev as the world's."""
    train = []
    for kind, n in (("rel", 6), ("abs", 6)):
        for i in range(n):
            name = f"{kind}{i}"
            path = f"/app/{name}.txt" if kind == "abs" else f"{name}.txt"
            task = folder / name
            shutil.copytree(world.TASKS / "color", task)
            word = f"word-{name}-{i * 7 + 3}"
            (task / "instruction.md").write_text(f"Write the word {word} into {path}.\n")
            (task / "solution" / "solve.sh").write_text(f"#!/bin/bash\necho {word} > {path}\n")
            (task / "tests" / "test.sh").write_text(
                f'#!/bin/bash\nif [ "$(cat /app/{name}.txt 2>/dev/null)" = "{word}" ]; then echo 1 > '
                "/logs/verifier/reward.txt; else echo 0 > /logs/verifier/reward.txt; fi\n"
            )
            train.append(name)
    for name in ("metal", "tree"):
        shutil.copytree(world.TASKS / name, folder / name)
    lists = ", ".join(f'"{name}"' for name in train)
    (folder / "suite.toml").write_text(
        f'[suite]\nname = "wide-world"\n[splits]\ntrain = [{lists}]\ndev = ["metal", "tree"]\ntest = []\n'
    )
    return folder


def proposing(token: str, *news: str) -> None:
    """The scripted proposer answers every request with one edit of the system prompt per text in `news` (or, for
    `LATER`, of the observation template, which the first prompt does not show)."""
    edits = [
        {
            "rationale": "files must land where the task expects them",
            "prediction": "tasks naming a relative file pass",
            "ops": [
                {"op": "replace", "path": "prompts/observation.md.j2", "old": "Exit code:", "new": "Exit status:"}
                if new == LATER
                else {"op": "replace", "path": "prompts/system.md.j2", "old": world.DEFECT, "new": new}
            ],
        }
        for new in news
    ]
    scripted.register("world-proposer", lambda messages: json.dumps({"edits": edits}), token=f"{token}-proposer")


def evolve(
    tmp_path: Path, gate: str, token: str, *news: str, screen: str = "off", rollouts: int = 400, **evidence
) -> RunStore:
    """One iteration of `evolve` in the wide world, gated by `gate` after the screen `screen`, the proposer offering
    `news`, `rollouts` the run's budget."""
    world.register(token)
    proposing(token, *news)
    config = world.config(gate=gate, max_rollouts=rollouts)
    config = config.model_copy(update={"tasks": wide_world(tmp_path / f"tasks-{gate}")})
    config.evidence = config.evidence.model_copy(update=evidence)
    config.search.screen = screen
    config.curriculum.minibatch = 12  # every train task: the pattern and the regression sample fill the in-turn gate
    store = session.start(config, tmp_path / f"runs-{gate}")
    session.run(store)
    return store


def gated(store: RunStore) -> list[Edit]:
    return [edit for edit in store.records(Edit, order_by="id") if edit.gate is not None]


def test_the_evidence_gate_accepts_a_true_fix_in_fewer_rollouts_than_the_in_turn_gate(tmp_path: Path):
    turn = evolve(tmp_path, "in-turn", "evgate-fix", world.FIX)
    evidence = evolve(tmp_path, "evidence", "evgate-fix", world.FIX)

    [by_turn], [by_evidence] = gated(turn), gated(evidence)
    assert by_turn.gate.accepted and by_evidence.gate.accepted
    found = by_evidence.gate.evidence
    assert found.stop == "accepted" and found.e_value >= found.threshold == 10
    assert by_evidence.gate.broken == 0 and by_evidence.gate.alpha == pytest.approx(0.1)
    assert found.choices and all(choice.trial >= 1 for choice in found.choices), "trial 0 chose the pattern: spent"
    assert all("a global edit reaches every task" in choice.reason for choice in found.choices)
    summaries = turn.info.summary, evidence.info.summary
    assert all(summary.best_node != summary.root for summary in summaries)
    assert evidence.info.summary.rollouts < turn.info.summary.rollouts, "the same run but its gate, paid less"
    assert evidence.info.summary.rollouts_per_decision < turn.info.summary.rollouts_per_decision
    assert evidence.info.summary.decisions == 1 and evidence.info.summary.expected_false_accepts == pytest.approx(0.1)


def test_an_inert_edit_is_rejected_for_futility_long_before_the_budget(tmp_path: Path):
    store = evolve(tmp_path, "evidence", "evgate-inert", INERT)

    [edit] = gated(store)
    assert not edit.gate.accepted and edit.gate.fixed == edit.gate.broken == 0 and edit.gate.ties > 0
    assert edit.gate.evidence.stop == "futile" and "futile" in edit.gate.reason
    assert edit.gate.rollouts < store.info.summary.rollouts and edit.gate.rollouts < 200 / 4
    assert store.info.summary.best_node == store.info.summary.root


def test_a_race_of_two_candidates_accepts_the_fix_and_drops_the_inert_one_with_its_evidence(tmp_path: Path, cli):
    store = evolve(tmp_path, "evidence", "evgate-race", INERT, world.FIX)

    inert, fix = gated(store)
    assert fix.gate.accepted and not inert.gate.accepted
    assert fix.gate.alpha == inert.gate.alpha == pytest.approx(0.05), "alpha split over the race"
    assert fix.gate.evidence.raced == inert.gate.evidence.raced == 2
    assert inert.gate.evidence.stop in ("outraced", "futile") and inert.gate.evidence.choices
    assert store.info.summary.best_node == fix.child_id
    assert store.info.summary.decisions == 1
    assert store.info.summary.expected_false_accepts == pytest.approx(0.1), "a race costs one alpha in all"
    shown = cli("edits", store.id, inert.id, "--runs", store.folder.parent)
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())
    assert f"stopped {inert.gate.evidence.stop} after" in said and "raced with 1 other" in said
    assert "look 1: " in said and "a global edit reaches every task" in said, "each key with why its task was chosen"


FIRST_LOOK = 10 + 12 + 8 + 2 * 8
"""Rollouts of the race's run up to its first look: the root on dev (2 tasks x 5 trials), the minibatch (12), the
parent's lacking keys and both candidates' (a batch of 8 each)."""


def test_a_race_the_run_s_budget_stops_keeps_its_evidence_in_the_ledger_and_resume_decides_it(tmp_path: Path, cli):
    store = evolve(tmp_path, "evidence", "evgate-stopped", INERT, world.FIX, rollouts=FIRST_LOOK)

    inert, fix = gated(store)
    assert inert.status == "rejected_empirical" and inert.gate.evidence.stop == "futile", "decided before the stop"
    assert fix.interrupted and fix.status == "proposed" and not fix.gate.accepted  # undecided, with its first look
    assert fix.gate.evidence.stop == "interrupted" and fix.gate.evidence.looks == 1 and fix.gate.evidence.choices
    assert fix.gate.pairs == fix.gate.rollouts == 8 and fix.gate.fixed > 0
    assert fix.gate.reason.startswith("undecided when the run stopped (rollout budget reached")
    summary = store.info.summary
    assert summary.interrupted == 1 and summary.decisions == 0
    assert summary.expected_false_accepts == pytest.approx(0.05), "the decided candidate's share of alpha"
    shown = cli("edits", store.id, fix.id, "--runs", store.folder.parent)
    said = " ".join(shown.output.split())
    assert shown.exit_code == 0 and "status interrupted" in said, shown.output
    assert "the run stopped during its gate, after 1 look" in said and f"+{fix.gate.fixed} −" in said
    shown = cli("show", store.id, "--runs", store.folder.parent, env={"COLUMNS": "200"})
    assert "1 rejected by the gate, 0 invalid, 1 in a gate the stop interrupted" in shown.output, shown.output
    listed = cli("edits", store.id, "--runs", store.folder.parent, env={"COLUMNS": "200"})
    assert "interrupted" in listed.output and "undecided when the run stopped" in listed.output, listed.output

    resumed = cli("resume", store.id, "--runs", store.folder.parent, "--budget-rollouts", "400", "--quiet")

    assert resumed.exit_code == 0, resumed.output
    store = RunStore(store.folder)
    inert, fix = gated(store)
    assert fix.status == "accepted" and inert.status == "rejected_empirical"
    assert fix.gate.evidence.looks > 1 and not (fix.interrupted or inert.interrupted)
    assert store.info.summary.interrupted == 0 and store.info.summary.decisions == 1


@pytest.mark.parametrize(
    ("section", "setting", "says"),
    [
        ("evidence", "alpha = 1.5", "evidence.alpha"),
        ("evidence", "max_rollouts = 3", "evidence.max_rollouts = 3 cannot reach alpha 0.1"),
        ("acceptance", 'rule = "none"', 'acceptance.rule = "none" is a rule of the in-turn gate'),
        ("search", 'screen = "maybe"', "search.screen"),
        ("search", "screen_samples = 0", "search.screen_samples"),
    ],
)
def test_an_evidence_gate_that_cannot_reach_its_alpha_is_one_line_at_evolve_start(
    tmp_path: Path, one_line_error, section: str, setting: str, says: str
):
    config_file = tmp_path / "evolve.toml"
    world.config(gate="evidence").save(config_file)
    text = config_file.read_text()
    at = text.index(f"[{section}]")
    key = setting.split(" = ")[0]
    line = next(line for line in text[at:].splitlines() if line.startswith(f"{key} = "))
    config_file.write_text(text[:at] + text[at:].replace(line, setting, 1))

    error = one_line_error("evolve", "--config", config_file, "--runs", tmp_path / "runs")

    assert says in error
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir()), "no run folder for a bad config"


def test_the_screen_drops_an_inert_edit_before_any_rollout_of_it(tmp_path: Path, cli):
    store = evolve(tmp_path, "evidence", "screen-inert", INERT, screen="on")

    [edit] = store.records(Edit)
    assert edit.status == "screened" and edit.gate is None
    seen = edit.screen
    assert seen.verdict == "inert" and seen.dropped and seen.samples == 4 * 2 and seen.changed == 0
    assert all(task.startswith("rel") for task in seen.tasks), "the parent's failed train tasks"
    assert not store.records(Rollout, harness_hash=edit.child_id), "no rollout of the dropped child"
    summary = store.info.summary
    assert summary.screen.dropped == summary.screen.inert == 1 and summary.gates == 0
    assert summary.best_node == summary.root
    shown = cli("edits", store.id, edit.id, "--runs", store.folder.parent)
    said = " ".join(shown.output.split())
    assert shown.exit_code == 0 and "screen: inert: the screen sampled 8 first actions" in said, said
    shown = cli("show", store.id, "--runs", store.folder.parent)
    assert "1 dropped by the screen" in " ".join(shown.output.split()), shown.output


def test_the_screen_passes_a_true_fix_on_and_the_race_is_left_to_it(tmp_path: Path):
    store = evolve(tmp_path, "evidence", "screen-race", INERT, world.FIX, screen="on")

    inert, fix = store.records(Edit, order_by="id")
    assert inert.status == "screened" and fix.screen.verdict == "changed" and fix.screen.changed > 0
    assert fix.gate.accepted and fix.gate.evidence.raced == 1, "the screened one never entered the race"
    assert fix.gate.alpha == pytest.approx(0.1)
    assert store.info.summary.best_node == fix.child_id


def test_an_audit_gates_the_inert_edit_and_counts_what_the_gate_made_of_it(tmp_path: Path):
    store = evolve(tmp_path, "evidence", "screen-audit", INERT, screen="audit")

    [edit] = store.records(Edit)
    assert edit.screen.verdict == "inert" and not edit.screen.dropped
    assert edit.gate is not None and not edit.gate.accepted
    seen = store.info.summary.screen
    assert (seen.inert, seen.dropped, seen.inert_gated, seen.inert_accepted) == (1, 0, 1, 0)


def test_an_edit_the_first_prompt_does_not_show_goes_on_to_the_gate(tmp_path: Path):
    store = evolve(tmp_path, "evidence", "screen-later", LATER, screen="on")

    [edit] = store.records(Edit)
    assert edit.screen.verdict == "unseen" and edit.screen.samples == 0 and edit.gate is not None
    assert "acts later in an episode" in edit.screen.sentence()
    assert store.info.summary.screen.unseen == 1


SHORT = "Keep each reply short."
MUSING = "Let me think about this step by step before I act. " * 30
"""What the wordy solver says before each command, unless its system prompt asks for short replies."""


def wordy(messages: list[dict]) -> str:
    """The world's solver, musing at length before each command unless told to keep replies short: the same commands,
    so the same passes, at a different cost."""
    reply = world.solver(messages)
    return reply if SHORT in messages[0]["content"] else MUSING + "\n\n" + reply


def test_with_cost_alpha_an_edit_that_ties_on_passes_and_costs_less_is_accepted_as_cheaper_and_named_best(
    tmp_path: Path, cli
):
    def run(token: str, **evidence) -> RunStore:
        world.register(token)
        scripted.register("world-solver", wordy, token=f"{token}-wordy")
        proposing(token, INERT)
        config = world.config(gate="evidence").model_copy(update={"tasks": wide_world(tmp_path / f"tasks-{token}")})
        config.evidence = config.evidence.model_copy(update=evidence)
        config.curriculum.minibatch = 12
        store = session.start(config, tmp_path / f"runs-{token}")
        session.run(store)
        return store

    # every pair ties: ruling out a 5 pp loss at harm_alpha 0.1 takes about 76 of them, so 12 tasks x 8 trials
    store = run("cost-cheaper", cost_alpha=0.1, max_trials=8)
    [edit] = gated(store)
    assert edit.gate.accepted and edit.gate.evidence.stop == "cheaper", edit.gate.reason
    assert edit.gate.fixed == edit.gate.broken == 0 and edit.gate.evidence.dearer == 0
    assert edit.gate.evidence.cheaper == edit.gate.pairs and edit.gate.evidence.cost_e_value >= 10
    assert "cheaper at no plausible loss of passes" in edit.gate.reason
    summary = store.info.summary
    assert edit.gate.alpha == pytest.approx(0.2) and summary.expected_false_accepts == pytest.approx(0.2), (
        "an inert edit passes either test: alpha + cost_alpha"
    )
    assert summary.best_node == edit.child_id and summary.dev_comparison.cheaper
    assert summary.dev_comparison.tokens_b < summary.dev_comparison.tokens_a and summary.dev_comparison.diff == 0
    said = " ".join(dev_lines(summary))
    assert f"on dev: node {edit.child_id[:12]} is cheaper than the starting harness at no loss of passes" in said
    shown = cli("edits", store.id, edit.id, "--runs", store.folder.parent)
    assert shown.exit_code == 0 and "stopped cheaper after" in " ".join(shown.output.split()), shown.output
    shown = cli("show", store.id, "--runs", store.folder.parent)
    assert "on dev: node" in shown.output and "is cheaper than the starting harness" in " ".join(shown.output.split())

    passes_alone = run("cost-off", max_trials=8)
    [edit] = gated(passes_alone)
    assert not edit.gate.accepted and edit.gate.evidence.stop == "futile"
    assert passes_alone.info.summary.best_node == passes_alone.info.summary.root
