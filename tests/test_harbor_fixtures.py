"""Real Harbor task folders (Terminal-Bench 2.0 and SkillsBench, in tests/fixtures/harbor) load as users bring them."""

from pathlib import Path

import pytest

from harness_evo.agent.task_skills import bundled
from harness_evo.harness import Harness
from harness_evo.harness.formats import import_harness
from harness_evo.taskset import load_suite

HARBOR = Path(__file__).parent / "fixtures" / "harbor"
BASH_AGENT = Path(__file__).parents[1] / "harnesses" / "bash-agent"


@pytest.mark.parametrize(
    ("benchmark", "tasks"),
    [
        ("terminal-bench-2", {"count-dataset-tokens", "polyglot-c-py", "prove-plus-comm"}),
        ("skillsbench", {"flood-risk-analysis", "gh-repo-analytics"}),
    ],
)
def test_every_real_task_loads_with_nothing_skipped(benchmark: str, tasks: set[str]):
    suite = load_suite(HARBOR / benchmark)
    assert set(suite.tasks) == tasks and suite.skipped == {}
    assert (HARBOR / benchmark / "LICENSE").read_text().lstrip().startswith("Apache License")
    for task in suite.tasks.values():
        assert task.instruction.strip() and task.category and task.dockerfile.is_file()
        assert task.agent_timeout_s == 900 and task.verifier_timeout_s == 900


def test_terminal_bench_sizes_are_read_as_harbor_writes_them():
    task = load_suite(HARBOR / "terminal-bench-2").tasks["prove-plus-comm"]
    assert (task.memory_mb, task.storage_mb, task.difficulty) == (2048, 10240, "easy")
    assert load_suite(HARBOR / "skillsbench").tasks["gh-repo-analytics"].memory_mb == 4096


def test_skills_a_skillsbench_task_brings_are_listed_and_installed():
    task = load_suite(HARBOR / "skillsbench").tasks["flood-risk-analysis"]
    skills, files = bundled(task)
    assert [skill.name for skill in skills] == ["flood-detection", "nws-flood-thresholds", "usgs-data-download"]
    assert all(skill.description for skill in skills)
    assert "/opt/harness/task-skills/usgs-data-download/SKILL.md" in files


def test_the_skills_of_a_skillsbench_task_import_into_a_harness(tmp_path: Path):
    skills = HARBOR / "skillsbench" / "flood-risk-analysis" / "environment" / "skills"
    imported = import_harness("skills", skills, tmp_path / "harness", base=Harness.load(BASH_AGENT))
    harness = Harness.load(tmp_path / "harness")
    assert {"flood-detection", "nws-flood-thresholds", "usgs-data-download"} <= {skill.name for skill in harness.skills}
    assert not any(note.startswith("refused") for note in imported.notes)
