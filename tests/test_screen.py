"""The screen's look at one candidate when the parent discovers its workspace: the first prompt is replayed with what
the parent's recorded rollout found, under parent and child, and the scripted solver's first actions compared. (The
screen in whole runs, with real Docker: tests/test_evidence_gate.py.)"""

import json
import random
import shutil
from pathlib import Path

import pytest

from harness_evo import world
from harness_evo.agent.trajectory import Trajectory
from harness_evo.config import ModelsConfig, RoleModel
from harness_evo.evolve.gate import Turn
from harness_evo.evolve.ledger import Candidate, Ledger
from harness_evo.evolve.screen import Screen
from harness_evo.harness import Harness
from harness_evo.harness.features import Finding
from harness_evo.llm import LLM, scripted
from harness_evo.store import Edit, Rollout, RunStore, ScreenResult
from harness_evo.taskset import load_suite

pytestmark = pytest.mark.usefixtures("user_cache")

LISTING = "notes.txt  data/"
"""What the parent's recorded discovery found in the working folder."""


def discovering(folder: Path, system: str = world.DEFECT, **agent: object) -> Harness:
    """The world's harness with workspace discovery on and its findings in the first prompt; `agent` settings added."""
    shutil.copytree(world.HARNESS, folder)
    toml = folder / "harness.toml"
    settings = {"discovery": True, **agent}
    toml.write_text(toml.read_text() + "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items()))
    (folder / "prompts" / "instance.md.j2").write_text(
        "Task:\n{{ instruction }}\n{% for found in discovery %}$ {{ found.command }}\n{{ found.output }}\n{% endfor %}"
    )
    system_prompt = folder / "prompts" / "system.md.j2"
    system_prompt.write_text(system_prompt.read_text().replace(world.DEFECT, system))
    return Harness.load(folder)


def solver(messages: list[dict]) -> str:
    """Lists the working folder when the prompt shows no listing of it, else reads the file the listing shows."""
    return world.bash("cat notes.txt" if LISTING in messages[1]["content"] else "ls -la")


def look(tmp_path: Path, child: Harness, parent: Harness) -> ScreenResult:
    """The screen's result on `child` of `parent`, whose failed rollout of the world's first train task found
    `LISTING`."""
    scripted.register("screen-solver", solver)
    task = load_suite(world.TASKS).split("train")[0]
    store = RunStore.create(tmp_path / "runs", "evolve")
    trajectory = Trajectory(
        task_id=task.id,
        trial=0,
        harness_hash=parent.hash,
        model="scripted/screen-solver",
        discovery=[Finding(command="ls", output=LISTING, exit_code=0)],
    )
    store.write_json("rollouts/one.json", trajectory.model_dump())
    store.put(
        Rollout(
            id="one",
            task_id=task.id,
            split="train",
            trial=0,
            harness_hash=parent.hash,
            exit_reason="done",
            reward=0.0,
            trajectory="rollouts/one.json",
        )
    )
    edit = Edit(id="i0-r0-0", iteration=0, parent_id=parent.hash, child_id=child.hash)
    harnesses = {parent.hash: parent, child.hash: child}
    with LLM(ModelsConfig(solver=RoleModel(model="scripted/screen-solver"))) as llm:
        screen = Screen("on", 4, 2, llm, store, {task.id: task}, harnesses.__getitem__, Ledger(store, lambda e: None))
        kept, dropped = screen.sift(Turn(0, parent.hash, None, random.Random(0)), [Candidate(edit=edit, child=child)])
    [recorded] = store.records(Edit)
    assert [c.edit.id for c in dropped] == (["i0-r0-0"] if recorded.screen.dropped else [])
    assert len(kept) + len(dropped) == 1
    return recorded.screen


def test_a_prompt_edit_the_solver_ignores_is_dropped_as_inert(tmp_path: Path):
    parent = discovering(tmp_path / "parent")
    child = discovering(tmp_path / "child", system=world.DEFECT + " Be brief.")

    seen = look(tmp_path, child, parent)

    assert seen.verdict == "inert" and seen.dropped and (seen.samples, seen.changed) == (2, 0)


def test_a_child_that_stops_discovering_is_seen_without_the_parents_findings(tmp_path: Path):
    parent = discovering(tmp_path / "parent")
    child = discovering(tmp_path / "child", discovery=False)

    seen = look(tmp_path, child, parent)

    assert seen.verdict == "changed" and not seen.dropped and (seen.samples, seen.changed) == (2, 2), (
        "the parent's prompt replays the listing its rollout found, the child's shows none"
    )


def test_a_child_that_discovers_otherwise_cannot_be_replayed(tmp_path: Path):
    parent = discovering(tmp_path / "parent")
    child = discovering(tmp_path / "child", discovery_head_lines=3)

    seen = look(tmp_path, child, parent)

    assert seen.verdict == "unseen" and not seen.dropped and seen.samples == 0
    assert "discovers the workspace otherwise" in seen.sentence()
