"""Shared test set-up: the fixtures more than one test file uses."""

import signal
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from harness_evo.cli import app
from harness_evo.store import RunStore
from harness_evo.taskset import Task, load_task

# A test run started in the background (`cmd &` in a script) inherits SIGINT as ignored, and so would every
# process it starts; the Ctrl-C tests need the ordinary behaviour back.
signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def user_cache(tmp_path: Path, monkeypatch) -> Path:
    """The user cache folder (the response cache, assembled models) is the test's own; a module asks for it with
    `pytestmark = pytest.mark.usefixtures("user_cache")`."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("HARNESS_EVO_CACHE", str(cache))
    return cache


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    """A new, empty eval run folder."""
    return RunStore.create(tmp_path / "runs", "eval")


@pytest.fixture
def cli() -> Callable[..., Result]:
    """`cli(*args)`: the `harness-evo` command with these arguments, run in this process."""
    return lambda *args, **kwargs: CliRunner().invoke(app, [str(arg) for arg in args], **kwargs)


@pytest.fixture
def only_run() -> Callable[[Path], RunStore]:
    """`only_run(runs)`: the one run folder a command wrote under `runs`."""
    def only(runs: Path) -> RunStore:
        [folder] = runs.iterdir()
        return RunStore(folder)
    return only


def write_task(folder: Path, dockerfile: str = "FROM python:3.13-slim-bookworm\nWORKDIR /app\n",
               files: dict[str, str] | None = None, environment: str = "") -> Task:
    """A Harbor task folder with this Dockerfile, these environment files and these [environment] settings."""
    folder.mkdir(parents=True)
    (folder / "task.toml").write_text(f"[environment]\n{environment}\n")
    (folder / "instruction.md").write_text("Do nothing.\n")
    (folder / "tests").mkdir()
    (folder / "tests" / "test.sh").write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    (folder / "environment").mkdir()
    (folder / "environment" / "Dockerfile").write_text(dockerfile)
    for name, text in (files or {}).items():
        (folder / "environment" / name).write_text(text)
    return load_task(folder)


@pytest.fixture
def make_task() -> Callable[..., Task]:
    """`make_task(folder, dockerfile=..., files=..., environment=...)`: a task that does nothing, in `folder`."""
    return write_task
