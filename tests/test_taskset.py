"""Loading Harbor task folders and suites, with their splits."""

import json
from pathlib import Path

import pytest

from harness_evo.errors import TaskError
from harness_evo.taskset import load_suite, load_task

HARNESS = Path(__file__).parents[1] / "harnesses" / "bash-agent"


def make_task(root: Path, name: str, category: str = "files", toml: str | None = None, skip: str | None = None) -> Path:
    folder = root / name
    files = {
        "task.toml": toml
        if toml is not None
        else (
            f'version = "1.0"\n[metadata]\ncategory = "{category}"\ndifficulty = "easy"\ntags = ["t"]\n[agent]\n'
            "timeout_sec = 120\n[verifier]\ntimeout_sec = 30\n"
        ),
        "instruction.md": f"Do {name}.\n",
        "environment/Dockerfile": "FROM python:3.11-slim-bookworm\nWORKDIR /app\n",
        "tests/test.sh": "echo 1 > /logs/verifier/reward.txt\n",
        "solution/solve.sh": "true\n",
    }
    for relative, text in files.items():
        if relative == skip:
            continue
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text)
    return folder


def test_task_fields_come_from_task_toml(tmp_path: Path):
    task = load_task(make_task(tmp_path, "count-lines", category="text-processing"))
    assert (task.id, task.category, task.difficulty, task.tags) == ("count-lines", "text-processing", "easy", ["t"])
    assert (task.agent_timeout_s, task.verifier_timeout_s, task.allow_internet) == (120, 30, False)
    assert task.instruction == "Do count-lines."


@pytest.mark.parametrize(
    ("environment", "memory_mb", "storage_mb"),
    [
        ('memory = "2G"\nstorage = "10G"', 2048, 10240),  # as Terminal-Bench 2.0 writes them
        ("memory_mb = 4096\nstorage_mb = 20480", 4096, 20480),  # as Harbor documents them now
        ('memory = "512MiB"', 512, None),
        ("", None, None),
    ],
)
def test_memory_and_storage_are_read_in_both_of_harbors_spellings(tmp_path: Path, environment, memory_mb, storage_mb):
    folder = make_task(tmp_path, "sized")
    (folder / "task.toml").write_text((folder / "task.toml").read_text() + f"\n[environment]\n{environment}\n")
    task = load_task(folder)
    assert (task.memory_mb, task.storage_mb) == (memory_mb, storage_mb)


@pytest.mark.parametrize(
    ("skip", "toml", "problem"),
    [
        ("tests/test.sh", None, "tests/test.sh: missing"),
        ("instruction.md", None, "instruction.md: missing"),
        (None, "[metadata\n", "task.toml: bad TOML"),
        (None, "[agent]\ntimeout_sec = 'soon'\n", "task.toml: could not convert"),
        (None, 'metadata = "files"\n', r"task.toml: \[metadata\] must be a table, not the str 'files'"),
        (None, '[metadata]\ntags = "csv"\n', "task.toml: metadata.tags must be a list of strings, not 'csv'"),
        (None, '[environment]\ncpus = "two"\n', "task.toml: cpus: Input should be a valid number"),
        (None, '[environment]\nmemory = "lots"\n', 'task.toml: environment.memory must be a size such as "2G"'),
    ],
)
def test_broken_task_folder_is_named_with_its_problem(tmp_path: Path, skip, toml, problem):
    with pytest.raises(TaskError, match=problem):
        load_task(make_task(tmp_path, "broken", toml=toml, skip=skip))


def test_suite_skips_what_it_cannot_load_with_a_reason(tmp_path: Path):
    make_task(tmp_path, "good")
    make_task(
        tmp_path, "prebuilt", toml='[environment]\ndocker_image = "ghcr.io/x/y:1"\n', skip="environment/Dockerfile"
    )
    suite = load_suite(tmp_path)
    assert list(suite.tasks) == ["good"]
    assert "prebuilt image ghcr.io/x/y:1" in suite.skipped["prebuilt"]


def test_seeded_split_is_stratified_stable_and_covers_every_task_once(tmp_path: Path):
    for category in ("files", "git", "sqlite"):
        for i in range(8):
            make_task(tmp_path, f"{category}-{i}", category=category)
    suite = load_suite(tmp_path, seed=3)
    assert load_suite(tmp_path, seed=3).splits == suite.splits
    ids = [task_id for split in suite.splits.values() for task_id in split]
    assert sorted(ids) == sorted(suite.tasks) and len(ids) == len(set(ids))
    for split in ("train", "dev", "test"):
        assert {suite.tasks[t].category for t in suite.splits[split]} == {"files", "git", "sqlite"}
    assert len(suite.splits["train"]) > len(suite.splits["dev"]) > len(suite.splits["test"])


def test_suite_toml_fixes_the_splits_and_unknown_ids_are_errors(tmp_path: Path):
    for name in ("a", "b", "c"):
        make_task(tmp_path, name)
    (tmp_path / "suite.toml").write_text('[splits]\ntrain = ["a", "b"]\ndev = ["c"]\ntest = []\n')
    suite = load_suite(tmp_path)
    assert [t.id for t in suite.split("dev")] == ["c"] and suite.split_of("a") == "train"
    with pytest.raises(TaskError, match="no split 'holdout'"):
        suite.split("holdout")
    (tmp_path / "suite.toml").write_text('[splits]\ntrain = ["a", "zzz"]\n')
    with pytest.raises(TaskError, match="zzz"):
        load_suite(tmp_path)


def test_empty_folder_is_a_clear_error(tmp_path: Path):
    with pytest.raises(TaskError, match="no loadable task folder"):
        load_suite(tmp_path)


def test_a_suite_loads_symlinked_task_folders_and_survives_a_symlink_loop(tmp_path: Path):
    elsewhere = tmp_path / "elsewhere"
    make_task(elsewhere, "linked-task")
    suite_folder = tmp_path / "suite"
    make_task(suite_folder, "own-task")
    (suite_folder / "linked-task").symlink_to(elsewhere / "linked-task")
    (suite_folder / "loop").symlink_to(suite_folder)

    suite = load_suite(suite_folder)

    assert sorted(suite.tasks) == ["linked-task", "own-task"] and not suite.skipped


def test_tasks_lists_a_suites_tasks_and_says_which_folders_were_skipped_and_why(cli, tmp_path: Path):
    make_task(tmp_path / "suite", "count-lines", category="text")
    make_task(tmp_path / "suite", "sum-numbers", category="data")
    make_task(tmp_path / "suite", "broken", skip="tests/test.sh")

    shown = " ".join(cli("tasks", tmp_path / "suite").output.split())
    assert "count-lines" in shown and "sum-numbers" in shown and "2 tasks" in shown
    assert "skipped 1 task folder(s) that could not be loaded: broken:" in shown and "test.sh: missing" in shown

    facts = json.loads(cli("tasks", tmp_path / "suite", "--json").output)
    assert [row["id"] for row in facts["tasks"]] == ["count-lines", "sum-numbers"] and list(facts["skipped"]) == [
        "broken"
    ]
    assert facts["categories"] == {"data": 1, "text": 1}


def test_eval_says_which_task_folders_it_skipped_at_the_start_and_in_its_summary(cli, tmp_path: Path):
    make_task(tmp_path / "suite", "good")
    make_task(tmp_path / "suite", "broken", skip="instruction.md")
    (tmp_path / "suite" / "suite.toml").write_text('[splits]\ntrain = []\ndev = ["good"]\ntest = []\n')

    result = cli(
        "eval",
        "--harness",
        HARNESS,
        "--tasks",
        tmp_path / "suite",
        "--agent",
        "oracle",
        "--sandbox",
        "local",
        "--runs",
        tmp_path / "runs",
    )

    assert result.exit_code == 0, result.output
    shown = " ".join(result.output.split())
    assert shown.count("skipped 1 task folder(s) that could not be loaded: broken:") == 2, result.output


def test_a_binary_instruction_is_named_as_such(tmp_path: Path):
    folder = make_task(tmp_path, "binary")
    (folder / "instruction.md").write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(TaskError, match="instruction.md: not UTF-8 text"):
        load_task(folder)


def test_a_user_error_is_one_line_that_keeps_its_brackets(tmp_path: Path, monkeypatch, capsys):
    from harness_evo import cli

    make_task(tmp_path / "suite", "broken", toml='metadata = "files"\n')
    monkeypatch.setattr("sys.argv", ["harness-evo", "tasks", str(tmp_path / "suite")])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    error = " ".join(capsys.readouterr().err.split())
    assert exit_.value.code == 2 and "[metadata] must be a table" in error and "Traceback" not in error
