"""The input-conditioning gauge: an agent that runs the same commands whatever the task scores chance identifiability, no
category dependence and a full template share; one that reads the task scores high. End to end, an accepted tool the
scripted agent then calls on every task (the lure) is flagged in the ledger, or refused with `conditioning = "refuse"`."""

from harness_evo.agent.actions import programs
from harness_evo.agent.trajectory import Step, Trajectory
from harness_evo.failures.conditioning import gauge

CATEGORIES = {"sales": "csv", "stock": "csv", "events": "json", "users": "json", "errors": "logs", "visits": "logs"}
READS = {"csv": ("python3 -c 'import csv' {task}.csv", "head -3 /app/{task}.out"),
         "json": ("jq '.[] | .id' {task}.json", "jq . /app/{task}.out"),
         "logs": ("grep -c ERROR {task}.log", "tail -3 /app/{task}.out")}


def rollout(task_id: str, trial: int, *commands: str) -> Trajectory:
    steps = [Step(index=k, reply=f"```bash\n{command}\n```", action=command) for k, command in enumerate(commands)]
    return Trajectory(task_id=task_id, trial=trial, harness_hash="h", model="scripted/x", steps=steps, reward=1.0)


def test_programs_are_read_past_operators_keywords_and_redirections():
    assert programs("cd /app && python3 -c \"import x; print(1)\" | head -3") == ["cd", "python3", "head"]
    assert programs("for f in *.csv; do wc -l $f; done > out.txt 2>&1") == ["wc"]
    assert programs("sudo /usr/bin/sqlite3 db 'select 1' < q.sql") == ["sqlite3"]
    assert programs("cat > a.py <<EOF\nimport os\nprint(1)\nEOF\npython3 a.py") == ["cat", "python3"]


def test_an_agent_that_runs_the_same_commands_on_every_task_scores_chance():
    same = [rollout(task, trial, "ls /app", "lure --all", "echo TASK_DONE") for task in CATEGORIES for trial in range(3)]

    found = gauge(same, CATEGORIES)

    assert found.rollouts == 18 and found.identifiability.n == 18 and found.categories == 3
    assert abs(found.identifiability.value - found.chance) < 0.01 and abs(found.chance - 2 / 17) < 1e-9
    assert found.dependence.value < 0.01 and found.template.value == 1.0


def test_an_agent_that_reads_the_task_scores_high():
    reading = [rollout(task, trial, *(command.format(task=task) for command in READS[category]), "echo TASK_DONE")
               for task, category in CATEGORIES.items() for trial in range(3)]

    found = gauge(reading, CATEGORIES)

    assert found.identifiability.value == 1.0 and found.chance < 0.15
    assert found.dependence.value > 0.7 and found.template.value == 0.0
    assert found.compact() == "id 1.00/0.12 dep 0.79 tpl 0.00 n18"


def test_only_tasks_with_two_rollouts_count_and_one_category_has_no_dependence():
    once = [rollout(task, 0, f"cat {task}") for task in CATEGORIES]
    found = gauge(once, {task: "csv" for task in CATEGORIES})
    assert found.identifiability.value is None and found.identifiability.n == 0 and found.chance is None
    assert found.dependence.value is None and found.template.value is None and found.template.n == 6
    assert found.compact() == "id - dep - tpl - n6"
