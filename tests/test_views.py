"""The terminal views show the facts of a run, read from its run.db; each also gives them as JSON."""

import io
import json
import time
from pathlib import Path

import pytest
from rich.console import Console
from scipy.stats import binomtest
from typer.testing import CliRunner

from harness_evo.agent.evaluate import EvalResult, TaskScore
from harness_evo.cli import app
from harness_evo.errors import UserError
from harness_evo.evolve.state import NodeStats
from harness_evo.harness import Edit, Harness, Write
from harness_evo.store import Edit as LedgerEdit
from harness_evo.store import (
    Failure,
    GateResult,
    Iteration,
    LlmCall,
    Node,
    NodeStatus,
    Pattern,
    PatternMember,
    PatternStatus,
    Rollout,
    RunStore,
)
from harness_evo.views import diff, edits, rollout, runs, show, tree, watch
from harness_evo.views.evaluation import eval_table

BASH_AGENT = Path(__file__).parents[1] / "harnesses" / "bash-agent"
T0 = 1_780_000_000.0
CHECK_SKILL = (
    "---\nname: check-before-done\ndescription: Look at what you made before you say TASK_DONE.\n---\n"
    "Run `cat FILE` first.\n"
)


def text_of(renderable, width: int = 220) -> str:
    console = Console(record=True, width=width, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def evolve_world(runs_dir: Path) -> dict:
    """A finished evolution run: root R -> A (iteration 0, against P1) -> B (iteration 2, against P2),
    with rejected edits."""
    store = RunStore.create(runs_dir, "evolve", run_id="evolve-1")
    root = Harness.load(BASH_AGENT)
    system = root.components["prompts/system.md.j2"]
    a = root.apply(
        Edit(ops=[Write(path="prompts/system.md.j2", text=system + "\nCheck your work before you say TASK_DONE.\n")])
    )
    b = a.apply(Edit(ops=[Write(path="skills/check-before-done/SKILL.md", text=CHECK_SKILL)]))
    for harness in (root, a, b):
        harness.save(store.folder / "harnesses" / harness.hash)
    store.update_info(
        started=T0, harness="harnesses/bash-agent", root=root.hash, tasks="tasks/core", config={"seed": 0}
    )
    node = Node(id="", expansions=1, tokens_per_rollout=900.0, created=T0)
    store.put(
        node.model_copy(
            update=dict(
                id=root.hash, iteration=-1, status=NodeStatus.ROOT, train_score=0.25, train_n=4, dev_score=0.5, dev_n=2
            )
        )
    )
    store.put(
        node.model_copy(
            update=dict(
                id=a.hash,
                parent_id=root.hash,
                edit_id="i0-r0-0",
                iteration=0,
                status=NodeStatus.ACCEPTED,
                train_score=0.5,
                train_n=4,
                dev_score=0.5,
                dev_n=2,
            )
        )
    )
    store.put(
        node.model_copy(
            update=dict(
                id=b.hash,
                parent_id=a.hash,
                edit_id="i2-r0-0",
                iteration=2,
                status=NodeStatus.ACCEPTED,
                train_score=0.75,
                train_n=4,
                dev_score=1.0,
                dev_n=2,
            )
        )
    )
    store.put(
        LedgerEdit(
            id="i0-r0-0",
            iteration=0,
            parent_id=root.hash,
            child_id=a.hash,
            pattern_id="P1",
            status="accepted",
            ts=T0,
            ops=[
                {
                    "op": "replace",
                    "path": "prompts/system.md.j2",
                    "old": "Run one command",
                    "new": "Check your work, then run one command",
                }
            ],
            rationale="Make the agent check its output before finishing.",
            prediction="csv tasks stop failing at the last step",
            gate=GateResult(
                accepted=True,
                fixed=3,
                broken=0,
                ties=1,
                p_value=0.125,
                reason="3 fixed and 0 broken",
                pairs=4,
                tasks=["t1", "t2"],
            ),
        )
    )
    store.put(
        LedgerEdit(
            id="i0-r0-1",
            iteration=0,
            parent_id=root.hash,
            pattern_id="P1",
            status="rejected_static",
            ts=T0,
            ops=[{"op": "write", "path": "prompts/instance.md.j2", "text": "Sum the csv column."}],
            rationale="Tell it the answer.",
            reasons=["the edit names a training task's details (csv column)"],
        )
    )
    store.put(
        LedgerEdit(
            id="i1-r0-0",
            iteration=1,
            parent_id=a.hash,
            child_id="f" * 64,
            pattern_id="P1",
            status="rejected_empirical",
            ts=T0,
            ops=[{"op": "delete", "path": "tools/view/view.py"}],
            rationale="Fewer tools, less confusion.",
            gate=GateResult(fixed=1, broken=2, ties=1, p_value=0.875, reason="more broken than fixed", pairs=4),
        )
    )
    store.put(
        LedgerEdit(
            id="i2-r0-0",
            iteration=2,
            parent_id=a.hash,
            child_id=b.hash,
            pattern_id="P2",
            status="accepted",
            ts=T0,
            ops=[{"op": "write", "path": "skills/check-before-done/SKILL.md", "text": CHECK_SKILL}],
            rationale="A skill for checking results.",
            gate=GateResult(
                accepted=True, fixed=2, broken=0, ties=2, p_value=0.25, reason="2 fixed and 0 broken", pairs=4
            ),
        )
    )
    store.put(
        LedgerEdit(
            id="i2-r0-1",
            iteration=2,
            parent_id=a.hash,
            pattern_id="P2",
            status="invalid",
            ts=T0,
            rationale="",
            reasons=["replace: the old text occurs 0 times in prompts/system.md.j2"],
        )
    )
    for i, (arm, outcome) in enumerate(
        [("P1", "edit i0-r0-0 accepted"), ("P1", "edit i1-r0-0 rejected by the gate"), ("P2", "edit i2-r0-0 accepted")]
    ):
        store.put(
            Iteration(
                id=i,
                arm=arm,
                node_id=root.hash,
                tasks=["t1", "t2"],
                started=T0 + i,
                finished=T0 + i + 1,
                outcome=outcome,
            )
        )
    trajectory = {
        "task_id": "csv-sum",
        "trial": 0,
        "harness_hash": root.hash,
        "model": "scripted/solver",
        "exit_reason": "done",
        "reward": 0.0,
        "verifier_output": "FAIL: total.txt holds 41, expected 42",
        "steps": [
            {
                "index": 0,
                "reply": "```bash\nls\n```",
                "action": "ls",
                "output": "data.csv\n",
                "exit_code": 0,
                "duration_s": 0.2,
                "model_s": 1.5,
            },
            {"index": 1, "reply": "I will sum it now.", "format_error": "no bash block found", "model_s": 0.7},
            {
                "index": 2,
                "reply": "```bash\nawk ...\n```",
                "action": "awk -F, '{s+=$2} END {print s}' data.csv > total.txt && echo TASK_DONE",
                "output": "TASK_DONE\n",
                "exit_code": 0,
                "duration_s": 0.1,
                "model_s": 1.1,
                "cached": True,
                "finished": True,
            },
        ],
    }
    store.write_json("rollouts/abc123def4560001.json", trajectory)
    rollout = Rollout(
        id="",
        task_id="",
        split="train",
        trial=0,
        node_id=root.hash,
        harness_hash=root.hash,
        model="scripted/solver",
        tokens_in=500,
        tokens_out=100,
        duration_s=3.0,
        started=T0,
        finished=T0 + 3,
    )
    store.put(
        rollout.model_copy(
            update=dict(
                id="abc123def4560001",
                task_id="csv-sum",
                reward=0.0,
                exit_reason="done",
                steps=3,
                format_errors=1,
                trajectory="rollouts/abc123def4560001.json",
            )
        )
    )
    store.put(
        rollout.model_copy(
            update=dict(id="abc999000", task_id="log-count", reward=1.0, passed=True, exit_reason="done", steps=2)
        )
    )
    store.put(
        rollout.model_copy(
            update=dict(
                id="dev0001", task_id="git-tag", split="dev", reward=1.0, passed=True, exit_reason="done", steps=4
            )
        )
    )
    store.put(
        rollout.model_copy(
            update=dict(id="dev0002", task_id="git-log", split="dev", exit_reason="infra_error", error="container died")
        )
    )
    store.put(
        Failure(
            id="abc123def4560001",
            rollout_id="abc123def4560001",
            task_id="csv-sum",
            node_id=root.hash,
            split="train",
            source="analyzer",
            category="no-verification",
            pattern="declares done without looking at its output",
            root_cause="It wrote total.txt and said TASK_DONE without checking the sum.",
            critical_step=2,
            evidence="echo TASK_DONE",
            blame="harness",
            confidence=0.8,
        )
    )
    pattern = Pattern(id="", category="no-verification", first_seen=T0, last_seen=T0)
    store.put(
        pattern.model_copy(
            update=dict(
                id="P1",
                description="declares done without looking at its output",
                status=PatternStatus.RESOLVED,
                support=3,
                task_ids=["csv-sum", "t1", "t2"],
            )
        )
    )
    store.put(
        pattern.model_copy(
            update=dict(
                id="P2",
                description="does not know how to read a csv column",
                status=PatternStatus.PROMOTED,
                support=2,
                task_ids=["t1", "t2"],
            )
        )
    )
    store.put(
        pattern.model_copy(
            update=dict(
                id="P3",
                description="gives up after a missing command",
                status=PatternStatus.CANDIDATE,
                support=1,
                task_ids=["t3"],
            )
        )
    )
    store.put(
        PatternMember(
            failure_id="abc123def4560001",
            pattern_id="P1",
            rollout_id="abc123def4560001",
            task_id="csv-sum",
            node_id=root.hash,
        )
    )
    for k, (role, cost, cached) in enumerate(
        [("solver", 0.0, False)] * 4 + [("proposer", 0.06, False)] * 2 + [("critic", 0.03, True)]
    ):
        store.put(
            LlmCall(
                id=f"call{k}",
                role=role,
                model=f"scripted/{role}",
                tokens_in=100,
                tokens_out=20,
                latency_s=0.5,
                cost=cost,
                cache_hit=cached,
                ts=T0 + k,
            )
        )
    store.set_status("finished", finished=T0 + 600, best_node=b.hash)
    return {"store": store, "root": root, "a": a, "b": b}


def eval_world(runs_dir: Path) -> RunStore:
    store = RunStore.create(runs_dir, "eval", run_id="eval-1")
    harness = Harness.load(BASH_AGENT)
    store.update_info(
        started=T0 - 100, harness=str(BASH_AGENT), harness_hash=harness.hash, tasks="tasks/core", split="dev", trials=1
    )
    for k, passed in enumerate([True, True, False, False]):
        store.put(
            Rollout(
                id=f"e{k}",
                harness_hash=harness.hash,
                task_id=f"t{k}",
                split="dev",
                trial=0,
                model="scripted/solver",
                reward=float(passed),
                passed=passed,
                exit_reason="done" if passed else "step_limit",
                steps=5,
                tokens_in=10,
                tokens_out=5,
                cost=0.01,
            )
        )
    store.set_status("finished", finished=T0 - 40, best_node=harness.hash)
    return store


@pytest.fixture
def world(tmp_path: Path) -> dict:
    return evolve_world(tmp_path / "runs") | {"eval": eval_world(tmp_path / "runs"), "runs": tmp_path / "runs"}


def test_runs_lists_each_run_with_its_best_dev_score_and_spend(world: dict):
    facts = runs.collect(world["runs"])
    screen = text_of(runs.render(facts, world["runs"]))
    evolve_line = next(line for line in screen.splitlines() if "evolve-1" in line)
    assert "evolve" in evolve_line and "finished" in evolve_line and "10m00s" in evolve_line
    assert "100% [34%, 100%] (n=2)" in evolve_line and "$0.1500" in evolve_line
    eval_line = next(line for line in screen.splitlines() if "eval-1" in line)
    assert "50% [15%, 85%] (n=4)" in eval_line and "1m00s" in eval_line
    assert [run.id for run in facts] == ["evolve-1", "eval-1"]  # newest first


def test_show_and_runs_in_an_80_column_terminal_cut_no_figure_of_their_tables(world: dict):
    screen = text_of(show.render(show.collect(world["store"])), width=80)
    rows = [line for line in screen.splitlines() if "│" in line]
    assert rows and not [line for line in rows if "…" in line]
    listed = text_of(runs.render(runs.collect(world["runs"]), world["runs"]), width=80)
    assert "│" in listed and "…" not in listed


def test_show_compares_start_and_best_and_tells_spend_and_patterns(world: dict):
    facts = show.collect(world["store"])
    screen = text_of(show.render(facts))
    start = next(line for line in screen.splitlines() if line.lstrip("│ ").startswith("start "))
    best = next(line for line in screen.splitlines() if line.lstrip("│ ").startswith("best "))
    assert world["root"].short_hash in start and "25% [5%, 70%] (n=4)" in start and "50% [9%, 91%] (n=2)" in start
    assert world["b"].short_hash in best and "75% [30%, 95%] (n=4)" in best and "100% [34%, 100%] (n=2)" in best
    assert "path to the best: i0-r0-0 proposer [P1]" in screen and "i2-r0-0 proposer [P2]" in screen
    assert facts.progress.dev == [0.5, 0.5, 0.5, 1.0] and facts.progress.train == [0.25, 0.5, 0.5, 0.75]
    assert (
        "25% [5%, 70%] (n=4) → 75% [30%, 95%] (n=4)" in screen
        and "50% [9%, 91%] (n=2) → 100% [34%, 100%] (n=2)" in screen
    )
    assert "5 proposed, 2 accepted, 1 rejected by the critic, 1 rejected by the gate, 1 invalid" in screen
    assert "models: critic scripted/critic; proposer scripted/proposer; solver scripted/solver" in screen
    proposer = next(line for line in screen.splitlines() if line.startswith("│ proposer"))
    assert "2" in proposer and "$0.1200" in proposer
    assert "1 candidate, 1 promoted, 1 resolved" in screen and "declares done without looking at its output" in screen
    listed = [line.split()[0] for line in screen.splitlines() if line.startswith(" P")]
    assert listed == ["P2", "P1", "P3"]  # promoted, resolved, then candidates


def test_show_tells_how_the_agent_ran_each_tool_of_the_best_harness_against_the_start(world: dict):
    """A run's accepted `sqlite3` tool was run on text and log files in a sixth of its harness's rollouts, all failed:
    the tool table shows it as runs that pass less often than the others."""
    store, best = world["store"], world["b"].hash
    runs = [
        ("t1", "view data.csv", 1, 0.0),
        ("t2", "cd /app && view notes.txt  # look first", 0, 0.0),
        ("t1", "echo view is not run here", 0, 1.0),
        ("t3", "apt-get install view", 100, 1.0),
    ]
    for k, (task, action, exit_code, reward) in enumerate(runs):
        store.write_json(
            f"rollouts/b{k}.json",
            {"steps": [{"index": 0, "reply": "", "action": action, "output": "", "exit_code": exit_code}]},
        )
        store.put(
            Rollout(
                id=f"b{k}",
                node_id=best,
                harness_hash=best,
                task_id=task,
                split="train",
                trial=k,
                model="scripted/solver",
                reward=reward,
                passed=reward == 1.0,
                exit_reason="done",
                steps=1,
                trajectory=f"rollouts/b{k}.json",
            )
        )

    screen = text_of(show.render(show.collect(store)))
    rows = {
        line.split("│")[2].split()[0]: [cell.strip() for cell in line.split("│")[3:8]]
        for line in screen.splitlines()
        if line.startswith("│ view")
    }
    assert rows["best"] == ["2 of 4", "2", "0% [0%, 66%] (n=2)", "100% [34%, 100%] (n=2)", "1 of 2"]
    assert rows["start"] == ["0 of 2", "0", "-", "50% [9%, 91%] (n=2)", "-"]


def test_show_of_a_run_interrupted_after_a_resume_gives_no_reason_left_from_its_earlier_finish(world: dict):
    store = world["store"]
    store.set_status("finished", summary={"stop": "wall time reached (10 min)"})
    assert "stopped because: wall time reached (10 min)" in text_of(show.render(show.collect(store)))
    store.set_status("running")
    store.set_status("stopped", finished=T0 + 900)
    screen = text_of(show.render(show.collect(store)))
    assert "stopped" in screen and "stopped because" not in screen


def test_runs_leaves_out_what_the_ids_already_say_and_a_spend_of_nothing_so_it_fits_80_columns(tmp_path: Path):
    for kind in ("eval", "evolve"):
        RunStore.create(tmp_path, kind).close()
    console = Console(record=True, width=80, color_system=None, file=io.StringIO())
    console.print(runs.render(runs.collect(tmp_path), tmp_path))
    screen = console.export_text()
    header = next(line for line in screen.splitlines() if " id " in line)
    assert "status" in header and "duration" in header and "best dev" in header
    assert "kind" not in header and "started" not in header and "spend" not in header, header
    assert all(len(line) <= 80 for line in screen.splitlines())
    assert sum(run.startswith(("eval-", "evolve-")) for run in screen.split()) == 2, "every id whole"

    RunStore.create(tmp_path, "eval", run_id="baseline").close()
    header = next(
        line for line in text_of(runs.render(runs.collect(tmp_path), tmp_path)).splitlines() if " id " in line
    )
    assert "kind" in header and "started" in header, "a run named by hand says what it is and when it started"


def test_a_running_run_that_went_quiet_is_flagged(tmp_path: Path):
    store = RunStore.create(tmp_path, "evolve", run_id="killed")
    store.put(Rollout(id="r1", task_id="t1", trial=0, split="train", reward=0.0, exit_reason="step_limit"))
    store.db.execute("UPDATE events SET ts = ts - 3600")  # its process was killed an hour ago
    store.db.conn.commit()
    line = next(
        line for line in text_of(runs.render(runs.collect(tmp_path), tmp_path)).splitlines() if "killed" in line
    )
    assert "running? (quiet 1h00m)" in line
    assert "no event for 1h00m: its process may be gone; `harness-evo resume killed`" in text_of(
        next(watch.frames(store, interval=0))
    )


def test_show_of_an_eval_run_gives_the_pass_rate_of_its_split(world: dict):
    screen = text_of(show.render(show.collect(world["eval"])))
    assert f"evaluated harness {Harness.load(BASH_AGENT).short_hash}" in screen and "starting vs best" not in screen
    dev = next(line for line in screen.splitlines() if line.lstrip("│ ").startswith("dev"))
    assert "50%" in dev and "4" in dev
    assert "exit reasons: done 2, step_limit 2" in screen
    assert "train" not in dev


def test_tree_shows_scores_edits_and_rejected_children(world: dict):
    screen = text_of(tree.render(tree.collect(world["store"])))
    lines = screen.splitlines()
    root = next(line for line in lines if world["root"].short_hash in line)
    a = next(line for line in lines if world["a"].short_hash in line)
    b = next(line for line in lines if world["b"].short_hash in line)
    assert (
        "train 25% [5%, 70%] (n=4)" in root and "dev 50% [9%, 91%] (n=2)" in root and "1 rejected (1 by critic)" in root
    )
    assert "← i0-r0-0 proposer [P1] Make the agent check its output" in a and "2 rejected (1 by gate, 1 invalid)" in a
    assert "★" in b and "★" not in a and "dev 100% [34%, 100%] (n=2)" in b
    assert lines.index(root) < lines.index(a) < lines.index(b)


def scored_world(runs_dir: Path) -> tuple[RunStore, str]:
    """An evolution run whose one node passed 3 of its 7 scored dev rollouts (2 more died of infrastructure errors), its
    row scored from those rollouts as the loop scores it."""
    store = RunStore.create(runs_dir, "evolve", run_id="scored")
    harness = Harness.load(BASH_AGENT)
    harness.save(store.folder / "harnesses" / harness.hash)
    store.update_info(started=T0, harness="harnesses/bash-agent", root=harness.hash, tasks="tasks/core")
    rows = [
        Rollout(
            id=f"d{k}",
            task_id=f"t{k}",
            split="dev",
            trial=0,
            node_id=harness.hash,
            harness_hash=harness.hash,
            passed=passed is True,
            reward=float(passed is True),
            exit_reason="infra_error" if passed is None else "done",
            tokens_in=10,
            tokens_out=5,
        )
        for k, passed in enumerate([True] * 3 + [False] * 4 + [None] * 2)
    ]
    for row in rows:
        store.put(row)
    node_stats = NodeStats()
    node_stats.add(rows, "dev")
    store.put(Node(id=harness.hash, iteration=-1, status=NodeStatus.ROOT, created=T0, **node_stats.fields()))
    store.set_status("finished", finished=T0 + 60, best_node=harness.hash)
    return store, harness.hash


def test_eval_caption_counts_one_infrastructure_failure_and_one_reused_rollout_in_the_singular(tmp_path: Path):
    tasks = [
        TaskScore("a", "dev", rollouts=2, scored=1, passed=1, reward=1.0),
        TaskScore("b", "dev", rollouts=1, scored=1, passed=0, reward=0.0),
    ]
    result = EvalResult(RunStore.create(tmp_path, "eval"), Harness.load(BASH_AGENT), tasks, reused=1)
    console = Console(record=True, width=400, color_system=None, file=io.StringIO())
    console.print(eval_table(result, time.time()))
    caption = " ".join(console.export_text().split())  # the caption wraps at the table's width
    assert "1 infrastructure failure not counted; 1 rollout reused from earlier runs" in caption
    assert "pass@1 50% [9%, 91%] (n=2) over scored rollouts" in caption, "the failed infrastructure left out of n"


def test_the_progress_of_a_run_of_one_iteration_says_iteration(tmp_path: Path):
    store, _ = scored_world(tmp_path)
    facts = show.collect(store).model_copy(update={"progress": show.Progress(iterations=1)})
    assert "best score so far over 1 iteration (first bar" in text_of(show.progress_text(facts))


def test_mean_reward_by_split_is_over_scored_rollouts_as_the_pass_rate_is(tmp_path: Path):
    store, _ = scored_world(tmp_path)
    row = next(line for line in text_of(show.render(show.collect(store))).splitlines() if line.startswith("│ dev"))
    assert "0.43" in row, "3 of the 7 scored rollouts passed; the 2 that died of infrastructure errors are left out"


def test_every_score_carries_its_n_and_wilson_interval_on_screen_and_in_json(tmp_path: Path):
    store, node = scored_world(tmp_path)
    wilson = binomtest(3, 7).proportion_ci(confidence_level=0.95, method="wilson")
    shown = f"43% [{wilson.low:.0%}, {wilson.high:.0%}] (n=7)"
    assert shown == "43% [16%, 75%] (n=7)"

    tree_line = next(line for line in text_of(tree.render(tree.collect(store))).splitlines() if node[:12] in line)
    assert f"train -  dev {shown}" in tree_line
    screen = text_of(show.render(show.collect(store))).splitlines()
    assert shown in next(line for line in screen if line.lstrip("│ ").startswith("start = best"))
    assert f"{shown} → {shown}" in next(line for line in screen if line.lstrip().startswith("dev") and "→" in line)
    assert shown in next(line for line in screen if line.startswith("│ dev"))  # the rollouts by split
    assert shown in text_of(runs.render(runs.collect(tmp_path), tmp_path))
    assert f"pass rate {shown}" in text_of(watch.render(watch.collect(store), []))

    expected = {
        "score": pytest.approx(3 / 7),
        "passed": 3,
        "n": 7,
        "low": pytest.approx(wilson.low),
        "high": pytest.approx(wilson.high),
    }
    facts = {
        name: json.loads(
            CliRunner()
            .invoke(app, [name, *([] if name == "runs" else ["scored"]), "--json", "--runs", str(tmp_path)])
            .output
        )
        for name in ("show", "tree", "runs", "watch")
    }
    assert (
        facts["show"]["best"]["scores"]["dev"] == expected and facts["show"]["splits"]["dev"]["pass_rate"] == expected
    )
    assert facts["show"]["progress"]["scores"]["dev"] == [expected] and facts["show"]["progress"]["scores"][
        "train"
    ] == [None]
    assert facts["tree"]["nodes"][0]["dev"] == expected
    assert facts["tree"]["nodes"][0]["train"] == {"score": None, "passed": 0, "n": 0, "low": None, "high": None}
    assert facts["runs"][0]["best_dev"] == expected
    assert (
        facts["watch"]["best"]["scores"]["dev"] == expected and facts["watch"]["splits"]["dev"]["pass_rate"] == expected
    )


def test_edits_ledger_gives_verdicts_reasons_and_gate_counts(world: dict):
    screen = text_of(edits.render(edits.collect(world["store"])))
    static = next(line for line in screen.splitlines() if "i0-r0-1" in line)
    assert "rejected static" in static and "names a training task" in static
    empirical = next(line for line in screen.splitlines() if "i1-r0-0" in line)
    assert "+1 −2 =1 p=0.875" in empirical and "delete tools/view/view.py" in empirical
    only = edits.collect(world["store"], status="accepted").edits
    assert [row.id for row in only] == ["i0-r0-0", "i2-r0-0"]
    detail = text_of(edits.render_one(edits.one(world["store"], "i0-r0-0")))
    assert "csv tasks stop failing at the last step" in detail and "declares done without looking" in detail
    assert "- Run one command" in detail and "+ Check your work, then run one command" in detail
    assert "over 4 pairs on t1, t2" in detail


def test_edits_ledger_in_an_80_column_terminal_is_three_short_lines_an_edit(world: dict):
    facts = edits.collect(world["store"])
    screen = text_of(edits.render(facts), width=80).splitlines()
    assert not any("│" in line for line in screen), "no table whose cells wrap a word a line"
    at = next(i for i, line in enumerate(screen) if line.startswith("i1-r0-0"))
    assert "rejected empirical" in screen[at] and screen[at + 2].strip().startswith("+1 −2 =1 p=0.875")
    assert len(screen) <= 3 * len(facts.edits) + 4
    assert "harness-evo edits" in screen[-1]
    assert "│" in text_of(edits.render(facts), width=160)


def test_one_edit_of_no_pattern_says_so_rather_than_naming_a_missing_one():
    pruned = edits.EditFacts(id="i6-r0-0", iteration=6, parent_id="a" * 64, move="prune", status="rejected_empirical")
    detail = text_of(edits.render_one(pruned))
    assert "pattern none: an edit for every task" in detail and "None" not in detail


def test_an_edit_that_writes_many_files_of_one_folder_is_one_line_of_the_ledger():
    harvest = [{"op": "write", "path": f"examples/task-{i}.md"} for i in range(21)] + [
        {"op": "write", "path": "harness.toml"}
    ]
    assert edits.ops_summary(harvest) == "write 21 files in examples/, write harness.toml"
    few = [{"op": "write", "path": "examples/a.md"}, {"op": "delete", "path": "examples/b.md"}]
    assert edits.ops_summary(few) == "write examples/a.md, delete examples/b.md"


def test_diff_between_node_prefixes_shows_the_changed_components(world: dict):
    root, b = world["root"].hash, world["b"].hash
    facts = diff.collect(world["store"], root[:8], b[:10])
    assert [(change.path, change.change) for change in facts.changes] == [
        ("prompts/system.md.j2", "changed"),
        ("skills/check-before-done/SKILL.md", "added"),
    ]
    screen = text_of(diff.render(facts))
    assert "+Check your work before you say TASK_DONE." in screen.splitlines()
    assert diff.collect(world["store"], "root", "best").b == b
    with pytest.raises(UserError, match="no node starting with 'zzz'"):
        diff.collect(world["store"], "zzz", "best")


def test_rollout_shows_steps_verifier_and_failure_record(world: dict):
    screen = text_of(rollout.render(rollout.collect(world["store"], "abc123")))
    assert "task csv-sum (train), trial 0" in screen and "ended by done after 3 steps" in screen
    assert "step 0: model 1.5s, command 0.2s, exit 0" in screen and "data.csv" in screen
    assert "format error: no bash block found" in screen
    assert "said done" in screen and "awk -F," in screen
    assert "step 2: model 1.1s (a reply from the response cache)" in screen and screen.count("response cache") == 1
    assert "FAIL: total.txt holds 41, expected 42" in screen
    assert "no-verification, blamed on harness (80% sure)" in screen and "critical step 2" in screen
    assert "pattern: P1 (resolved, 3 tasks)" in screen
    with pytest.raises(UserError, match="2 rollouts"):
        rollout.find(world["store"], "abc")


def test_rollout_folds_a_loop_of_identical_steps_unless_full(tmp_path: Path):
    store = RunStore.create(tmp_path, "eval", run_id="loop")
    same = {"reply": "```bash\nls -la\n```", "action": "ls -la", "output": "project\n", "exit_code": 0}
    steps = [same | {"index": i} for i in range(3)] + [
        {"index": 3, "reply": "x", "action": "echo TASK_DONE", "output": "TASK_DONE\n", "exit_code": 0}
    ]
    store.write_json(
        "rollouts/loop1.json",
        {"task_id": "t", "trial": 0, "harness_hash": "h", "model": "m", "steps": steps, "exit_reason": "done"},
    )
    store.put(
        Rollout(
            id="loop1",
            task_id="t",
            split="dev",
            trial=0,
            reward=0.0,
            exit_reason="done",
            steps=4,
            trajectory="rollouts/loop1.json",
        )
    )
    folded = text_of(rollout.render(rollout.collect(store, "loop")))
    assert "steps 1-2 repeat step 0 exactly (2 times" in folded and "step 1:" not in folded and "step 3:" in folded
    full = text_of(rollout.render(rollout.collect(store, "loop"), full=True))
    assert "repeat" not in full and "step 1:" in full and "step 2:" in full


def test_rollout_shows_what_workspace_discovery_found_before_the_first_step(tmp_path: Path):
    store = RunStore.create(tmp_path, "eval", run_id="found")
    discovery = [
        {"command": "ls -la", "output": "notes.txt\n", "exit_code": 0},
        {"command": "sleep 9", "output": "", "exit_code": -1, "timed_out": True},
    ]
    steps = [
        {
            "index": 0,
            "reply": "```bash\ncat notes.txt\n```",
            "action": "cat notes.txt",
            "output": "notes\n",
            "exit_code": 0,
        }
    ]
    store.write_json(
        "rollouts/found1.json",
        {
            "task_id": "t",
            "trial": 0,
            "harness_hash": "h",
            "model": "m",
            "steps": steps,
            "discovery": discovery,
            "exit_reason": "loop_guard",
        },
    )
    store.put(
        Rollout(
            id="found1",
            task_id="t",
            split="dev",
            trial=0,
            reward=0.0,
            exit_reason="loop_guard",
            steps=1,
            trajectory="rollouts/found1.json",
        )
    )

    screen = text_of(rollout.render(rollout.collect(store, "found")))

    assert "workspace discovery, before the first reply" in screen and "$ ls -la" in screen and "notes.txt" in screen
    assert "$ sleep 9 (timed out)" in screen and "ended by loop_guard after 1 step" in screen
    assert screen.index("workspace discovery") < screen.index("step 0:")


def test_watch_refreshes_until_the_run_stops(tmp_path: Path):
    store = RunStore.create(tmp_path, "eval", run_id="live")
    frames = watch.frames(RunStore(store.folder), interval=0)
    first = text_of(next(frames))
    assert "running" in first and "no rollout finished yet" in first
    store.put(Rollout(id="r1", task_id="t1", trial=0, split="dev", passed=True, reward=1.0, exit_reason="done"))
    second = text_of(next(frames))
    assert "dev   rollouts     1: 1 passed, 0 failed" in second and "rollout t1#0 (dev)" in second
    store.set_status("finished", finished=time.time())
    last = text_of(next(frames))
    assert "finished" in last and "run finished" in last
    assert next(frames, None) is None


def test_every_view_gives_its_facts_as_json(world: dict):
    runner = CliRunner()
    root = world["root"].short_hash
    for args in (
        ["runs"],
        ["show", "evolve-1"],
        ["tree", "evolve-1"],
        ["edits", "evolve-1"],
        ["edits", "evolve-1", "i0-r0-0"],
        ["diff", "evolve-1", root, "best"],
        ["rollout", "evolve-1", "abc123"],
    ):
        result = runner.invoke(app, [*args, "--json", "--runs", str(world["runs"])])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)


def test_import_commands_write_a_harness_or_refuse_with_the_reason(tmp_path: Path):
    runner = CliRunner()
    skills = tmp_path / "skills" / "check-before-done"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text(CHECK_SKILL)
    result = runner.invoke(
        app, ["import", "skills", str(tmp_path / "skills"), "--out", str(tmp_path / "h"), "--base", str(BASH_AGENT)]
    )
    assert result.exit_code == 0, result.output
    assert (
        "wrote harness bash-agent" in result.output
        and "note: prompts and agent settings come from the base harness" in result.output
    )
    assert "check-before-done" in [skill.name for skill in Harness.load(tmp_path / "h").skills]

    (tmp_path / "mini.yaml").write_text(
        "agent:\n  system_template: 'You are {{ persona }}.'\n  instance_template: '{{ task }}'\n"
    )
    result = runner.invoke(
        app,
        [
            "import",
            "mini-swe-agent",
            str(tmp_path / "mini.yaml"),
            "--out",
            str(tmp_path / "m"),
            "--base",
            str(BASH_AGENT),
        ],
    )
    assert isinstance(result.exception, UserError) and "agent.system_template uses `persona`" in str(result.exception)
    assert not (tmp_path / "m").exists()


def test_export_of_the_best_node_from_the_command_line(world: dict, tmp_path: Path):
    result = CliRunner().invoke(
        app,
        [
            "export",
            "evolve-1",
            "--node",
            "best",
            "--format",
            "native",
            "--out",
            str(tmp_path / "best"),
            "--runs",
            str(world["runs"]),
        ],
    )
    assert result.exit_code == 0, result.output
    notes = (tmp_path / "best" / "EXPORT.md").read_text()
    (tmp_path / "best" / "EXPORT.md").unlink()
    assert Harness.load(tmp_path / "best").hash == world["b"].hash
    assert "From run `evolve-1` (evolve)" in notes and "| dev | 1.000 | 2 |" in notes and "iteration 2" in notes

    result = CliRunner().invoke(
        app, ["export", "eval-1", "--format", "skills", "--out", str(tmp_path / "skills"), "--runs", str(world["runs"])]
    )
    assert result.exit_code == 0, result.output
    assert "| dev | 0.500 | 4 |" in (tmp_path / "skills" / "EXPORT.md").read_text()


def test_tasks_and_models_in_an_80_column_terminal_name_every_task_and_model_whole(cli):
    suite = Path(__file__).parents[1] / "tasks" / "core"
    listed = cli("tasks", suite, env={"COLUMNS": "80"})
    assert listed.exit_code == 0, listed.output
    ids = [folder.name for folder in suite.iterdir() if (folder / "task.toml").is_file()]
    assert len(ids) > 100 and all(f" {task} " in listed.output for task in ids) and "…" not in listed.output
    models = cli("models", env={"COLUMNS": "80"})
    assert models.exit_code == 0 and "…" not in models.output
