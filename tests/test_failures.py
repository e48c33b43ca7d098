"""Failure analysis: triage, digests, the analyzer (scripted model), patterns, promotion, resume after a crash.

Rollouts are written straight into a RunStore (a row plus its trajectory JSON), so no sandbox is needed.
Run as a script (`python tests/test_failures.py RUN_FOLDER STOP_AT`), this file is the worker that the
crash test kills in the middle of an analysis.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness_evo.agent.trajectory import Step, Trajectory
from harness_evo.config import FailuresConfig, ModelsConfig, RoleModel
from harness_evo.failures import FailureAnalysis, digest, pattern_evidence, patterns, triage
from harness_evo.failures.digest import count_tokens
from harness_evo.llm import LLM, scripted
from harness_evo.standins.missing import missed_calls, missing_programs, pattern_missing_programs, scriptable
from harness_evo.store import Failure, Pattern, Rollout, RunStore

VERIFIED_NOTHING = {
    "category": "no-verification",
    "pattern": "finishes without looking at the file it wrote",
    "blame": "harness",
}
NEAR_DUPLICATE = {
    "category": "no-verification",
    "pattern": "finishes without ever checking the output file it wrote",
    "blame": "harness",
}
OTHER = {"category": "misread-instruction", "pattern": "sorts by the wrong column of the table", "blame": "model"}


class Analyst:
    """The scripted analyzer: answers each kind of question the failures package asks, and counts them."""

    def __init__(
        self,
        causes: dict[str, dict] | None = None,
        same: bool = True,
        keep: list[int] | None = None,
        stop_at: int | None = None,
    ):
        self.causes = causes or {}
        self.same = same
        self.keep = keep
        self.stop_at = stop_at
        self.asked: list[str] = []

    def __call__(self, messages: list[dict]) -> str:
        prompt = messages[-1]["content"]
        kind = prompt.splitlines()[0].lstrip("# ")
        self.asked.append(kind)
        if self.stop_at is not None and len(self.asked) == self.stop_at:
            print(f"asked {len(self.asked)}: {kind}", flush=True)
            sys.stdin.readline()  # blocks until the test kills this process
        if kind == "Failed rollout":
            task = re.search(r"Task (\S+)\.", prompt).group(1)
            cause = self.causes.get(task, VERIFIED_NOTHING)
            return json.dumps(
                {
                    **cause,
                    "root_cause": f"It never checked its result for {task}.",
                    "critical_step": 2,
                    "evidence": "echo done",
                    "confidence": 0.8,
                }
            )
        if kind == "Same defect?":
            return json.dumps({"same": self.same, "reason": "scripted"})
        if kind == "One defect or several?":
            groups = len(re.findall(r"^\d+\. ", prompt, flags=re.M))
            return json.dumps({"keep": self.keep or list(range(1, groups + 1)), "reason": "scripted"})
        return json.dumps({"severity": 0.9, "fixability": 0.7, "side_effect_risk": 0.2, "reason": "scripted"})


pytestmark = pytest.mark.usefixtures("user_cache")


def models(name: str) -> ModelsConfig:
    return ModelsConfig(analyzer=RoleModel(model=f"scripted/{name}"), backoff_s=0.0)


def analysis(store: RunStore, analyst: Analyst, **config) -> FailureAnalysis:
    name = f"analyst-{id(analyst)}"
    scripted.register(name, analyst)
    return FailureAnalysis(store, LLM(models(name), store=store), FailuresConfig(**config))


def steps(*commands: str, done: bool = True) -> list[Step]:
    made = [
        Step(index=i + 1, reply=f"```bash\n{c}\n```", action=c, output=f"output of {c}", exit_code=0)
        for i, c in enumerate(commands)
    ]
    if done:
        made.append(Step(index=len(made) + 1, reply="The task is done.", action="", finished=True))
    return made


def rollout(
    store: RunStore,
    task: str,
    *,
    trial: int = 0,
    split: str = "train",
    node: str = "n0",
    commands: tuple[str, ...] = ("cat notes.txt", "echo done > out.txt"),
    exit_reason: str = "done",
    reward: float | None = 0.0,
    error: str | None = None,
    step_list: list[Step] | None = None,
) -> Rollout:
    """A finished rollout in the store: its trajectory file and its row, as the executor writes them."""
    trajectory = Trajectory(
        task_id=task,
        trial=trial,
        harness_hash=node,
        model="scripted/solver",
        messages=[
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": f"Task {task}. Fix it."},
        ],
        steps=step_list if step_list is not None else steps(*commands),
        exit_reason=exit_reason,
        error=error,
        reward=reward,
        verifier_output="FAILED test_output" if reward is not None else "",
    )
    rollout_id = f"{node}-{task}-{trial}"
    path = f"rollouts/{rollout_id}.json"
    store.write_json(path, trajectory.model_dump())
    row = Rollout(
        id=rollout_id,
        node_id=node,
        harness_hash=node,
        task_id=task,
        split=split,
        trial=trial,
        model="scripted/solver",
        reward=reward,
        passed=reward is not None and reward >= 1.0,
        exit_reason=exit_reason,
        error=error,
        steps=len(trajectory.steps),
        format_errors=0,
        started=1000.0 + trial,
        finished=1010.0 + trial,
        trajectory=path,
    )
    store.put(row)
    return row


def failure_of(task: str, root_cause: str) -> Failure:
    """A failure row of `task` with `root_cause` (as the triage writes it)."""
    return Failure(
        id=f"{task}-{root_cause[:20]}", rollout_id=task, task_id=task, source="triage", root_cause=root_cause
    )


def live(store: RunStore) -> list[Pattern]:
    return patterns(store)


# promotion and support


def test_the_same_root_cause_on_three_train_tasks_is_one_promoted_pattern_with_support_3(store):
    rows = [rollout(store, task) for task in ("csv-sum", "log-grep", "json-merge")]

    changed = analysis(store, Analyst()).process(rows)

    [pattern] = live(store)
    assert pattern.status == "promoted"
    assert pattern.support == 3
    assert pattern.task_ids == ["csv-sum", "json-merge", "log-grep"]
    assert pattern.harness_blame == 1.0
    assert (pattern.severity, pattern.fixability, pattern.side_effect_risk) == (0.9, 0.7, 0.2)
    assert [row.id for row in changed] == [pattern.id]


def test_the_same_task_failing_five_times_stays_at_support_1_and_is_not_promoted(store):
    rows = [rollout(store, "csv-sum", trial=trial) for trial in range(5)]

    analysis(store, Analyst()).process(rows)

    [pattern] = live(store)
    assert (pattern.support, pattern.members, pattern.status) == (1, 5, "candidate")


def test_a_pattern_blamed_mostly_on_the_model_is_not_promoted(store):
    rows = [rollout(store, task) for task in ("csv-sum", "log-grep", "json-merge")]

    analysis(store, Analyst(causes={task: OTHER for task in ("csv-sum", "log-grep", "json-merge")})).process(rows)

    [pattern] = live(store)
    assert (pattern.support, pattern.harness_blame, pattern.status) == (3, 0.0, "candidate")


def infra_failures(store, errors: dict[str, str]) -> list:
    """Unscored rollouts of the tasks of `errors`, each ended by its error."""
    return [
        rollout(store, task, exit_reason="infra_error", reward=None, step_list=[], error=error)
        for task, error in errors.items()
    ]


def test_an_infrastructure_failure_never_becomes_a_harness_pattern(store):
    tasks = ("csv-sum", "log-grep", "json-merge")
    rows = infra_failures(store, {task: f"image build failed for {task}: apt-get exited 100" for task in tasks})
    analyst = Analyst()

    analysis(store, analyst).process(rows)

    [pattern] = live(store)
    assert pattern.infra and pattern.status == "candidate" and pattern.support == 3
    assert pattern.category == "infrastructure"
    assert analyst.asked == []


def test_a_container_that_dies_on_several_tasks_is_one_infrastructure_pattern_naming_no_container(store):
    suffixes = {"csv-sum": "98f6dc", "log-grep": "0a1b2c", "json-merge": "ffe012"}
    died = "sandbox container harness-evo-{}-{} died (exited, exit code 137)"
    rows = infra_failures(store, {task: died.format(task, suffix) for task, suffix in suffixes.items()})

    analysis(store, Analyst()).process(rows)

    [pattern] = live(store)
    assert pattern.infra and pattern.support == 3
    assert "harness-evo-<task> died (exited, exit code 137)" in pattern.description
    assert not any(suffix in pattern.description for suffix in suffixes.values())


def test_a_dev_failure_is_counted_and_leaves_no_pattern(store):
    row = rollout(store, "csv-sum", split="dev")
    analyst = Analyst()

    analysis(store, analyst).process([row])

    [failure] = store.rows("failures")
    assert (failure["split"], failure["source"], failure.get("category")) == ("dev", "counted", None)
    assert live(store) == [] and analyst.asked == []


# triage and the analyzer


def test_a_command_loop_is_explained_by_the_rules_alone(store):
    row = rollout(
        store, "csv-sum", exit_reason="step_limit", commands=("ls", "cat a.csv", "cat a.csv", "cat a.csv", "cat a.csv")
    )
    analyst = Analyst()

    analysis(store, analyst).process([row])

    [failure] = store.rows("failures")
    assert (failure["source"], failure["category"], failure["critical_step"]) == ("triage", "command-loop", 2)
    assert "cat a.csv" in failure["root_cause"] and "4 times" in failure["root_cause"]
    assert analyst.asked == []


def test_declared_success_that_the_verifier_rejects_goes_to_the_analyzer():
    trajectory = Trajectory(
        task_id="t",
        trial=0,
        harness_hash="h",
        model="m",
        steps=steps("cat in.txt", "sort in.txt > out.txt"),
        reward=0.0,
    )

    found = triage(trajectory, loop_repeats=3)

    assert found.record.category == "premature-success" and not found.final and not found.infra


def test_success_claimed_right_after_a_failed_command_is_explained_by_the_rules_alone():
    failed = [
        *steps("ls", done=False),
        Step(index=2, reply="", action="sed -i 's/a/b' app.ini", output="sed: unterminated `s' command", exit_code=1),
        Step(index=3, reply="", action="echo TASK_DONE", output="TASK_DONE", exit_code=0, finished=True),
    ]
    trajectory = Trajectory(task_id="t", trial=0, harness_hash="h", model="m", steps=failed, reward=0.0)

    found = triage(trajectory, loop_repeats=3)

    assert (found.final, found.record.category, found.record.blame, found.record.critical_step) == (
        True,
        "premature-success",
        "harness",
        3,
    )
    assert "sed -i" in found.record.root_cause and "exited 1" in found.record.root_cause


@pytest.mark.parametrize(
    "output, exit_code", [("bash: line 2: sqlite3: command not found", 127), ("sh: 1: sqlite3: not found\n", 0)]
)  # a pipe hides the exit code
def test_a_last_command_whose_program_is_missing_is_the_root_cause_whatever_followed(output, exit_code):
    missing = Step(index=2, reply="", action="sqlite3 shop.db '.tables' | sort", output=output, exit_code=exit_code)
    pleas = [
        Step(index=i, reply="You need to install sqlite3 first.", format_error="no fenced bash block found")
        for i in (3, 4)
    ]
    trajectory = Trajectory(
        task_id="t",
        trial=0,
        harness_hash="h",
        model="m",
        steps=[*steps("ls", done=False), missing, *pleas],
        exit_reason="format_errors",
        reward=0.0,
    )

    found = triage(trajectory, loop_repeats=3)

    assert (found.final, found.record.category, found.record.blame, found.record.critical_step) == (
        True,
        "wrong-tool-missing-binary",
        "harness",
        2,
    )
    assert "`sqlite3`, which is not installed" in found.record.root_cause


def test_a_harness_tool_that_crashed_on_the_agent_s_call_is_the_root_cause_not_the_claim_that_followed():
    crash = (
        'Traceback (most recent call last):\n  File "/opt/harness/tools/sqlite3/tool.py", line 24, in main\n'
        "    cursor.execute(args[1:])\nTypeError: execute() argument 1 must be str, not list\n"
    )
    crashed = Step(
        index=1,
        reply="",
        action="cd /app\nsqlite3 orders.db 'SELECT count(*) FROM orders' > count.txt",
        output=crash,
        exit_code=1,
    )
    claim = Step(index=2, reply="", action="echo TASK_DONE", output="TASK_DONE", exit_code=0, finished=True)
    trajectory = Trajectory(
        task_id="t", trial=0, harness_hash="h", model="m", steps=[crashed, claim], exit_reason="done", reward=0.0
    )

    record = triage(trajectory, loop_repeats=3).record

    assert (record.category, record.blame, record.critical_step) == ("broken-harness-tool", "harness", 1)
    assert (
        "`sqlite3`, whose tool in the harness crashed (TypeError: execute() argument 1 must be str" in record.root_cause
    )
    missing = missing_programs([failure_of("t", record.root_cause)])["sqlite3"]
    assert missing.broken and missing.calls == {"sqlite3 orders.db 'SELECT count(*) FROM orders' > count.txt": "t"}
    assert missed_calls(trajectory) == {"sqlite3": "sqlite3 orders.db 'SELECT count(*) FROM orders' > count.txt"}


def test_a_traceback_of_the_agent_s_own_script_blames_no_tool():
    crash = "Traceback (most recent call last):\n  File \"/app/count.py\", line 3, in <module>\nKeyError: 'id'\n"
    ran = Step(index=1, reply="", action="python3 /app/count.py", output=crash, exit_code=1)
    claim = Step(index=2, reply="", action="echo TASK_DONE", output="TASK_DONE", exit_code=0, finished=True)
    trajectory = Trajectory(
        task_id="t", trial=0, harness_hash="h", model="m", steps=[ran, claim], exit_reason="done", reward=0.0
    )

    assert triage(trajectory, loop_repeats=3).record.category == "premature-success"


def test_a_missing_program_s_call_is_the_line_that_runs_it():
    action = (
        "# first look at the tables\ncd /app\napt-get install -y sqlite3\nsqlite3 shop.db .tables  # list them\n"
        "echo checked"
    )
    missing = Step(
        index=1, reply="", action=action, output="bash: line 3: sqlite3: command not found\nchecked", exit_code=0
    )
    trajectory = Trajectory(
        task_id="t", trial=0, harness_hash="h", model="m", steps=[missing], exit_reason="step_limit", reward=0.0
    )

    record = triage(trajectory, loop_repeats=3).record

    assert record.root_cause.startswith("The agent's command `sqlite3 shop.db .tables` needs `sqlite3`")
    assert missing_programs([failure_of("t", record.root_cause)])["sqlite3"].calls == {"sqlite3 shop.db .tables": "t"}


def test_a_missing_program_keeps_one_call_per_task_and_knows_the_task_of_each():
    def cause(call: str) -> str:
        return (
            f"The agent's command `{call}` needs `sqlite3`, which is not installed here, and no later command of the "
            "agent succeeded."
        )

    failures = [
        failure_of("a", cause("sqlite3 a.db .tables")),
        failure_of("a", cause("sqlite3 a.db 'SELECT 1'")),
        failure_of("b", cause("sqlite3 a.db .tables")),
        failure_of("c", cause("sqlite3 c.db .schema")),
    ]
    found = missing_programs(failures)["sqlite3"]
    assert found.tasks == ["a", "b", "c"]
    assert found.calls == {"sqlite3 a.db .tables": "a", "sqlite3 c.db .schema": "c"}, (
        "the toolsmith sees different tasks' calls"
    )


def test_a_missing_program_is_the_root_cause_when_every_command_after_it_failed():
    missing = Step(
        index=1,
        reply="",
        action="sqlite3 shop.db .tables",
        output="bash: line 1: sqlite3: command not found",
        exit_code=127,
    )
    install = Step(
        index=2,
        reply="",
        action="apt-get install -y sqlite3",
        output="E: Unable to locate package sqlite3",
        exit_code=100,
    )
    claim = Step(index=3, reply="", action="echo TASK_DONE", output="TASK_DONE", exit_code=0, finished=True)
    trajectory = Trajectory(
        task_id="t",
        trial=0,
        harness_hash="h",
        model="m",
        steps=[missing, install, claim],
        exit_reason="done",
        reward=0.0,
    )

    found = triage(trajectory, loop_repeats=3)

    assert (found.record.category, found.record.critical_step) == ("wrong-tool-missing-binary", 1)
    assert "no later command of the agent succeeded" in found.record.root_cause


@pytest.mark.parametrize(
    "output", ["bash: line 1: Exit: command not found", "bash: line 1: 2026-03-05: command not found"]
)
def test_output_run_as_a_command_is_not_a_missing_program(output):
    wrong = Step(index=1, reply="", action="Exit", output=output, exit_code=127)
    trajectory = Trajectory(
        task_id="t", trial=0, harness_hash="h", model="m", steps=[wrong], exit_reason="step_limit", reward=0.0
    )

    assert triage(trajectory, loop_repeats=3).record.category != "wrong-tool-missing-binary"


def test_a_not_found_message_that_is_not_the_shell_s_does_not_blame_a_missing_program():
    lookup = Step(index=1, reply="", action="python3 lookup.py key", output="Error: not found", exit_code=1)
    trajectory = Trajectory(
        task_id="t", trial=0, harness_hash="h", model="m", steps=[lookup], exit_reason="step_limit", reward=0.0
    )

    assert triage(trajectory, loop_repeats=3).record.category != "wrong-tool-missing-binary"


def test_a_missing_program_the_agent_worked_around_is_not_blamed():
    worked = [
        *steps("jq .name a.json", done=False),
        Step(index=2, reply="", action="python3 -c 'print(1)' > out.txt", output="", exit_code=0),
        Step(index=3, reply="", action="echo TASK_DONE", output="TASK_DONE", exit_code=0, finished=True),
    ]
    worked[0].output, worked[0].exit_code = "bash: line 1: jq: command not found", 127
    trajectory = Trajectory(task_id="t", trial=0, harness_hash="h", model="m", steps=worked, reward=0.0)

    found = triage(trajectory, loop_repeats=3)

    assert found.record.category == "premature-success" and not found.final


def test_different_missing_programs_on_different_tasks_are_one_pattern(store):
    rows = [
        rollout(
            store,
            task,
            step_list=[
                Step(
                    index=1,
                    reply="",
                    action=f"{program} data",
                    output=f"bash: line 1: {program}: command not found",
                    exit_code=127,
                ),
                Step(index=2, reply="", action="echo TASK_DONE", output="TASK_DONE", exit_code=0, finished=True),
            ],
        )
        for task, program in (("db-count", "sqlite3"), ("json-field", "jq"), ("db-sum", "sqlite3"))
    ]
    analyst = Analyst()

    analysis(store, analyst).process(rows)

    [pattern] = live(store)
    assert (pattern.category, pattern.support, pattern.status) == ("wrong-tool-missing-binary", 3, "promoted")
    causes = {row["task_id"]: row["root_cause"] for row in store.rows("failures")}
    assert "`sqlite3`" in causes["db-count"] and "`jq`" in causes["json-field"]
    missing = missing_programs(store.records(Failure))
    assert list(missing) == ["sqlite3", "jq"], "the program most tasks missed comes first"
    assert (missing["sqlite3"].tasks, missing["sqlite3"].calls) == (
        ["db-count", "db-sum"],
        {"sqlite3 data": "db-count"},
    )
    assert "Failed rollout" not in analyst.asked


def test_success_claimed_after_one_command_on_different_tasks_is_one_pattern(store):
    rows = [
        rollout(store, task, commands=(command,))
        for task, command in (
            ("csv-sum", "awk -F, '{s+=$2} END {print s}' a.csv > sum.txt"),
            ("log-grep", "grep -c ERROR app.log > errors.txt"),
        )
    ]
    analyst = Analyst()

    analysis(store, analyst).process(rows)

    [pattern] = live(store)
    assert (pattern.category, pattern.support, pattern.status) == ("no-verification", 2, "promoted")
    assert "Failed rollout" not in analyst.asked


@pytest.mark.parametrize(
    "exit_reason, blame", [("step_limit", "model"), ("time_limit", "model"), ("context_limit", "harness")]
)
def test_an_exhausted_limit_goes_to_the_analyzer_with_a_fallback_blame(exit_reason, blame):
    trajectory = Trajectory(
        task_id="t",
        trial=0,
        harness_hash="h",
        model="m",
        steps=steps("ls", "cat a", done=False),
        exit_reason=exit_reason,
        reward=0.0,
    )

    found = triage(trajectory, loop_repeats=3)

    assert (found.record.category, found.record.blame, found.final) == (exit_reason.replace("_", "-"), blame, False)


def test_a_wall_time_limit_spent_waiting_for_the_model_is_infrastructure():
    slow = Trajectory(
        task_id="t",
        trial=0,
        harness_hash="h",
        model="m",
        steps=steps("ls", done=False),
        exit_reason="time_limit",
        reward=0.0,
        duration_s=900.0,
    )
    busy = slow.model_copy(update={"steps": [Step(index=1, reply="", action="make", duration_s=800.0)]})

    found, worked = triage(slow, loop_repeats=3), triage(busy, loop_repeats=3)

    assert (found.infra, found.final, found.record.blame) == (True, True, "environment")
    assert (worked.infra, worked.record.category) == (False, "time-limit")


def test_an_analyzer_without_valid_output_records_the_triage_fallback(store):
    row = rollout(store, "csv-sum")
    scripted.register("mute", lambda messages: "I cannot answer in JSON, sorry.")
    failures = FailureAnalysis(store, LLM(models("mute"), store=store), FailuresConfig())

    failures.process([row])

    [failure] = store.rows("failures")
    assert (failure["source"], failure["category"]) == ("analyzer-failed", "premature-success")
    assert failure["analyzer_error"] and failure["confidence"] <= 0.3
    assert len(live(store)) == 1


def test_an_analyzed_rollout_is_not_analyzed_again(store):
    rows = [rollout(store, task) for task in ("csv-sum", "log-grep")]
    analyst = Analyst()
    failures = analysis(store, analyst)
    failures.process(rows[:1])

    failures.process(rows)

    assert analyst.asked.count("Failed rollout") == 2


# merging and splitting


def test_two_near_duplicate_patterns_are_merged_by_adjudication(store):
    rows = [rollout(store, "csv-sum"), rollout(store, "log-grep")]
    analyst = Analyst(causes={"log-grep": NEAR_DUPLICATE}, same=True)

    analysis(store, analyst).process(rows)

    [pattern] = live(store)
    [retired] = patterns(store, retired=True)[1:]
    assert "Same defect?" in analyst.asked
    assert (pattern.support, pattern.status) == (2, "promoted")
    assert (retired.status, retired.merged_into) == ("retired", pattern.id)


def test_near_duplicates_the_adjudicator_keeps_apart_stay_two_patterns(store):
    rows = [rollout(store, "csv-sum"), rollout(store, "log-grep"), rollout(store, "json-merge")]

    analysis(store, Analyst(causes={"log-grep": NEAR_DUPLICATE, "json-merge": NEAR_DUPLICATE}, same=False)).process(
        rows
    )

    assert sorted(p.support for p in live(store)) == [1, 2]


def test_a_merged_pattern_can_be_split_again_before_promotion(store):
    rows = [rollout(store, task) for task in ("csv-sum", "log-grep", "json-merge")]
    analyst = Analyst(causes={"json-merge": NEAR_DUPLICATE}, same=True, keep=[1])

    analysis(store, analyst).process(rows)

    kept, split_off = live(store)
    assert (kept.task_ids, kept.status) == (["csv-sum", "log-grep"], "promoted")
    assert (split_off.task_ids, split_off.status) == (["json-merge"], "candidate")


def test_unrelated_failures_open_separate_patterns_without_asking(store):
    rows = [rollout(store, "csv-sum"), rollout(store, "log-grep")]
    analyst = Analyst(causes={"log-grep": OTHER})

    analysis(store, analyst).process(rows)

    assert len(live(store)) == 2 and "Same defect?" not in analyst.asked


# resolution, evidence, rebuild


def test_a_pattern_that_does_not_recur_on_a_new_node_is_resolved_and_reopens_when_it_does(store):
    rows = [rollout(store, task) for task in ("csv-sum", "log-grep")]
    failures = analysis(store, Analyst())
    failures.process(rows)
    fixed = [rollout(store, task, node="n1", reward=1.0) for task in ("csv-sum", "log-grep")]
    failures.process(fixed)

    [resolved] = failures.resolve(["n1"], ["csv-sum", "log-grep"])
    failures.process([rollout(store, "csv-sum", node="n2", trial=5)])

    assert resolved.status == "resolved"
    [pattern] = live(store)
    assert pattern.status == "promoted" and pattern.node_ids == ["n0", "n2"]


def test_expanding_a_node_also_explains_the_failures_its_earlier_gates_ran_on_it_and_no_other_node_s(store):
    from harness_evo.config import RunConfig
    from harness_evo.evolve.patterns import Patterns

    scripted.register("analyst-gates", Analyst())
    config = RunConfig(models=models("analyst-gates"))
    gated = [rollout(store, task, trial=1) for task in ("csv-sum", "log-grep")]
    rollout(store, "json-merge", trial=1, node="child")
    minibatch = [rollout(store, "yaml-fix"), rollout(store, "sum-ok", reward=1.0)]

    Patterns(store, LLM(config.models, store=store), config, None).analyze(minibatch, "n0")

    assert sorted(row["rollout_id"] for row in store.rows("failures")) == sorted(
        row.id for row in [*gated, minibatch[0]]
    )
    [pattern] = live(store)
    assert pattern.task_ids == ["csv-sum", "log-grep", "yaml-fix"] and pattern.status == "promoted"


def test_pattern_evidence_gives_digested_traces_from_distinct_tasks(store):
    rows = [rollout(store, "csv-sum", trial=t) for t in range(3)] + [rollout(store, "log-grep")]
    analysis(store, Analyst()).process(rows)
    [pattern] = live(store)

    evidence = pattern_evidence(store, pattern.id, k=3, budget=300)

    assert sorted(item.task_id for item in evidence) == ["csv-sum", "log-grep"]
    assert all(count_tokens(item.digest) <= 300 and "echo done > out.txt" in item.digest for item in evidence)
    assert evidence[0].instruction.startswith("Task ")


def test_the_patterns_are_rebuilt_from_the_event_log(store):
    rows = [rollout(store, task) for task in ("csv-sum", "log-grep", "json-merge")]
    analysis(store, Analyst(causes={"json-merge": NEAR_DUPLICATE})).process(rows)
    before = snapshot(store)
    reopened = RunStore(store.folder)

    reopened.rebuild()

    assert snapshot(reopened) == before


# digests


def test_a_500_step_trajectory_is_digested_under_the_token_budget():
    looping = [
        Step(index=i, reply="try again", action="python3 solve.py", output="Traceback ...\n" + "x" * 3000, exit_code=1)
        for i in range(1, 401)
    ]
    wandering = [
        Step(index=i, reply="look", action=f"grep -n pattern{i} /var/log/app.log", output="line\n" * 400, exit_code=0)
        for i in range(401, 501)
    ]
    trajectory = Trajectory(
        task_id="t",
        trial=0,
        harness_hash="h",
        model="m",
        steps=looping + wandering,
        exit_reason="step_limit",
        reward=0.0,
        verifier_output="E" * 20000,
    )

    text = digest(trajectory, budget=2500)

    assert count_tokens(text) <= 2500
    assert "[steps 1-400] the same command 400 times: $ python3 solve.py" in text
    assert "grep -n pattern500" in text and "outcome: step_limit after 500 steps" in text


def test_a_short_trajectory_is_digested_whole():
    trajectory = Trajectory(task_id="t", trial=0, harness_hash="h", model="m", steps=steps("ls", "cat a"), reward=0.0)

    text = digest(trajectory, budget=2500)

    assert "[step 1] $ ls" in text and "output of cat a" in text and "[step 3] declares the task done" in text


# resume after a crash


CRASH_TASKS = ("csv-sum", "log-grep", "json-merge", "tar-pack", "sql-join")
CRASH_CAUSES = {"log-grep": NEAR_DUPLICATE, "tar-pack": OTHER}


def crash_world(store: RunStore) -> list[Rollout]:
    return [rollout(store, task, trial=trial) for task in CRASH_TASKS for trial in range(2)]


def snapshot(store: RunStore) -> list[tuple]:
    members = {}
    for member in store.rows("pattern_members"):
        members.setdefault(member["pattern_id"], []).append(member["failure_id"])
    return [
        (p.id, p.status, p.support, p.merged_into, sorted(members.get(p.id, []))) for p in patterns(store, retired=True)
    ]


def run_worker(folder: Path, stop_at: int | None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, __file__, str(folder), str(stop_at or 0)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )


@pytest.mark.slow
@pytest.mark.parametrize("stop_at", [3, 4, 6])
def test_killing_the_analysis_and_resuming_gives_the_same_patterns_as_an_uninterrupted_run(tmp_path, stop_at):
    uninterrupted = RunStore.create(tmp_path / "runs", "eval", run_id="whole")
    crash_world(uninterrupted)
    analysis(uninterrupted, Analyst(causes=CRASH_CAUSES)).process(uninterrupted.records(Rollout, order_by="rowid"))
    crashed = RunStore.create(tmp_path / "runs", "eval", run_id="crashed")
    crash_world(crashed)

    worker = run_worker(crashed.folder, stop_at)
    assert worker.stdout.readline().startswith(f"asked {stop_at}")
    worker.kill()
    worker.wait()
    resumed = run_worker(crashed.folder, None)
    resumed.communicate(timeout=300)

    assert resumed.returncode == 0
    assert snapshot(RunStore(crashed.folder)) == snapshot(uninterrupted)
    assert len(snapshot(uninterrupted)) == 3


def work(folder: Path, stop_at: int) -> None:
    """The worker: analyze every rollout of the run, stopping (to be killed) at the `stop_at`-th question."""
    store = RunStore(folder)
    analysis(store, Analyst(causes=CRASH_CAUSES, stop_at=stop_at or None)).process(
        store.records(Rollout, order_by="rowid")
    )


# the commands


def test_the_patterns_command_lists_patterns_and_shows_one_with_its_evidence(store, cli):
    rows = [rollout(store, task) for task in ("csv-sum", "log-grep")]
    analysis(store, Analyst()).process(rows)

    listed = cli("patterns", store.folder, "--json")
    shown = cli("patterns", store.folder, "P1")

    assert listed.exit_code == 0 and [p["id"] for p in json.loads(listed.stdout)] == ["P1"]
    assert shown.exit_code == 0
    assert "finishes without looking at the file it wrote" in shown.stdout and "csv-sum" in shown.stdout


def test_the_analyze_command_explains_the_failures_of_an_eval_run(store, cli):
    for task in ("csv-sum", "log-grep"):
        rollout(store, task)
    rollout(store, "json-merge", reward=1.0)
    scripted.register("cli-analyst", Analyst())

    result = cli("analyze", store.folder, "--model", "scripted/cli-analyst")

    assert result.exit_code == 0, result.output
    assert "promoted" in result.stdout
    assert len(store.rows("failures")) == 2


if __name__ == "__main__":
    work(Path(sys.argv[1]), int(sys.argv[2]))


def test_a_script_stands_in_for_a_data_tool_but_not_for_an_editor_an_installer_python_run_as_shell_or_the_done_marker():
    assert [scriptable(program) for program in ("sqlite3", "jq", "dos2unix")] == [True, True, True]
    assert [
        scriptable(program) for program in ("nano", "systemctl", "pip3", "wget", "import", "from", "task_done")
    ] == [False] * 7


def test_a_rollout_that_got_by_another_command_still_shows_how_the_agent_calls_a_missing_program(store):
    def missed(command: str, then: str) -> list[Step]:
        return [
            Step(index=1, reply="", action=command, output="bash: line 1: sqlite3: command not found", exit_code=127),
            Step(index=2, reply="", action=then, output="", exit_code=0),
            Step(index=3, reply="", action="echo TASK_DONE", output="TASK_DONE", exit_code=0, finished=True),
        ]

    rows = [
        rollout(store, "db-tables", step_list=missed("sqlite3 shop.db .tables", "")[:1]),
        rollout(
            store, "db-count", step_list=missed("sqlite3 shop.db 'SELECT count(*) FROM orders'", "python3 count.py")
        ),
        rollout(store, "db-sum", step_list=missed("sqlite3 shop.db 'SELECT sum(total) FROM orders'", "python3 sum.py")),
    ]
    analysis(store, Analyst()).process(rows)
    [pattern_id] = [
        row["pattern_id"]
        for row in store.rows("pattern_members")
        if store.record(Failure, row["failure_id"]).category == "wrong-tool-missing-binary"
    ]

    [sqlite3] = pattern_missing_programs(store, pattern_id).values()

    assert sqlite3.tasks == ["db-count", "db-sum", "db-tables"]
    assert sqlite3.calls == {
        "sqlite3 shop.db .tables": "db-tables",
        "sqlite3 shop.db 'SELECT count(*) FROM orders'": "db-count",
        "sqlite3 shop.db 'SELECT sum(total) FROM orders'": "db-sum",
    }
