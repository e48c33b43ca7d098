"""Shared test set-up: the tiers (markers), and the fixtures and helpers more than one test file uses.

Tiers: a test marked `docker`, `embedded` or `ray` is also `slow`, as is one marked `slow` itself (a fault injected into
a child process, a second process holding a run, hypothesis at length, a bench script run as a program); `pytest -m
"not slow"` is the fast tier. A `docker`
test is skipped when no Docker engine answers and an `embedded` one when the embedded model or a llama.cpp server is not
installed, with the reason on one line of the summary.
"""

import contextlib
import functools
import importlib.util
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TextIO

import pytest
from click.testing import Result
from typer.testing import CliRunner

from harness_evo import entry, world
from harness_evo.cli import app
from harness_evo.config import EmbeddedConfig, RunConfig
from harness_evo.errors import SandboxUnavailable
from harness_evo.evolve import session
from harness_evo.llm import embedded, llama, scripted
from harness_evo.sandbox.docker import connect
from harness_evo.store import Edit, EditStatus, RunStore
from harness_evo.store.info import EvolutionSummary
from harness_evo.taskset import Task, load_task

ROOT = Path(__file__).parents[1]
SLOW = ("docker", "embedded", "ray")
"""Markers that make a test slow too."""

# A test run started in the background (`cmd &` in a script) inherits SIGINT as ignored, and so would every
# process it starts; the Ctrl-C tests need the ordinary behaviour back.
signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if any(item.get_closest_marker(marker) for marker in SLOW):
            item.add_marker(pytest.mark.slow)


@functools.cache
def docker_missing() -> str | None:
    """Why `docker` tests cannot run here, or None."""
    try:
        connect().close()
    except SandboxUnavailable as e:
        return f"Docker tests skipped: {e}"
    return None


@functools.cache
def embedded_missing() -> str | None:
    """Why `embedded` tests cannot run here, or None."""
    if absent := [name for name in embedded.EMBEDDED if embedded.parts(name) is None]:
        return f"embedded-model tests skipped: {', '.join(absent)} not installed; {embedded.INSTALL_HINT}"
    if not llama.llama_server_binary(EmbeddedConfig()) and not importlib.util.find_spec("llama_cpp"):
        return (
            "embedded-model tests skipped: neither llama-server nor llama-cpp-python is installed (bash "
            "scripts/setup.sh)"
        )
    return None


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, missing in (("docker", docker_missing), ("embedded", embedded_missing)):
        if item.get_closest_marker(marker) and (reason := missing()):
            pytest.skip(reason)


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
def one_line_error(monkeypatch, capsys) -> Callable[..., str]:
    """`one_line_error(*argv)`: `harness-evo ARGV` run as its entry point runs it, which must fail with exit code 2 and
    one line of error; that line."""

    def run(*argv: object) -> str:
        monkeypatch.setattr("sys.argv", ["harness-evo", *map(str, argv)])
        with pytest.raises(SystemExit) as exit_:
            entry.main()
        error = capsys.readouterr().err.strip()
        assert exit_.value.code == 2 and "\n" not in error and "Traceback" not in error, error
        return error

    return run


@pytest.fixture
def only_run() -> Callable[[Path], RunStore]:
    """`only_run(runs)`: the one run folder a command wrote under `runs`."""

    def only(runs: Path) -> RunStore:
        [folder] = runs.iterdir()
        return RunStore(folder)

    return only


def write_task(
    folder: Path,
    dockerfile: str = "FROM python:3.13-slim-bookworm\nWORKDIR /app\n",
    files: dict[str, str] | None = None,
    environment: str = "",
) -> Task:
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


class Stub(ThreadingHTTPServer):
    """A tiny OpenAI-compatible chat server on 127.0.0.1: it answers with a scripted function of the messages and keeps
    each request's Authorization header, so a test can tell which key the client sent. `url` is its base URL (…/v1),
    `keys` the Authorization headers it was sent."""

    daemon_threads = True

    def __init__(self, reply: Callable[[list[dict]], str], status: int = 200):
        super().__init__(("127.0.0.1", 0), StubHandler)
        self.reply, self.status = reply, status
        self.keys: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class StubHandler(BaseHTTPRequestHandler):
    server: Stub

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        key = self.headers.get("Authorization", "")
        self.server.keys.append(key)
        if self.server.status != 200:  # as a careless proxy does: the key it was sent, in its error message
            return self.answer(
                self.server.status,
                {
                    "error": {
                        "message": f"Incorrect API key provided: {key}",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
        text = self.server.reply(body["messages"])
        self.answer(
            200,
            {
                "id": "chat-1",
                "object": "chat.completion",
                "created": 0,
                "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
            },
        )

    def answer(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *values):
        pass


@contextmanager
def serving(reply: Callable[[list[dict]], str], status: int = 200) -> Iterator[Stub]:
    """A stub answering `reply(messages)` (or failing every request with `status`) while the block runs."""
    stub = Stub(reply, status)
    thread = threading.Thread(target=stub.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        stub.shutdown()
        stub.server_close()


@pytest.fixture
def openai_stub() -> Callable[..., AbstractContextManager[Stub]]:
    """`with openai_stub(reply, status=200) as stub:` an OpenAI-compatible server answering `reply(messages)` (see
    Stub)."""
    return serving


REPORTING = """
import sys
from harness_evo.agent import evaluate as evaluation
from harness_evo.cli import main

reports, evaluate = open(int(sys.argv.pop(1)), "w", buffering=1), evaluation.evaluate

def reporting(run):
    store, on_progress = run.store, run.executor.on_progress

    def progress(kind, row):
        on_progress(kind, row)
        if kind == "finished":
            print(store.folder, file=reports)
    run.executor.on_progress = progress
    return evaluate(run)

evaluation.evaluate = reporting
main()
"""
"""`harness-evo ARGS`, which also writes its run folder on the file descriptor it is given each time it stores a
rollout."""


class Reporting:
    """`harness-evo ARGS` in a child process that tells the test, on a pipe, each time it stores a rollout."""

    @staticmethod
    def start(*args: object, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, TextIO]:
        """The command running, and its reports (a folder per line); keep them open until it ends: it writes on."""
        read_end, write_end = os.pipe()
        process = subprocess.Popen(
            [sys.executable, "-c", REPORTING, str(write_end), *map(str, args)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            pass_fds=(write_end,),
        )
        os.close(write_end)
        return process, open(read_end)

    @staticmethod
    def first_stored(reports: TextIO, timeout_s: float) -> Path | None:
        """The run folder of the first rollout stored within `timeout_s`, else None."""
        stored, _, _ = select.select([reports], [], [], timeout_s)
        return Path(reports.readline().strip()) if stored else None

    @staticmethod
    def ctrl_c(process: subprocess.Popen, within_s: float) -> None:
        """Press Ctrl-C on the command: it must end within `within_s` as interrupted, with no traceback."""
        interrupted = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=120)
        assert time.monotonic() - interrupted < within_s, "Ctrl-C should stop eval promptly"
        assert process.returncode == 130 and "interrupted" in stderr and "Traceback" not in stderr, stderr


@pytest.fixture
def reporting() -> type[Reporting]:
    """`reporting.start(*args)`, `.first_stored(reports, timeout_s)`, `.ctrl_c(process, within_s)`: see Reporting."""
    return Reporting


# The words suite: a task per word, the file to write named by its absolute path; `sun` says to go step by step.

WORDS = {"train": ["sun", "moon", "star"], "dev": ["rain", "snow"]}
BASH_AGENT = ROOT / "harnesses" / "bash-agent"


def words_suite(root: Path) -> Path:
    for word in WORDS["train"] + WORDS["dev"]:
        folder = root / word
        (folder / "environment").mkdir(parents=True)
        (folder / "tests").mkdir()
        (folder / "task.toml").write_text(
            '[metadata]\ncategory = "files"\ndifficulty = "easy"\n[agent]\ntimeout_sec = 120\n[verifier]\n'
            "timeout_sec = 30\n"
        )
        hint = " Go step by step." if word == "sun" else ""
        (folder / "instruction.md").write_text(f"Write the word {word} into /app/{word}.txt.{hint}\n")
        (folder / "environment" / "Dockerfile").write_text("FROM python:3.11-slim-bookworm\nWORKDIR /app\n")
        (folder / "solution").mkdir()
        (folder / "solution" / "solve.sh").write_text(
            f"#!/bin/bash\nset -euo pipefail\n# write it, then show it\necho {word} > /app/{word}.txt\n"
            f"cat /app/{word}.txt\n"
        )
        (folder / "tests" / "test.sh").write_text(
            f'#!/bin/bash\nif [ "$(cat /app/{word}.txt 2>/dev/null)" = "{word}" ]; then echo 1 > '
            "/logs/verifier/reward.txt; "
            "else echo 0 > /logs/verifier/reward.txt; fi\n"
        )
    (root / "suite.toml").write_text(
        f"[splits]\ntrain = {json.dumps(WORDS['train'])}\ndev = {json.dumps(WORDS['dev'])}\ntest = []\n"
    )
    return root


def words_config(tmp_path: Path, solver: Callable[[list[dict]], str], moves: list[str]) -> RunConfig:
    """One iteration of evolving the default harness on the words suite with these `moves`, gated in turn (the tests
    assert that gate's tasks); `solver` is the scripted solver, the other roles are the scripted world's."""
    world.register("harvest-world")
    name = f"harvest-{solver.__name__}-{tmp_path.name}"
    scripted.register(name, solver, token=name)
    config = RunConfig(kind="evolve", harness=BASH_AGENT, tasks=words_suite(tmp_path / "tasks"))
    config.search = config.search.model_copy(update={"moves": moves, "dev_trials": 3, "gate": "in-turn"})
    for role in world.ROLES:
        config.models.role(role).model = f"scripted/world-{role}"
    config.models.solver.model = f"scripted/{name}"
    config.executor.workers = 2
    config.budget = config.budget.model_copy(update={"max_iterations": 1})
    return config


@pytest.fixture
def harvest_config() -> Callable[..., RunConfig]:
    """`harvest_config(tmp_path, solver, moves)`: an evolve configuration on the words suite (see words_config)."""
    return words_config


def words_eval(
    cli,
    tmp_path: Path,
    solver: Callable[[list[dict]], str],
    split: str,
    harness: Path = BASH_AGENT,
    agent: str = "model",
) -> str:
    """`harness-evo eval` of `harness` on a split of the words suite with the scripted `solver` (or `agent`), run from
    `tmp_path` with the suite's relative path; the run's id."""
    name = f"harvest-cli-{solver.__name__}-{tmp_path.name}"
    scripted.register(name, solver, token=name)
    if not (tmp_path / "tasks").exists():
        words_suite(tmp_path / "tasks")
    before = set((tmp_path / "runs").glob("*")) if (tmp_path / "runs").exists() else set()
    with contextlib.chdir(tmp_path):
        result = cli(
            "eval",
            "--harness",
            harness,
            "--tasks",
            "tasks",
            "--split",
            split,
            "--trials",
            2,
            "--model",
            f"scripted/{name}",
            "--agent",
            agent,
            "--runs",
            tmp_path / "runs",
        )
    assert result.exit_code == 0, result.output
    [run] = set((tmp_path / "runs").glob("*")) - before
    return run.name


@pytest.fixture
def eval_words() -> Callable[..., str]:
    """`eval_words(cli, tmp_path, solver, split, harness=..., agent=...)`:
    an eval on the words suite (see words_eval)."""
    return words_eval


# The scripted world with a solver that reaches for `putword`, a program that is not installed.


def putword_solver(messages: list[dict]) -> str:
    """Writes the word with `putword` when the task names a relative file, then says it is done."""
    word, name = world.TASK.search(messages[1]["content"]).groups()
    if any(message["role"] == "assistant" for message in messages):
        return world.bash("echo TASK_DONE")
    return world.bash(f"echo {word} > {name}" if name.startswith("/") else f"putword {word} {name}")


def putword_world(
    tmp_path: Path, toolsmith: Callable[[list[dict]], str], token: str, harness: Path
) -> tuple[Path, RunStore, EvolutionSummary]:
    """One iteration of the world with the `putword` solver, `toolsmith` as the proposer model, from `harness`."""
    scripted.register("world-solver", putword_solver, token=f"{token}-solver")
    scripted.register("world-proposer", toolsmith, token=f"{token}-proposer")
    config = world.config()
    config.harness = harness
    config.acceptance = config.acceptance.model_copy(update={"unsolved_after": 1})
    summary = session.run(session.start(config, tmp_path / "runs"))
    [folder] = (tmp_path / "runs").iterdir()
    return folder, RunStore(folder), summary


@pytest.fixture
def run_putword_world() -> Callable[..., tuple[Path, RunStore, EvolutionSummary]]:
    """`run_putword_world(tmp_path, toolsmith, token, harness)`:
    one iteration of the putword world (see putword_world)."""
    return putword_world


# Small pieces of the harness features' and moves' tests.


def hidden_log_task(tmp_path: Path) -> Path:
    """A task whose log file has a name the instruction does not give: only a listing of the working folder shows it."""
    task = tmp_path / "tasks" / "hidden-log"
    (task / "environment").mkdir(parents=True)
    (task / "tests").mkdir()
    (task / "task.toml").write_text(
        '[metadata]\ncategory = "files"\n[agent]\ntimeout_sec = 120\n[verifier]\ntimeout_sec = 30\n'
    )
    (task / "instruction.md").write_text(
        "Append the line `finished` to the log file in the working folder, as notes.txt asks.\n"
    )
    (task / "environment" / "Dockerfile").write_text(
        "FROM python:3.11-slim-bookworm\nWORKDIR /app\n"
        "RUN echo started > /app/run-7f3a.log && echo 'Keep the log file as it is, only add to it.' > /app/notes.txt\n"
    )
    (task / "tests" / "test.sh").write_text(
        '#!/bin/bash\nif [ "$(cat /app/run-7f3a.log)" = "$(printf \'started\\nfinished\')" ]; then echo 1; else echo '
        "0; fi"
        " > /logs/verifier/reward.txt\n"
    )
    return task


@pytest.fixture(name="hidden_log_task")
def hidden_log_task_fixture() -> Callable[[Path], Path]:
    """`hidden_log_task(folder)`: a task only a listing of the working folder solves (see hidden_log_task)."""
    return hidden_log_task


def log_writer(messages: list[dict]) -> str:
    """Writes to the log file its first prompt names, or, seeing none, to the name a guess gives."""
    if len(messages) > 2:
        return world.bash("echo TASK_DONE")
    named = re.findall(r"[\w.-]+\.log\b", messages[1]["content"])
    return world.bash(f"echo finished >> /app/{named[0] if named else 'app.log'}")


@pytest.fixture(name="log_writer")
def log_writer_fixture() -> Callable[[list[dict]], str]:
    """The scripted solver that writes to the log file its first prompt names (see log_writer)."""
    return log_writer


def gated(
    move: str,
    iteration: int,
    status: EditStatus = EditStatus.REJECTED_EMPIRICAL,
    fixed: int = 0,
    broken: int = 0,
    pairs: int = 10,
) -> Edit:
    """An edit of `move` made at `iteration` and gated with these counts."""
    return Edit(
        id=f"i{iteration}-r0-0",
        iteration=iteration,
        parent_id="root",
        move=move,
        status=status,
        gate={"fixed": fixed, "broken": broken, "pairs": pairs},
    )


@pytest.fixture
def gated_edit() -> Callable[..., Edit]:
    """`gated_edit(move, iteration, status, fixed, broken, pairs)`: an edit with its gate's counts (see gated)."""
    return gated
