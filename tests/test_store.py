"""The run folder: the event log is the truth, tables are projections that can be rebuilt."""

import subprocess
import sys
from pathlib import Path

import pytest

from harness_evo.errors import UserError
from harness_evo.store import (
    Edit,
    EditStatus,
    Failure,
    Node,
    Pattern,
    PatternStatus,
    Rollout,
    RunStatus,
    RunStore,
    StoreError,
)
from harness_evo.store.info import EvalSummary


def test_emitted_rows_land_in_their_table_and_survive_a_rebuild(tmp_path: Path):
    """A kind with no record (`arm`) is projected column by column, as its events come."""
    store = RunStore.create(tmp_path, "eval")
    store.emit("arm", id="r1", task_id="a", reward=0.0, exit_reason="step_limit", tags=["x"])
    store.emit("arm", id="r1", reward=1.0)  # an update keeps the other columns
    store.emit("iteration_note", text="only logged")
    before = store.rows("arms")
    assert before == [{"id": "r1", "task_id": "a", "reward": 1.0, "exit_reason": "step_limit", "tags": ["x"]}]
    store.db["arms"].delete_where()
    store.rebuild()
    assert store.rows("arms") == before
    assert [e["kind"] for e in store.events()] == ["run", "arm", "arm", "iteration_note"]


def test_records_go_in_and_come_back_typed_and_a_run_from_before_a_column_reads_it_as_its_default(tmp_path: Path):
    store = RunStore.create(tmp_path, "eval", run_id="old")
    store.put(
        Rollout(id="r1", task_id="a", split="dev", trial=0, reward=1.0, passed=True, exit_reason="done", tokens_in=7)
    )
    assert store.record(Rollout, "r1") == Rollout(
        id="r1", task_id="a", split="dev", trial=0, reward=1.0, passed=True, exit_reason="done", tokens_in=7
    )
    store.db["rollouts"].transform(drop={"tokens_in", "reused_from"})  # as a run written before these columns were
    store.close()

    again = RunStore(tmp_path / "old")
    assert {"tokens_in", "reused_from"} <= set(again.db["rollouts"].columns_dict)
    [rollout] = again.records(Rollout)
    assert (rollout.tokens_in, rollout.reused_from, rollout.scored) == (0, None, True)


def test_an_edit_row_of_a_run_from_before_its_table_had_every_column_reads_with_the_fields_defaults(tmp_path: Path):
    store = RunStore.create(tmp_path, "evolve", run_id="old")
    store.db["edits"].drop()
    store.db["edits"].insert(
        {"id": "i0-r0-0", "iteration": 0, "parent_id": "n0", "pattern_id": "P1", "status": "invalid"}, pk="id"
    )
    store.close()

    [edit] = RunStore(tmp_path / "old").records(Edit)
    assert (edit.status, edit.reasons, edit.gate, edit.child_id, edit.status.final) == (
        EditStatus.INVALID,
        [],
        None,
        None,
        True,
    )


def test_failure_and_pattern_rows_of_a_run_from_before_their_tables_had_every_column_read_with_the_fields_defaults(
    tmp_path: Path,
):
    store = RunStore.create(tmp_path, "evolve", run_id="old")
    for table in ("failures", "patterns"):
        store.db[table].drop()
    store.db["failures"].insert(
        {"id": "r1", "rollout_id": "r1", "task_id": "a", "split": "dev", "source": "counted"}, pk="id"
    )
    store.db["patterns"].insert({"id": "P2", "status": "promoted", "support": 2, "task_ids": '["a", "b"]'}, pk="id")
    store.close()

    again = RunStore(tmp_path / "old")
    [failure], [pattern] = again.records(Failure), again.records(Pattern)
    assert (failure.infra, failure.category, failure.explained) == (False, None, False)
    assert (pattern.status, pattern.task_ids, pattern.harness_blame, pattern.severity, pattern.order) == (
        PatternStatus.PROMOTED,
        ["a", "b"],
        0.0,
        None,
        (0, -2, 2),
    )


def test_reopened_run_sees_everything_written(tmp_path: Path):
    store = RunStore.create(tmp_path, "evolve", run_id="r")
    store.emit("node", id="h1", parent_id=None, train_score=0.5)
    store.close()
    again = RunStore(tmp_path / "r")
    assert again.info.kind == "evolve" and again.info.status == "running"
    assert again.record(Node, "h1").train_score == 0.5


def test_a_folder_without_run_db_is_a_user_error(tmp_path: Path):
    with pytest.raises(UserError, match="not a run folder"):
        RunStore(tmp_path)


WRITER = """
import sys
from harness_evo.store import Edit, EditStatus, Failure, Pattern, PatternStatus, Rollout, RunStore
for i in range(100):
    store = RunStore.create(sys.argv[1], "eval", run_id=f"r{i:03d}")
    store.emit("rollout", id="r1", task_id="a")
"""


@pytest.mark.slow
def test_runs_another_process_is_creating_open_as_soon_as_they_appear_and_both_sides_go_on(tmp_path: Path):
    """`harness-evo watch` may open a run the moment `evolve` creates it: neither may fail with "database is locked"."""
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], stderr=subprocess.PIPE, text=True)
    opened = set()
    while writer.poll() is None or len(opened) < len(list(tmp_path.glob("*/run.db"))):
        for path in sorted(tmp_path.glob("*/run.db")):
            if path.parent.name not in opened:
                RunStore(path.parent).close()
                opened.add(path.parent.name)
    assert writer.returncode == 0, writer.stderr.read()
    assert len(opened) == 100


def test_records_are_filtered_by_field_values_a_list_is_any_of_them_and_none_is_no_value(tmp_path: Path):
    store = RunStore.create(tmp_path, "evolve")
    for id, split, node in [("r1", "train", "a"), ("r2", "dev", "a"), ("r3", "train", "b"), ("r4", "train", None)]:
        store.put(
            Rollout(
                id=id,
                task_id="t",
                split=split,
                trial=0,
                node_id=node,
                exit_reason="done",
                reward=1.0,
                passed=id != "r3",
            )
        )

    assert [row.id for row in store.records(Rollout, order_by="id", split="train", node_id=["a", "b"])] == ["r1", "r3"]
    assert [row.id for row in store.records(Rollout, node_id=None)] == ["r4"]
    assert [row.id for row in store.records(Rollout, split="train", passed=False)] == ["r3"]
    assert [row.id for row in store.records(Rollout, order_by="id DESC", limit=2)] == ["r4", "r3"]
    assert store.count(Rollout, split="train") == 3 and store.tally(Rollout, "split") == {"train": 3, "dev": 1}
    assert store.records(Rollout, reused_from="another-run") == [] and store.records(Rollout, id=[]) == []
    assert store.records(Rollout, model="another-model") == [] and store.count(Rollout, model="another-model") == 0
    with pytest.raises(ValueError):
        store.records(Rollout, order_by="id; DROP TABLE rollouts")


def test_the_run_row_is_a_record_its_summary_typed_by_the_runs_kind_and_an_unknown_field_is_refused(tmp_path: Path):
    store = RunStore.create(tmp_path, "eval", run_id="old")
    store.emit(
        "run", id="old", summary={"split": "dev", "score": 0.5, "passed": 1, "n": 2, "pass_at_1": 0.5}
    )  # as eval wrote it
    store.update_info(best_node="h1")

    info = RunStore(tmp_path / "old").info
    assert (info.kind, info.status, info.best_node) == ("eval", RunStatus.RUNNING, "h1")
    assert isinstance(info.summary, EvalSummary) and (
        info.summary.n,
        info.summary.pass_at_1,
        info.summary.infra_failures,
    ) == (2, 0.5, 0)
    with pytest.raises(TypeError, match="no field best"):
        store.update_info(best="h1")
    bench = RunStore.create(tmp_path, "gatecal")
    bench.set_status(RunStatus.FINISHED, summary={"tasks": ["a"]})
    assert bench.info.summary == {"tasks": ["a"]}, "a kind with no summary record keeps its dict"


def test_a_run_opened_read_only_is_read_as_any_other_and_never_written(tmp_path: Path):
    store = RunStore.create(tmp_path, "eval", run_id="other")
    store.put(Rollout(id="r1", task_id="t", split="dev", trial=0, exit_reason="done", reward=1.0, passed=True))
    store.update_info(suite={"t": "abc"})

    reader = RunStore(tmp_path / "other", readonly=True)
    assert reader.info.suite == {"t": "abc"} and [row.id for row in reader.records(Rollout, id=["r1", "r9"])] == ["r1"]
    with pytest.raises(StoreError):
        reader.put(Rollout(id="r2", task_id="t", split="dev", trial=1))
    assert [row.id for row in store.records(Rollout)] == ["r1"]
