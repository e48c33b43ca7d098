"""A suite: a folder of task folders, with train/dev/test splits from `suite.toml` or a seeded stratified split."""

import hashlib
import os
import random
import tomllib
from collections import defaultdict
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from harness_evo.config import one_line
from harness_evo.errors import TaskError
from harness_evo.taskset.task import Task, load_task

SPLITS = ("train", "dev", "test")
SPLIT_SHARES = {"train": 0.6, "dev": 0.25, "test": 0.15}
SUITE_FILE = "suite.toml"


class Suite(BaseModel):
    """The loaded tasks of a folder, its splits and the task folders that were skipped (with why)."""

    folder: Path
    name: str
    tasks: dict[str, Task]
    splits: dict[str, list[str]]
    skipped: dict[str, str] = Field(default_factory=dict)
    """Folder name -> why it could not be loaded."""

    def split(self, name: str) -> list[Task]:
        if name == "all":
            return list(self.tasks.values())
        if name not in self.splits:
            raise TaskError(f"{self.folder}: no split {name!r}; splits are {', '.join(self.splits)} (or all)")
        return [self.tasks[task_id] for task_id in self.splits[name]]

    def split_of(self, task_id: str) -> str:
        return next((name for name, ids in self.splits.items() if task_id in ids), "train")


class SuiteInfo(BaseModel):
    """`[suite]` of suite.toml."""

    name: str | None = None
    """The suite's name; default: its folder's."""


class SuiteToml(BaseModel):
    """suite.toml: the suite's name and its splits (other keys are ignored)."""

    suite: SuiteInfo = Field(default_factory=SuiteInfo)
    splits: dict[str, list[str]] = Field(default_factory=dict)
    """Split name -> the ids of its tasks; none: a seeded stratified split."""


def load_suite(folder: Path, seed: int = 0) -> Suite:
    folder = Path(folder)
    if not folder.is_dir():
        raise TaskError(f"{folder}: no such task folder")
    if (folder / "task.toml").is_file():
        task_folders = [folder]
    else:
        task_folders = task_folders_under(folder)
    tasks, skipped = {}, {}
    for task_folder in task_folders:
        try:
            task = load_task(task_folder)
        except TaskError as e:
            skipped[task_folder.name] = str(e)
            continue
        if task.id in tasks:
            skipped[task.id] = f"{task_folder}: a second task with the id {task.id}"
            continue
        tasks[task.id] = task
    if not tasks:
        reason = f"; skipped: {next(iter(skipped.values()))}" if skipped else ""
        raise TaskError(f"{folder}: no loadable task folder (a folder with task.toml){reason}")
    config = _read_suite_toml(folder)
    splits = config.splits or seeded_splits(list(tasks.values()), seed)
    unknown = sorted({task_id for ids in splits.values() for task_id in ids} - tasks.keys() - skipped.keys())
    if unknown:
        raise TaskError(f"{folder / 'suite.toml'}: splits name tasks that do not exist: {', '.join(unknown[:5])}")
    splits = {name: [task_id for task_id in ids if task_id in tasks] for name, ids in splits.items()}
    name = config.suite.name or folder.name
    return Suite(folder=folder.resolve(), name=name, tasks=tasks, splits=splits, skipped=skipped)


def task_folders_under(folder: Path) -> list[Path]:
    """The folders holding a task.toml under `folder`, symlinked folders included; a folder reached twice (a symlink
    loop, or a link to a folder that is also there) is read once."""
    found, seen = [], set()
    for root, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in seen:
            dirs.clear()
            continue
        seen.add(real)
        dirs.sort()
        if "task.toml" in files:
            found.append(Path(root))
    return sorted(found)


def _read_suite_toml(folder: Path) -> SuiteToml:
    path = folder / "suite.toml"
    if not path.is_file():
        return SuiteToml()
    try:
        return SuiteToml.model_validate(tomllib.loads(path.read_text()))
    except UnicodeDecodeError:
        raise TaskError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise TaskError(f"{path}: bad TOML: {e}") from None
    except ValidationError as e:
        raise TaskError(f"{path}: {one_line(e)}") from None


def seeded_splits(tasks: list[Task], seed: int) -> dict[str, list[str]]:
    """Split each category 60/25/15 (rounded, at least one train task per category) with a fixed seed."""
    by_category: dict[str, list[str]] = defaultdict(list)
    for task in tasks:
        by_category[task.category].append(task.id)
    splits: dict[str, list[str]] = {name: [] for name in SPLITS}
    rng = random.Random(seed)
    for category in sorted(by_category):
        ids = sorted(by_category[category])
        rng.shuffle(ids)
        n_dev = round(len(ids) * SPLIT_SHARES["dev"])
        n_test = round(len(ids) * SPLIT_SHARES["test"])
        n_dev, n_test = (n_dev, n_test) if len(ids) - n_dev - n_test >= 1 else (0, 0)
        splits["dev"] += ids[:n_dev]
        splits["test"] += ids[n_dev : n_dev + n_test]
        splits["train"] += ids[n_dev + n_test :]
    return {name: sorted(ids) for name, ids in splits.items()}


def suite_digest(suite: Suite) -> dict[str, str]:
    """A content hash of each task folder of the suite (by task id) and of its suite.toml, which holds the splits."""
    digest = {task_id: folder_hash(task.folder) for task_id, task in sorted(suite.tasks.items())}
    if (suite.folder / SUITE_FILE).is_file():
        digest[SUITE_FILE] = hashlib.sha256((suite.folder / SUITE_FILE).read_bytes()).hexdigest()
    return digest


def folder_hash(folder: Path) -> str:
    """sha256 of every file under `folder`, each with its path relative to it."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(f"{path.relative_to(folder).as_posix()}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()
