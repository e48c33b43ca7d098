"""A run folder: `config.toml`, `run.db` (an append-only event log plus tables projected from it), snapshots.

Every write goes through `emit`: the event is appended and, when its kind has a projection, the row is
upserted into that table in the same transaction. The tables can therefore always be rebuilt from the log.
"""

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from harness_evo.errors import UserError
from harness_evo.store.calls import Iteration, LlmCall
from harness_evo.store.conditioning import NodeGauge
from harness_evo.store.edit import Edit
from harness_evo.store.failure import Failure
from harness_evo.store.node import Node
from harness_evo.store.pattern import Pattern, PatternMember
from harness_evo.store.record import Record
from harness_evo.store.rollout import Rollout

PROJECTIONS: dict[str, tuple[str, str | tuple[str, ...]]] = {
    "run": ("run", "id"),
    "node": ("nodes", "id"),
    "edit": ("edits", "id"),
    "rollout": ("rollouts", "id"),
    "failure": ("failures", "id"),
    "pattern": ("patterns", "id"),
    "pattern_member": ("pattern_members", "failure_id"),
    "arm": ("arms", "id"),
    "llm_call": ("llm_calls", "id"),
    "iteration": ("iterations", "id"),
    "conditioning": ("conditioning", "id"),
}
"""Event kind -> (table, primary key). Events of other kinds are only logged."""

INDEXES: dict[str, tuple[str, ...]] = {"rollouts": ("harness_hash", "node_id"), "failures": ("rollout_id",), "edits": ("parent_id",)}
"""Columns looked up often (a node's rollouts, a rollout's failure, a node's edits); indexed when a run is opened."""

R = TypeVar("R", bound=Record)


class RunStatus(StrEnum):
    """Where a run is: `running` until its process ends it one of the other ways (a killed one stays `running`)."""

    RUNNING = "running"
    FINISHED = "finished"  # it reached its end (a budget, patience, or every rollout of an eval or compare)
    STOPPED = "stopped"  # Ctrl-C or SIGTERM; what finished is kept
    FAILED = "failed"  # an error ended it; what finished is kept

RECORDS: tuple[type[Record], ...] = (Rollout, Edit, Node, LlmCall, Iteration, Failure, Pattern, PatternMember, NodeGauge)
"""Typed records; their tables are made from their fields when a run is opened (an older run's gain the new columns)."""


class RunStore:
    """One run folder. Safe to share between threads of one process; readers in other processes see WAL snapshots."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        if not (self.folder / "run.db").exists():
            raise UserError(f"{self.folder} is not a run folder (no run.db); `harness-evo runs` lists the runs")
        self._lock = threading.RLock()
        self.db = self._connect()

    @classmethod
    def create(cls, runs_dir: Path, kind: str, run_id: str | None = None) -> "RunStore":
        """A new run folder under `runs_dir`, named `run_id` or, by default, by its kind, the time and a random suffix
        (drawn again should another process have taken it the same second)."""
        for attempt in range(10):
            folder = Path(runs_dir) / (run_id or f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(2)}")
            try:
                folder.mkdir(parents=True)
                break
            except FileExistsError:
                if run_id is not None or attempt == 9:
                    raise
        run_id = folder.name
        draft = folder / "run.db.new"  # in WAL mode before anyone can open it: two processes switching it at once fail
        connection = sqlite3.connect(draft)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.close()
        draft.rename(folder / "run.db")
        store = cls(folder)
        store.emit("run", id=run_id, kind=kind, status=RunStatus.RUNNING.value, started=time.time())
        return store

    @classmethod
    def find(cls, run: str, runs_dir: Path) -> "RunStore":
        """A run by its folder or its id (a unique prefix will do) under `runs_dir`."""
        if Path(run).is_dir():
            return cls(Path(run))
        matches = sorted(path for path in Path(runs_dir).glob(f"{run}*") if (path / "run.db").is_file())
        if len(matches) != 1:
            found = "no run" if not matches else f"{len(matches)} runs"
            raise UserError(f"{found} named {run!r} in {runs_dir}; `harness-evo runs` lists them")
        return cls(matches[0])

    @property
    def id(self) -> str:
        return self.folder.name

    def _connect(self) -> sqlite_utils.Database:
        connection = sqlite3.connect(self.folder / "run.db", check_same_thread=False, timeout=30)
        db = sqlite_utils.Database(connection)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        # Another process may be writing this run (a `watch` opens it while `evolve` runs): the schema is read and made
        # under the write lock, which waits its turn; a read that turned into a write would fail at once as "locked".
        with connection:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute('CREATE TABLE IF NOT EXISTS "events" ("seq" INTEGER PRIMARY KEY, "ts" REAL, "kind" TEXT, "data" TEXT)')
            make_tables(db)
            for table, indexed in {"events": ("kind",), **INDEXES}.items():
                present = db[table].columns_dict if db[table].exists() else {}
                for column in indexed:
                    if column in present:
                        connection.execute(f'CREATE INDEX IF NOT EXISTS "idx_{table}_{column}" ON "{table}" ("{column}")')
        return db

    def emit(self, kind: str, data: dict[str, Any] | None = None, /, **fields: Any) -> int:
        """Append one event; project it into its table. Returns the event's sequence number."""
        row = {**(data or {}), **fields}
        with self._lock:
            try:
                with self.db.conn:
                    cursor = self.db.conn.execute(
                        "INSERT INTO events (ts, kind, data) VALUES (?, ?, ?)",
                        (time.time(), kind, json.dumps(row, default=str)),
                    )
                    self._project(kind, row)
            except sqlite3.OperationalError as e:
                if self.db.conn.in_transaction:  # a commit that failed leaves its transaction open: the event is not written
                    self.db.conn.rollback()
                if "full" in str(e) or "disk" in str(e):
                    then = f"`harness-evo resume {self.id}`" if self.info.get("kind") == "evolve" else "run the command again"
                    raise UserError(f"cannot write to {self.folder / 'run.db'}: {e}; what finished is kept: free disk space, "
                                    f"then {then}") from e
                raise
        return cursor.lastrowid

    def _project(self, kind: str, row: dict[str, Any]) -> None:
        if kind not in PROJECTIONS:
            return
        table, pk = PROJECTIONS[kind]
        # a column created from a None gets TEXT affinity and would turn later numbers into strings: wait for a value
        existing = self.db[table].columns_dict if self.db[table].exists() else {}
        self.db[table].upsert({key: value for key, value in row.items() if value is not None or key in existing}, pk=pk, alter=True)

    def events(self, kinds: list[str] | None = None, after: int = 0) -> Iterator[dict[str, Any]]:
        """The log in order, each as {seq, ts, kind, data}."""
        where, params = "seq > ?", [after]
        if kinds:
            where += f" AND kind IN ({', '.join('?' for _ in kinds)})"
            params += kinds
        for seq, ts, kind, data in self.db.execute(f"SELECT seq, ts, kind, data FROM events WHERE {where} ORDER BY seq", params):
            yield {"seq": seq, "ts": ts, "kind": kind, "data": json.loads(data)}

    def rebuild(self) -> None:
        """Drop every projected table and replay the log into it."""
        with self._lock, self.db.conn:
            for table, _ in PROJECTIONS.values():
                if table in self.db.table_names():
                    self.db[table].drop()
            make_tables(self.db)
            # read the log first: sqlite-utils may drop a probe table while projecting, which an open cursor forbids
            for event in list(self.events(list(PROJECTIONS))):
                self._project(event["kind"], event["data"])

    def rows(self, table: str, where: str | None = None, params: Any = None, order_by: str | None = None) -> list[dict[str, Any]]:
        """Rows of a projected table (empty when the table does not exist yet), JSON columns decoded."""
        if table not in self.db.table_names():
            return []
        return [decode_json(row) for row in self.db[table].rows_where(where, params or [], order_by=order_by)]

    def put(self, record: Record) -> int:
        """Append a record as an event of its kind (its row in its table)."""
        return self.emit(record.kind, record.model_dump(mode="json"))

    def records(self, model: type[R], where: str | None = None, params: Any = None, order_by: str | None = None) -> list[R]:
        """The rows of a record's table, as records."""
        return [model.model_validate(row) for row in self.rows(model.table, where, params, order_by)]

    def record(self, model: type[R], pk: Any) -> R | None:
        """One record by its primary key, or None."""
        row = self.get(model.table, pk)
        return model.model_validate(row) if row is not None else None

    def get(self, table: str, pk: Any) -> dict[str, Any] | None:
        rows = self.rows(table, f"{PROJECTIONS_BY_TABLE[table]} = ?", [pk])
        return rows[0] if rows else None

    def set_status(self, status: RunStatus, **fields: Any) -> None:
        self.emit("run", id=self.id, status=RunStatus(status).value, **fields)

    @contextmanager
    def stopped_on_interrupt(self) -> Iterator[None]:
        """Ctrl-C inside marks the run stopped (what finished stays recorded) and goes on up."""
        try:
            yield
        except KeyboardInterrupt:
            self.set_status(RunStatus.STOPPED, finished=time.time())
            raise

    @property
    def info(self) -> dict[str, Any]:
        return self.get("run", self.id) or {}

    # files beside the database

    def path(self, *parts: str) -> Path:
        path = self.folder.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def write_json(self, relative: str, payload: Any) -> Path:
        """Write a JSON file atomically (a crash leaves the old file or the new one, never half of one)."""
        path = self.path(relative)
        partial = path.with_suffix(path.suffix + ".partial")
        partial.write_text(json.dumps(payload, indent=1, default=str))
        partial.replace(path)
        return path

    def read_json(self, relative: str) -> Any:
        return json.loads((self.folder / relative).read_text())

    def close(self) -> None:
        self.db.conn.close()


PROJECTIONS_BY_TABLE = {table: pk for table, pk in PROJECTIONS.values()}


def make_tables(db: sqlite_utils.Database) -> None:
    """Make each record's table from its fields, or add the columns an older table lacks."""
    for model in RECORDS:
        table = db[model.table]
        if not table.exists():
            table.create(model.columns(), pk=PROJECTIONS_BY_TABLE[model.table])
            continue
        present = table.columns_dict
        for name, kind in model.columns().items():
            if name not in present:
                table.add_column(name, kind)


def decode_json(row: dict[str, Any]) -> dict[str, Any]:
    """sqlite-utils stores lists and dicts as JSON text; give them back as Python values."""
    decoded = {}
    for key, value in row.items():
        if isinstance(value, str) and value[:1] in "[{":
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                pass
        decoded[key] = value
    return decoded
