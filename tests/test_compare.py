"""`harness-evo compare` on real Docker with the scripted model: the table, the paired verdict, reuse, node names."""

import io
import json
import shutil
import time
from pathlib import Path

import pytest
from rich.console import Console
from scipy.stats import binomtest
from typer.testing import CliRunner

from harness_evo.cli import app
from harness_evo.compare import CompareFacts, Contender, resolve, summarize
from harness_evo.config import RunConfig
from harness_evo.errors import UserError
from harness_evo.harness import Harness
from harness_evo.llm import scripted
from harness_evo.store import Rollout, RunStore
from harness_evo.taskset import load_task
from harness_evo.views import compare as compare_view

ROOT = Path(__file__).parents[1]
HARNESS = ROOT / "harnesses" / "bash-agent"
GREETING = ROOT / "tests" / "fixtures" / "eval-tasks" / "greeting"
WEAK_MARK = "You give up at once."
SOLVE = "```bash\necho 'hello harness' > /app/greeting.txt && echo TASK_DONE\n```"
GIVE_UP = "```bash\necho TASK_DONE\n```"


def solver(messages: list[dict]) -> str:
    """Solves the greeting task unless the system prompt says to give up."""
    return GIVE_UP if WEAK_MARK in messages[0]["content"] else SOLVE


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path | str]:
    suite = tmp_path / "suite"
    shutil.copytree(GREETING, suite / "greeting")
    (suite / "suite.toml").write_text('[splits]\ntrain = ["greeting"]\ndev = []\ntest = []\n')
    weak, twin = tmp_path / "weak", tmp_path / "twin"
    shutil.copytree(HARNESS, weak)
    system = weak / "prompts" / "system.md.j2"
    system.write_text(system.read_text() + f"\n{WEAK_MARK}\n")
    shutil.copytree(HARNESS, twin)
    toml = twin / "harness.toml"
    toml.write_text(toml.read_text().replace('description = "', 'description = "A copy. ', 1))
    name = f"compare-{time.monotonic_ns()}"
    scripted.register(name, solver)
    return {
        "suite": suite,
        "weak": weak,
        "twin": twin,
        "runs": tmp_path / "runs",
        "model": f"scripted/{name}",
        "name": name,
    }


def compare(
    world, *harnesses, trials: int = 6, json_out: bool = True, split: str = "train", extra: tuple[str, ...] = ()
):
    args = [
        "compare",
        *map(str, harnesses),
        "--tasks",
        str(world["suite"]),
        "--split",
        split,
        "--trials",
        str(trials),
        "--model",
        world["model"],
        "--runs",
        str(world["runs"]),
        *extra,
    ] + (["--json"] if json_out else [])
    return CliRunner().invoke(app, args)


@pytest.mark.docker
def test_a_harness_that_solves_a_task_is_better_than_one_that_cannot_and_nothing_is_paid_twice(world):
    result = compare(world, world["weak"], HARNESS)
    assert result.exit_code == 0, result.output
    facts = json.loads(result.stdout)
    weak, strong = facts["harnesses"]
    assert (weak["pass_at_1"]["passed"], weak["pass_at_1"]["n"]) == (0, 6)
    assert (strong["pass_at_1"]["passed"], strong["pass_at_1"]["n"]) == (6, 6)
    assert strong["pass_at_1"]["low"] == pytest.approx(binomtest(6, 6).proportion_ci(method="wilson").low)
    assert weak["paid"] == strong["paid"] == 6
    [comparison] = facts["comparisons"]
    assert (comparison["b_better"], comparison["a_better"], comparison["diff"]) == (6, 0, 1.0)
    assert comparison["p_value"] == pytest.approx(2 * 0.5**6)
    assert comparison["significant"]
    assert comparison["verdict"].startswith(f"B ({HARNESS}) is better than A ({world['weak']}): +100.0 pp")
    assert facts["per_task"] == [
        {
            "task_id": "greeting",
            "category": facts["per_task"][0]["category"],
            "differs": True,
            "cells": [{"passed": 0, "scored": 6}, {"passed": 6, "scored": 6}],
        }
    ]
    calls = scripted.calls(world["name"])

    again = compare(world, world["weak"], HARNESS, json_out=False)
    assert again.exit_code == 0, again.output
    assert "is better than" in again.stdout and "greeting" in again.stdout
    second = max((RunStore(path) for path in world["runs"].iterdir()), key=lambda store: store.info.started)
    rows = second.rows("rollouts")
    assert len(rows) == 12 and all(row["reused_from"] == facts["run"] for row in rows)
    reused = json.loads(compare(world, world["weak"], HARNESS).stdout)
    costs = [[(h["tokens_per_rollout"], h["seconds_per_rollout"]) for h in run["harnesses"]] for run in (reused, facts)]
    assert costs[0] == costs[1], "a reused rollout keeps the tokens and wall time it was run with"
    assert weak["tokens_per_rollout"] > 0 and weak["seconds_per_rollout"] > 0
    assert scripted.calls(world["name"]) == calls and not second.rows("llm_calls")
    assert second.info.status == "finished"


@pytest.mark.docker
def test_two_harnesses_that_behave_alike_show_no_measurable_difference(world):
    result = compare(world, HARNESS, world["twin"], trials=3, extra=("--workers", "1"))
    assert result.exit_code == 0, result.output
    facts = json.loads(result.stdout)
    first, twin = facts["harnesses"]
    assert twin["cached_share"] == 1.0 > first["cached_share"], "the twin's requests are the first's, to the byte"
    [comparison] = facts["comparisons"]
    assert (comparison["b_better"], comparison["a_better"], comparison["p_value"], comparison["significant"]) == (
        0,
        0,
        None,
        False,
    )
    assert comparison["verdict"].startswith("no measurable difference between B")
    assert "more trials per task would resolve a difference of 10.0 pp" in comparison["verdict"]


@pytest.mark.docker
def test_recorded_compares_what_an_interrupted_comparison_has_on_the_keys_every_harness_has_and_runs_nothing(world):
    for harness, trials in ((world["weak"], 6), (HARNESS, 2)):  # one run each, as if the comparison had been cut off
        result = CliRunner().invoke(
            app,
            [
                "eval",
                "--harness",
                str(harness),
                "--tasks",
                str(world["suite"]),
                "--split",
                "train",
                "--trials",
                str(trials),
                "--model",
                world["model"],
                "--runs",
                str(world["runs"]),
            ],
        )
        assert result.exit_code == 0, result.output
    calls = scripted.calls(world["name"])

    result = compare(world, world["weak"], HARNESS, trials=6, json_out=False, extra=["--recorded"])

    assert result.exit_code == 0, result.output
    shown = " ".join(result.stdout.split())
    assert "on the 2 (task, trial) keys recorded for every harness (--recorded: nothing was run)" in shown
    assert "2 pairs better, 0 worse, of 2 on 1 task" in shown and scripted.calls(world["name"]) == calls


@pytest.mark.docker
def test_a_comparison_stopped_partway_keeps_every_harness_s_finished_trials(world):
    """Ctrl-C (here: the solver's fifth call) of a comparison of two harnesses at 3 trials: each has trials 0 and 1."""
    calls = []

    def stopping(messages: list[dict]) -> str:
        calls.append(messages)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return solver(messages)

    scripted.register(world["name"], stopping)
    result = compare(world, world["weak"], HARNESS, trials=3, extra=("--workers", "1"))
    assert result.exit_code == 130, result.output
    [folder] = world["runs"].iterdir()
    kept = {(row["harness_hash"], row["trial"]) for row in RunStore(folder).rows("rollouts")}
    weak, strong = (Harness.load(path).hash for path in (world["weak"], HARNESS))
    assert kept == {(harness, trial) for harness in (weak, strong) for trial in (0, 1)}

    result = compare(world, world["weak"], HARNESS, trials=3, json_out=False, extra=("--recorded",))
    assert result.exit_code == 0, result.output
    assert "2 pairs better, 0 worse, of 2 on 1 task" in " ".join(result.stdout.split()) and len(calls) == 5


@pytest.mark.docker
def test_rollouts_are_reused_from_the_same_suite_under_another_path_and_paid_again_for_a_task_edited_since(
    world, tmp_path: Path
):
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--harness",
            str(HARNESS),
            "--tasks",
            str(world["suite"]),
            "--split",
            "train",
            "--trials",
            "2",
            "--model",
            world["model"],
            "--runs",
            str(world["runs"]),
        ],
    )
    assert result.exit_code == 0, result.output
    copy = tmp_path / "copy"
    shutil.copytree(world["suite"], copy)

    same = compare({**world, "suite": copy}, world["weak"], HARNESS, trials=2)

    assert same.exit_code == 0, same.output
    assert [(h["reused"], h["paid"]) for h in json.loads(same.stdout)["harnesses"]] == [(0, 2), (2, 0)]

    instruction = copy / "greeting" / "instruction.md"
    instruction.write_text(instruction.read_text() + "\nSay it once.\n")
    edited = compare({**world, "suite": copy}, world["weak"], HARNESS, trials=2)

    assert edited.exit_code == 0, edited.output
    assert [(h["reused"], h["paid"]) for h in json.loads(edited.stdout)["harnesses"]] == [(0, 2), (0, 2)]


def test_the_difference_is_of_passes_as_the_pass_rates_are_so_a_partial_reward_is_no_better_pair(tmp_path: Path):
    task = load_task(GREETING)
    base = Harness.load(HARNESS)
    rows = {
        letter: [
            Rollout(
                id=f"{letter}{trial}",
                task_id=task.id,
                split="train",
                trial=trial,
                reward=reward,
                passed=reward >= 1.0,
                exit_reason="done",
            )
            for trial, reward in enumerate(rewards)
        ]
        for letter, rewards in (("A", [0.0, 0.0, 1.0, 0.0]), ("B", [0.5, 0.5, 1.0, 1.0]))
    }
    found = [Contender("A", "a", base, rows=rows["A"]), Contender("B", "b", variants(2)[1], rows=rows["B"])]

    facts = summarize(RunStore.create(tmp_path, "compare"), found, [task], 4, {})

    assert [h.pass_at_1.passed for h in facts.harnesses] == [1, 2]
    [comparison] = facts.comparisons
    assert comparison.diff == pytest.approx(0.25), "2 of 4 against 1 of 4: +25 pp, not the +50 pp of the mean rewards"
    assert (comparison.b_better, comparison.a_better) == (1, 0), "0 -> 0.5 is a fail on both sides"


def test_each_harness_shows_the_mean_tokens_and_wall_time_of_its_scored_rollouts(tmp_path: Path):
    task = load_task(GREETING)

    def row(letter: str, trial: int, tokens: int, seconds: float, reason: str = "done") -> Rollout:
        return Rollout(
            id=f"{letter}{trial}",
            task_id=task.id,
            split="train",
            trial=trial,
            reward=0.0 if reason == "done" else None,
            exit_reason=reason,
            tokens_in=tokens - 10,
            tokens_out=10,
            duration_s=seconds,
        )

    long_rows = [row("A", 0, 3000, 40.0), row("A", 1, 1000, 20.0), row("A", 2, 90_000, 900.0, "infra_error")]
    short_rows = [row("B", 0, 500, 5.0), row("B", 1, 700, 7.0)]
    found = [
        Contender("A", "long", Harness.load(HARNESS), rows=long_rows),
        Contender("B", "short", variants(2)[1], rows=short_rows),
    ]

    facts = summarize(RunStore.create(tmp_path, "compare"), found, [task], 2, {})

    assert [(h.tokens_per_rollout, h.seconds_per_rollout) for h in facts.harnesses] == [(2000.0, 30.0), (600.0, 6.0)], (
        "an infra failure (not scored) counts in neither"
    )
    shown = io.StringIO()
    Console(file=shown, width=200).print(compare_view.render(facts))
    assert "2,000" in shown.getvalue() and "30.0" in shown.getvalue() and "600" in shown.getvalue()
    [against] = facts.comparisons
    assert (against.b_cheaper, against.a_cheaper) == (2, 0) and against.cost_p == 0.25, "paired on the scored keys"
    assert "tokens: B against A: 600 against 2,000 tokens a rollout (-70%); cheaper on 2 of the 2 keys" in (
        " ".join(shown.getvalue().split())
    )


def test_a_harness_whose_model_calls_the_response_cache_answered_is_not_shown_as_fast_on_its_own(tmp_path: Path):
    task = load_task(GREETING)

    def row(letter: str, trial: int, calls: int, cached: int, seconds: float) -> Rollout:
        return Rollout(
            id=f"{letter}{trial}", task_id=task.id, split="train", trial=trial, reward=0.0, exit_reason="done",
            calls=calls, cached_calls=cached, duration_s=seconds,
        )  # fmt: skip

    found = [
        Contender("A", "start", Harness.load(HARNESS), rows=[row("A", 0, 10, 0, 60.0), row("A", 1, 6, 1, 40.0)]),
        Contender("B", "child", variants(2)[1], rows=[row("B", 0, 4, 4, 2.0), row("B", 1, 6, 2, 20.0)]),
        Contender("C", "old", variants(3)[2], rows=[row("C", 0, 0, 0, 9.0)]),
    ]

    facts = summarize(RunStore.create(tmp_path, "compare"), found, [task], 2, {})

    assert [h.cached_share for h in facts.harnesses] == [1 / 16, 0.6, None], "None: no calls were counted"
    shown = io.StringIO()
    Console(file=shown, width=250).print(compare_view.render(facts))
    said = " ".join(shown.getvalue().split())
    assert "B took 60% of its model calls from the response cache" in said and "its own speed" in said
    assert "A took" not in said and "C took" not in said


def test_in_an_80_column_terminal_no_interval_is_cut_and_each_harness_is_named_below(tmp_path: Path):
    task = load_task(GREETING)
    rows = {
        letter: [
            Rollout(id=f"{letter}{trial}", task_id=task.id, split="test", trial=trial, reward=float(trial < passes),
                    exit_reason="done", tokens_in=900, tokens_out=10, duration_s=5.0)
            for trial in range(180)
        ]
        for letter, passes in (("A", 30), ("B", 31))
    }  # fmt: skip
    long_name = "runs/peer-gepa/core-bash-agent-490r-8ed6d9af/harness-evo/evolve-20261206-155035-9944"
    found = [
        Contender("A", "harnesses/bash-agent", Harness.load(HARNESS), rows=rows["A"]),
        Contender("B", long_name, variants(2)[1], rows=rows["B"]),
    ]
    facts = summarize(RunStore.create(tmp_path, "compare"), found, [task], 180, {})

    screen = Console(width=80, record=True, file=io.StringIO())
    screen.print(compare_view.render(facts))
    lines = screen.export_text().splitlines()
    assert sum("(n=180)" in line for line in lines) == 2, "each pass@1 whole, its n included"
    assert any(line.startswith("A  harnesses/bash-agent (") for line in lines)
    assert long_name in "".join(lines), "the long name is folded, not cut"


def evolve_run(runs: Path, harnesses: list[Harness], best: Harness) -> RunStore:
    """A run folder with these harnesses as its nodes (the first the root) and `best` as its result."""
    store = RunStore.create(runs, "evolve")
    for i, harness in enumerate(harnesses):
        harness.save(store.folder / "harnesses" / harness.hash)
        store.emit(
            "node",
            id=harness.hash,
            parent_id=harnesses[0].hash if i else None,
            iteration=i - 1,
            status="root" if not i else "accepted",
        )
    store.update_info(root=harnesses[0].hash, best_node=best.hash)
    return store


def variants(n: int) -> list[Harness]:
    base = Harness.load(HARNESS)
    return [
        Harness({**base.components, "prompts/system.md.j2": base.components["prompts/system.md.j2"] + "\n" * k})
        for k in range(n)
    ]


def test_a_run_names_its_best_node_its_root_or_a_node_by_hash_prefix(tmp_path: Path):
    root, child, other = variants(3)
    store = evolve_run(tmp_path, [root, child, other], best=child)
    assert resolve(store.id, tmp_path).harness.hash == child.hash
    assert resolve(str(store.folder), tmp_path).harness.hash == child.hash
    assert resolve(f"{store.id}:root", tmp_path).harness.hash == root.hash
    assert resolve(f"{store.id}:{other.hash[:10]}", tmp_path).harness.hash == other.hash
    assert resolve(str(HARNESS), tmp_path).harness.hash == Harness.load(HARNESS).hash


def test_a_hash_prefix_of_two_nodes_is_refused(tmp_path: Path):
    pool = variants(40)
    first = pool[0]
    twin = next(h for h in pool[1:] if h.hash[0] == first.hash[0])
    store = evolve_run(tmp_path, [first, twin], best=twin)
    with pytest.raises(UserError, match=f"2 nodes starting with '{first.hash[0]}'"):
        resolve(f"{store.id}:{first.hash[0]}", tmp_path)


@pytest.mark.parametrize(
    "args, message",
    [
        ([str(HARNESS), "nowhere"], "'nowhere' is neither a harness folder (with harness.toml) nor a run"),
        ([str(HARNESS), str(HARNESS)], "are the same harness"),
        ([str(HARNESS)], "compare needs at least two harnesses"),
    ],
)
def test_harnesses_that_cannot_be_compared_are_refused_in_one_line(world, args, message):
    result = compare(world, *args)
    assert isinstance(result.exception, UserError) and message in str(result.exception)
    assert "\n" not in str(result.exception)
    assert not world["runs"].exists() or not any(world["runs"].iterdir())


def test_zero_trials_and_a_split_without_tasks_are_refused_before_a_run_folder_is_made(world):
    zero = compare(world, HARNESS, world["twin"], trials=0)
    assert isinstance(zero.exception, UserError) and "--trials 0: pass at least 1" in str(zero.exception)
    empty = compare(world, HARNESS, world["twin"], split="dev")
    assert isinstance(empty.exception, UserError) and "the dev split has no tasks; pass --split" in str(empty.exception)
    unknown = compare(world, HARNESS, world["twin"], split="holdout")
    assert isinstance(unknown.exception, UserError) and "no split 'holdout'" in str(unknown.exception)
    assert not world["runs"].exists() or not any(world["runs"].iterdir())


@pytest.mark.docker
def test_compare_takes_its_settings_from_a_config_file_and_its_options_override_it(world, tmp_path: Path):
    config = RunConfig(tasks=world["suite"], split="train", executor={"trials": 2})
    config.models.solver.model = world["model"]
    config.save(tmp_path / "compare.toml")

    def compare_with(*options: str) -> dict:
        args = ["compare", str(world["weak"]), str(HARNESS), "--config", str(tmp_path / "compare.toml"), *options]
        result = CliRunner().invoke(app, [*args, "--runs", str(world["runs"]), "--json"])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    facts = compare_with()
    assert (facts["split"], facts["trials"]) == ("train", 2), "the file's split and trials"
    assert [(h["pass_at_1"]["passed"], h["pass_at_1"]["n"]) for h in facts["harnesses"]] == [(0, 2), (2, 2)], (
        "the file's solver"
    )
    again = compare_with("--trials", "1")
    assert again["trials"] == 1 and [(h["reused"], h["paid"]) for h in again["harnesses"]] == [(1, 0), (1, 0)]


def test_on_a_large_suite_only_the_tasks_that_differ_are_listed_with_a_count_of_the_rest():
    def harness(letter: str, passed: int) -> dict:
        return {
            "letter": letter,
            "spec": f"h{letter}",
            "hash": letter * 12,
            "infra": 0,
            "paid": 138,
            "reused": 0,
            "pass_at_1": {"passed": passed, "n": 138, "score": passed / 138, "low": 0.0, "high": 0.1},
        }

    per_task = [
        {
            "task_id": "sqlite-join",
            "category": "sqlite",
            "differs": True,
            "cells": [{"passed": 0, "scored": 1}, {"passed": 1, "scored": 1}],
        },
        {
            "task_id": "git-tag",
            "category": "git",
            "differs": False,
            "cells": [{"passed": 0, "scored": 1}, {"passed": 0, "scored": 0}],
        },
    ]
    per_task += [
        {
            "task_id": f"task-{k:03d}",
            "category": "files",
            "differs": False,
            "cells": [{"passed": 0, "scored": 1}, {"passed": 0, "scored": 1}],
        }
        for k in range(136)
    ]
    facts = CompareFacts.model_validate(
        {
            "run": "compare-1",
            "harnesses": [harness("A", 0), harness("B", 1)],
            "tasks": 138,
            "split": "dev",
            "trials": 1,
            "per_task": per_task,
            "comparisons": [
                {
                    "verdict": "no measurable difference",
                    "significant": False,
                    "diff": 0.007,
                    "b_better": 1,
                    "a_better": 0,
                    "n": 137,
                    "tasks": 137,
                    "a": "A",
                    "b": "B",
                }
            ],
            "folder": "runs/compare-1",
        }
    )

    def shown(every_task: bool) -> str:
        screen = Console(width=160, record=True, file=io.StringIO())
        screen.print(compare_view.render(facts, every_task=every_task))
        return " ".join(screen.export_text().split())

    few = shown(every_task=False)
    assert "sqlite-join" in few and "git-tag" in few, "a task some harness did not score is listed"
    assert "task-0" not in few
    assert (
        "136 of 137 tasks score the same on every harness (not listed; --all lists every task, --json gives every row)"
        in few
    )
    assert all(f"task-{k:03d}" in shown(every_task=True) for k in range(136))
