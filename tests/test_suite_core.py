"""The built-in suite `tasks/core`: complete, valid, split cleanly; the oracle passes and doing nothing fails."""

import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from harness_evo.agent.evaluate import evaluate
from harness_evo.agent.session import session
from harness_evo.config import RunConfig
from harness_evo.store import RunStore
from harness_evo.taskset import SPLITS, load_suite
from harness_evo.taskset.task import CATEGORIES

CORE = Path(__file__).parents[1] / "tasks" / "core"
TASK_FOLDERS = sorted(path.parent for path in CORE.glob("*/task.toml"))
NETWORK_AT_BUILD = re.compile(r"\b(apt-get|apt|pip3?|curl|wget|git clone|npm)\b")


def test_suite_has_enough_tasks_across_enough_categories():
    suite = load_suite(CORE)
    assert not suite.skipped
    assert len(suite.tasks) >= 48
    assert len({task.category for task in suite.tasks.values()}) >= 8


@pytest.mark.parametrize("folder", TASK_FOLDERS, ids=lambda folder: folder.name)
def test_task_folder_is_complete_and_valid(folder: Path):
    config = tomllib.loads((folder / "task.toml").read_text())
    metadata = config["metadata"]
    assert metadata["category"] in CATEGORIES
    assert metadata["difficulty"] in ("easy", "medium", "hard")
    assert metadata["tags"] and all(isinstance(tag, str) for tag in metadata["tags"])
    assert config["agent"]["timeout_sec"] > 0 and config["verifier"]["timeout_sec"] > 0
    assert len((folder / "instruction.md").read_text().strip()) > 20
    dockerfile = (folder / "environment" / "Dockerfile").read_text()
    assert dockerfile.splitlines()[0].startswith("FROM ")
    run_lines = [line for line in dockerfile.splitlines() if line.strip().startswith("RUN")]
    assert not [line for line in run_lines if NETWORK_AT_BUILD.search(line)], "image builds must not need the network"
    assert "reward.txt" in " ".join(p.read_text() for p in (folder / "tests").iterdir() if p.is_file())
    assert (folder / "solution" / "solve.sh").is_file()


def test_splits_cover_every_task_once_and_every_split_sees_every_category():
    suite = load_suite(CORE)
    assigned = Counter(task_id for split in SPLITS for task_id in suite.splits[split])
    assert set(assigned) == set(suite.tasks) and set(assigned.values()) == {1}
    categories = {task.category for task in suite.tasks.values()}
    for split in SPLITS:
        assert {suite.tasks[task_id].category for task_id in suite.splits[split]} == categories, split
    share = {split: len(suite.splits[split]) / len(suite.tasks) for split in SPLITS}
    assert 0.5 <= share["train"] <= 0.7 and 0.18 <= share["dev"] <= 0.32 and 0.1 <= share["test"] <= 0.22


def answers_of(folder: Path) -> set[str]:
    """Quoted literals of a task's tests long enough to be an answer rather than a path or a keyword."""
    text = " ".join(p.read_text(errors="replace") for p in (folder / "tests").rglob("*") if p.is_file())
    return {s for s in re.findall(r"['\"]([^'\"\n]{10,})['\"]", text) if not s.startswith("/") and " " in s.strip()}


def test_no_task_id_or_expected_answer_leaks_into_another_splits_instructions():
    suite = load_suite(CORE)
    for split in SPLITS:
        others = [task for name in SPLITS if name != split for task in suite.split(name)]
        for task in suite.split(split):
            for other in others:
                assert other.id not in task.instruction, f"{task.id} names {other.id}"
                for answer in answers_of(other.folder):
                    assert answer not in task.instruction, f"{task.id} quotes an expected answer of {other.id}"


@pytest.mark.docker
@pytest.mark.parametrize(("agent", "expected"), [("oracle", 1.0), ("noop", 0.0)])
def test_oracle_scores_one_and_doing_nothing_scores_zero_on_every_task(tmp_path: Path, agent: str, expected: float):
    config = RunConfig(tasks=CORE, split="all", agent=agent)
    config.executor.workers = 2
    store = RunStore.create(tmp_path, "eval")
    with session(store, config) as run:
        evaluate(run)
    rewards = {
        row["task_id"]: (row.get("reward"), row["exit_reason"], row.get("error")) for row in store.rows("rollouts")
    }
    assert len(rewards) == len(load_suite(CORE).tasks)
    wrong = {task: got for task, got in rewards.items() if got[0] != expected}
    assert not wrong, f"{agent} should score {expected} everywhere: {wrong}"
