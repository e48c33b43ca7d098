"""`harness-evo evolve` end to end on real Docker, every role scripted: a seeded harness defect is found, fixed,
measured and kept; a leaky edit is refused (a run killed with SIGKILL: test_crash_resume.py)."""

import json
import shutil
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.evolve import pace, session
from harness_evo.llm import scripted
from harness_evo.store import Edit, Rollout, RunStore

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("user_cache")]


def passed(store: RunStore, harness_hash: str, task_id: str) -> list[bool]:
    return [
        bool(row["passed"])
        for row in store.rows("rollouts", order_by="trial", harness_hash=harness_hash, task_id=task_id)
    ]


def test_evolve_fixes_a_seeded_defect_and_refuses_an_edit_that_quotes_a_training_answer(tmp_path: Path, cli, only_run):
    world.register()
    config_file = tmp_path / "evolve.toml"
    world.config().save(config_file)

    result = cli("evolve", "--config", config_file, "--runs", tmp_path / "runs")  # piped: plain lines, no live view

    assert result.exit_code == 0, result.output
    store = only_run(tmp_path / "runs")
    root, best = store.info.root, store.info.best_node
    progress = " ".join(result.output.split())
    assert (
        "rejected statically" in progress
        and f"edit i0-r1-0 against {store.rows('edits')[0]['pattern_id']}: accepted" in progress
    )
    assert best != root and store.info.status == "finished"
    [pattern] = [row for row in store.rows("patterns") if row["status"] == "promoted"]
    assert pattern["task_ids"] == ["color", "fruit"] and pattern["category"] == "environment-assumption"

    leaky, fix = store.rows("edits", order_by="revision")
    assert leaky["status"] == "rejected_static" and leaky["pattern_id"] == pattern["id"]
    assert 'quotes the tests of training task fruit (its expected output): "crunchy-apple-42"' in leaky["reasons"]
    assert not store.rows("rollouts", harness_hash=leaky["child_id"]), "no rollout is paid for a refused edit"
    assert fix["status"] == "accepted" and fix["revision"] == 1 and fix["child_id"] == best
    assert (fix["gate"]["fixed"], fix["gate"]["broken"]) == (6, 0)

    for task in ("fruit", "color"):
        assert passed(store, root, task) == [False] * 4, "trial 0 found the pattern, trials 1-3 faced the child"
        assert passed(store, best, task) == [True] * 3
        gated = store.rows("rollouts", harness_hash=best, task_id=task)
        assert sorted(row["trial"] for row in gated) == [1, 2, 3]
    nodes = {row["id"]: row for row in store.rows("nodes")}
    assert nodes[best]["parent_id"] == root and nodes[best]["edit_id"] == fix["id"]
    assert (nodes[root]["dev_score"], nodes[best]["dev_score"]) == (0.5, 1.0)
    assert world.FIX in (store.folder / "harnesses" / best / "prompts" / "system.md.j2").read_text()

    summary = store.info.summary
    assert (
        summary.fates == {"rejected_static": 1, "accepted": 1} and summary.start_dev == 0.5 and summary.best_dev == 1.0
    )
    assert (summary.start_dev_n, summary.best_dev_n) == (2 * world.DEV_TRIALS, 2 * world.DEV_TRIALS)
    comparison = summary.dev_comparison
    assert comparison.shown_gain and (comparison.b_better, comparison.a_better) == (world.DEV_TRIALS, 0)
    assert "on dev: node " in " ".join(result.output.split()) and "has not shown a gain" not in result.output
    assert "edit i0-r0-0 against P1: rejected statically: quotes the tests of training task fruit" in result.output
    assert f"best harness: {store.folder}/harnesses/{best}" in result.output
    assert f"harness-evo export {store.id}" in result.output

    fork = session.fork(store, "best", tmp_path / "runs", world.config(max_iterations=0))
    assert session.run(fork).start_dev == 1.0
    assert fork.info.root == best and fork.info.forked_from.model_dump() == {"run": store.id, "node": best}
    copied = store.rows("rollouts", harness_hash=best)
    assert len(list(fork.events(["rollout"]))) == len(copied), "the node's rollouts came along and none was paid again"


def test_a_run_whose_accepted_edit_wins_too_few_dev_pairs_keeps_the_root_as_best_and_says_it_has_not_shown_a_gain(
    tmp_path: Path, cli, only_run
):
    world.register()
    config_file = tmp_path / "evolve.toml"
    world.config(dev_trials=1).save(config_file)

    result = cli("evolve", "--config", config_file, "--runs", tmp_path / "runs", "--quiet")

    assert result.exit_code == 0, result.output
    store = only_run(tmp_path / "runs")
    [fix] = store.rows("edits", status="accepted")
    summary = store.info.summary
    assert store.info.best_node == summary.best_node == store.info.root, "one dev pair won is no evidence"
    assert (summary.start_dev, summary.start_dev_n) == (0.5, 2)
    comparison = summary.dev_comparison
    assert comparison.node == fix["child_id"] and not comparison.shown_gain
    assert (comparison.n, comparison.b_better, comparison.a_better, comparison.p_value) == (2, 1, 0, 1.0)
    assert summary.gates == 1 and summary.expected_false_accepts == 0.1
    output = " ".join(result.output.replace("│", " ").split())
    assert "the run has not shown a gain over the starting harness on dev (closest: no measurable difference" in output
    assert (
        "gated 1 edit and accepted 1; edits that change nothing would get at most 0.1 accepts from noise alone"
        in output
    )
    assert "on dev:" not in output


def test_a_run_that_finished_on_its_budget_goes_on_when_resumed_with_a_bigger_one(tmp_path: Path, cli):
    world.register()
    store = session.start(world.config(max_iterations=0), tmp_path / "runs")
    assert session.run(store).iterations == 0 and not store.rows("edits")

    result = cli("resume", store.id, "--iterations", "1", "--patience", "5", "--runs", tmp_path / "runs", "--quiet")

    assert result.exit_code == 0, result.output
    store = RunStore(store.folder)
    assert store.info.summary.iterations == 1 and store.info.best_node != store.info.root
    assert [row["status"] for row in store.rows("edits", order_by="revision")] == ["rejected_static", "accepted"]
    assert pace.pace(world.config()).rollouts == len(store.rows("rollouts")), (
        "each session's pace is kept for the next estimate"
    )
    budget = session.load_run_config(store).budget
    assert (budget.max_iterations, budget.patience) == (1, 5), "the new budgets are the run's from now on"
    assert [event["data"]["elapsed_s"] > 0 for event in store.events(["clock"])] == [True, True], (
        "each session left its time"
    )


def test_an_iteration_redone_after_a_crash_makes_the_move_it_first_made(tmp_path: Path):
    world.register()
    config = world.config()
    config.search.moves = ["proposer", "knob"]
    store = session.start(config, tmp_path / "runs")
    # what a kill in iteration 0's gate leaves: the proposer's edit in the ledger, the iteration never checkpointed
    store.put(Edit(id="i0-r0-0", iteration=0, parent_id="interrupted", pattern_id="P1", move="proposer"))

    session.run(store)

    edits = store.records(Edit, order_by="id")
    assert [(edit.move, edit.status) for edit in edits] == [
        ("proposer", "rejected_static"),
        ("proposer", "accepted"),
    ], "the proposer again (the bandit's first untried kind), not the knob it would take had it counted its own edit"


def test_a_run_whose_budget_ends_in_its_first_iteration_still_gauges_the_root_s_train_rollouts(tmp_path: Path):
    world.register()
    store = session.start(world.config(max_rollouts=19), tmp_path / "runs")

    summary = session.run(store)

    assert summary.iterations == 0 and store.records(Rollout, split="train"), (
        "stopped in iteration 0, after its minibatch"
    )
    start = summary.conditioning.start
    assert start is not None and start.rollouts == len(store.records(Rollout, split="train", harness_hash=summary.root))


def test_an_edit_whose_harness_fails_at_run_time_is_rejected_and_the_run_goes_on(tmp_path: Path, only_run):
    world.register()

    def proposer(messages: list[dict]) -> str:
        """First an edit that loads and renders but cannot run (an action format the agent loop refuses), then the
        fix."""
        broken = {
            "rationale": "native tool calls",
            "prediction": "fewer format errors",
            "ops": [
                {
                    "op": "replace",
                    "path": "harness.toml",
                    "old": 'action_format = "bash-block"',
                    "new": 'action_format = "tool-calls"',
                }
            ],
        }
        fix = {
            "rationale": "files must land where the task expects them",
            "prediction": "tasks naming a relative file pass",
            "ops": [{"op": "replace", "path": "prompts/system.md.j2", "old": world.DEFECT, "new": world.FIX}],
        }
        return json.dumps({"edits": [broken, fix]})

    scripted.register("world-proposer", proposer, token="runtime-failure-proposer")
    config = world.config()

    summary = session.run(session.start(config, tmp_path / "runs"))

    store = only_run(tmp_path / "runs")
    broken, fix = store.rows("edits", order_by="id")
    assert broken["status"] == "rejected_empirical" and "fails at run time" in broken["gate"]["reason"]
    assert "action_format 'tool-calls' is not supported" in broken["gate"]["reason"]
    assert fix["status"] == "accepted" and summary.best_node == fix["child_id"] != store.info.root


def test_a_gate_left_undecided_runs_more_trials_of_both_sides_and_decides_on_all_of_them(tmp_path: Path, only_run):
    world.register()
    config = world.config()
    config.acceptance = config.acceptance.model_copy(update={"trials": 2, "extra_trials": 2})

    session.run(session.start(config, tmp_path / "runs"))

    store = only_run(tmp_path / "runs")
    fix = next(row for row in store.rows("edits") if row["status"] == "accepted")
    assert (fix["gate"]["fixed"], fix["gate"]["broken"]) == (8, 0), (
        "4 fixed on 2 trials is short of alpha 0.05; 8 on 4 is not"
    )
    for task in ("fruit", "color"):
        assert passed(store, fix["child_id"], task) == [True] * 4
        assert len(passed(store, store.info.root, task)) == 5, "trial 0 chose the task, trials 1-4 faced the child"


def test_a_pattern_task_that_never_passed_is_gated_only_when_the_pattern_has_no_other(
    tmp_path: Path, only_run, run_putword_world
):
    world.register()
    config = world.config()
    config.acceptance = config.acceptance.model_copy(update={"unsolved_after": 1})

    session.run(session.start(config, tmp_path / "runs"))

    store = only_run(tmp_path / "runs")
    fix = next(row for row in store.rows("edits") if row["status"] == "accepted")
    gated = [task for task in ("fruit", "color") if passed(store, fix["child_id"], task)]
    assert len(gated) == 1, "both failed their only rollout, so the gate kept just one of them"
    assert passed(store, fix["child_id"], gated[0]) == [True] * 6, "3 fixed pairs are short of alpha 0.05, 6 are not"
    assert (fix["gate"]["fixed"], fix["gate"]["broken"]) == (6, 0)


def test_a_missing_program_becomes_a_tool_gated_on_every_task_that_missed_it(tmp_path: Path, run_putword_world):
    """The solver reaches for `putword`, which is not installed, on the tasks naming a relative file; as two tasks
    missed it, a tool of that name is proposed without asking the proposer model. The toolsmith's first script crashes
    on the agent's own call in that task's sandbox, so it gets the traceback and writes another. Both tasks failed
    their only rollout, yet the gate measures the tool on both: it is for them."""
    world.register()
    prompts = []

    def toolsmith(messages: list[dict]) -> str:
        prompts.append(messages[-1]["content"])
        arguments = "sys.argv[1:3]" if "tried on these calls and failed" in messages[-1]["content"] else "sys.argv[2:4]"
        return (
            f'```python\n"""putword WORD FILE: write WORD into FILE."""\nimport sys\nword, name = {arguments}\n'
            'open(name, "w").write(word + "\\n")\n```'
        )

    folder, store, summary = run_putword_world(tmp_path, toolsmith, "missing-program", world.HARNESS)
    [pattern] = [row for row in store.rows("patterns") if row["status"] == "promoted"]
    assert pattern["category"] == "wrong-tool-missing-binary" and pattern["task_ids"] == ["color", "fruit"]
    assert "putword deep-teal-7 color.txt" in prompts[0], "the toolsmith is told how the agent called it"
    assert "ValueError: not enough values to unpack" in prompts[1], (
        "its first script crashed on that call, in a sandbox"
    )
    assert len(prompts) == 2, "the second script ran the call: no third attempt, and no proposer call"
    [edit] = store.rows("edits")
    assert edit["rationale"].startswith("2 failed tasks ran `putword`, which is not installed here")
    assert edit["status"] == "accepted" and summary.best_node == edit["child_id"], edit["reasons"] or edit["gate"]
    for task in ("fruit", "color"):
        assert passed(store, edit["child_id"], task) == [True] * 3, "both tasks the tool is for were gated"
    tool = (folder / "harnesses" / edit["child_id"] / "tools" / "putword" / "tool.toml").read_text()
    assert (
        'description = "putword WORD FILE: write WORD into FILE."' in tool
        and 'command = "python3 $TOOL_DIR/tool.py"' in tool
    )
    assert "sys.argv[1:3]" in (folder / "harnesses" / edit["child_id"] / "tools" / "putword" / "tool.py").read_text()


def test_a_tool_of_the_harness_that_crashes_on_the_agent_s_calls_is_rewritten_and_gated_on_the_tasks_it_broke(
    tmp_path: Path, run_putword_world
):
    """The starting harness supplies `putword`, but its script crashes on the solver's calls. The failures blame that
    tool, not the claims of success that followed; the toolsmith writes it anew from those calls, and the gate
    measures the rewrite on both tasks it broke."""
    world.register()
    harness = tmp_path / "harness"
    shutil.copytree(world.HARNESS, harness)
    (harness / "tools" / "putword").mkdir(parents=True)
    (harness / "tools" / "putword" / "tool.toml").write_text(
        'description = "putword WORD FILE: write WORD into FILE."\ncommand = "python3 $TOOL_DIR/tool.py"\n'
    )
    (harness / "tools" / "putword" / "tool.py").write_text(
        'import sys\nword, name = sys.argv[2:4]\nopen(name, "w").write(word + "\\n")\n'
    )

    def toolsmith(messages: list[dict]) -> str:
        return (
            '```python\n"""putword WORD FILE: write WORD into FILE."""\nimport sys\nword, name = sys.argv[1:3]\n'
            'open(name, "w").write(word + "\\n")\n```'
        )

    folder, store, summary = run_putword_world(tmp_path, toolsmith, "broken-tool", harness)
    [pattern] = [row for row in store.rows("patterns") if row["status"] == "promoted"]
    assert pattern["category"] == "broken-harness-tool" and pattern["task_ids"] == ["color", "fruit"]
    [edit] = store.rows("edits")
    assert edit["status"] == "accepted" and summary.best_node == edit["child_id"], edit["reasons"] or edit["gate"]
    for task in ("fruit", "color"):
        assert passed(store, edit["child_id"], task) == [True] * 3, "both tasks the broken tool failed were gated"
    assert "sys.argv[1:3]" in (folder / "harnesses" / edit["child_id"] / "tools" / "putword" / "tool.py").read_text()
