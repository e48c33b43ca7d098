"""The executor's one queue of several harnesses' rollouts (`Executor.run_each`), on real Docker with the scripted
model: no harness waits for another's slowest rollout, and a harness that fails at run time stops only its own."""

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from harness_evo.agent.executor import Executor, Side
from harness_evo.config import ModelsConfig, RoleModel, SandboxConfig
from harness_evo.errors import HarnessError
from harness_evo.harness import Harness
from harness_evo.llm import LLM, scripted
from harness_evo.sandbox import get_backend
from harness_evo.store import Rollout, RunStore
from harness_evo.taskset import load_suite

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("user_cache")]

ROOT = Path(__file__).parents[1]
HARNESS = ROOT / "harnesses" / "bash-agent"
EVAL_TASKS = ROOT / "tests" / "fixtures" / "eval-tasks"
SOLVE = "```bash\necho 'hello harness' > /app/greeting.txt && echo TASK_DONE\n```"
SLOW_MARK = "You think slowly."


def variant(folder: Path, system_line: str = "", settings: tuple[str, str] | None = None) -> Harness:
    """The default harness with a line added to its system prompt, or one setting of harness.toml replaced."""
    shutil.copytree(HARNESS, folder)
    if system_line:
        system = folder / "prompts" / "system.md.j2"
        system.write_text(system.read_text() + f"\n{system_line}\n")
    if settings:
        toml = folder / "harness.toml"
        toml.write_text(toml.read_text().replace(*settings, 1))
    return Harness.load(folder)


def executor(tmp_path: Path, name: str, workers: int, finished: Callable[[Rollout], None]) -> tuple[Executor, LLM]:
    """An executor of `workers` on the eval fixtures with the solver `scripted/name`, telling `finished` of each
    rollout it finishes."""
    store = RunStore.create(tmp_path / "runs", "eval")
    llm = LLM(ModelsConfig(solver=RoleModel(model=f"scripted/{name}")), store=store, cache=False)

    def progress(kind: str, row: Rollout) -> None:
        if kind == "finished":
            finished(row)

    backend = get_backend(SandboxConfig(), run_id=store.id)
    return Executor(store, backend, load_suite(EVAL_TASKS), llm=llm, workers=workers, on_progress=progress), llm


def test_a_harness_whose_rollout_is_slow_does_not_hold_up_another_harness_in_the_same_queue(tmp_path: Path):
    """A's one rollout waits (its model call) until B's three have finished: with one queue of two workers they do."""
    slow, fast = variant(tmp_path / "slow", SLOW_MARK), variant(tmp_path / "fast")
    finished: list[Rollout] = []
    others_done = threading.Event()

    def solver(messages: list[dict]) -> str:
        if SLOW_MARK in messages[0]["content"]:
            others_done.wait(timeout=120)
        return SOLVE

    def done(row: Rollout) -> None:
        finished.append(row)
        if sum(row.harness_hash == fast.hash for row in finished) == 3:
            others_done.set()

    name = f"queue-{tmp_path.name}"
    scripted.register(name, solver)
    run, llm = executor(tmp_path, name, 2, done)
    with llm:
        greeting = run.suite.tasks["greeting"]
        ran, broken = run.run_each([(Side(slow), [(greeting, 0)]), (Side(fast), [(greeting, t) for t in range(3)])])

    assert not broken and [len(rows) for rows in ran] == [1, 3]
    assert others_done.is_set(), "the slow harness's rollout was let go by the clock, not by the others finishing"
    assert [row.harness_hash for row in finished] == [fast.hash] * 3 + [slow.hash]
    assert all(row.passed for rows in ran for row in rows)


def test_a_harness_that_fails_at_run_time_stops_its_own_rollouts_and_not_the_others(tmp_path: Path):
    unsupported = ('action_format = "bash-block"', 'action_format = "tool-calls"')  # the agent loop refuses it
    broken_harness = variant(tmp_path / "broken", settings=unsupported)
    good = variant(tmp_path / "good")
    name = f"broken-{tmp_path.name}"
    scripted.register(name, lambda messages: SOLVE)
    run, llm = executor(tmp_path, name, 1, lambda row: None)
    with llm:
        greeting = run.suite.tasks["greeting"]
        keys = [(greeting, 0), (greeting, 1)]
        ran, broken = run.run_each([(Side(broken_harness), keys), (Side(good), keys)])
        with pytest.raises(HarnessError, match="tool-calls"):
            run.run(broken_harness, [greeting], 1)

    assert list(broken) == [broken_harness.hash] and "action_format 'tool-calls'" in str(broken[broken_harness.hash])
    assert ran[0] == [] and [(row.trial, row.passed) for row in ran[1]] == [(0, True), (1, True)]
