"""A run folder: `config.toml`, `run.db` (an append-only event log plus tables projected from it), snapshots.

Every write goes through `emit`: the event is appended and, when its kind has a projection, the row is
upserted into that table in the same transaction. The tables can therefore always be rebuilt from the log.
"""

import json
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from harness_evo.errors import UserError
from harness_evo.store.calls import Iteration, LlmCall, Spend
from harness_evo.store.edit import Edit
from harness_evo.store.failure import Failure
from harness_evo.store.gauge import NodeGauge
from harness_evo.store.info import RunInfo, RunStatus
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

INDEXES: dict[str, tuple[str, ...]] = {
    "rollouts": ("harness_hash", "node_id"),
    "failures": ("rollout_id",),
    "edits": ("parent_id",),
}
"""Columns looked up often (a node's rollouts, a rollout's failure, a node's edits); indexed when a run is opened."""

R = TypeVar("R", bound=Record)

RECORDS: tuple[type[Record], ...] = (
    RunInfo,
    Rollout,
    Edit,
    Node,
    LlmCall,
    Iteration,
    Failure,
    Pattern,
    PatternMember,
    NodeGauge,
)
"""Typed records; their tables are made from their fields when a run is opened (an older run's gain the new columns)."""
StoreError = sqlite3.Error
"""What reading another process's run.db may raise (a database it is still creating, or a damaged one)."""
COLUMN = re.compile(r"[a-z_][a-z0-9_]*")


class RunStore:
    """One run folder. Safe to share between threads of one process; readers in other processes see WAL snapshots.

    Every question the rest of the code asks of a run is a method here, in terms of records and their fields; no SQL
    leaves this module."""

    def __init__(self, folder: Path, readonly: bool = False):
        self.folder = Path(folder)
        if not (self.folder / "run.db").exists():
            raise UserError(f"{self.folder} is not a run folder (no run.db); `harness-evo runs` lists the runs")
        self.readonly = readonly
        self._lock = threading.RLock()
        self.db = self._reader() if readonly else self._connect()

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
        store.update_info(kind=kind, status=RunStatus.RUNNING, started=time.time())
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

    @classmethod
    def folders(cls, runs_dir: Path) -> list[Path]:
        """The run folders (those with a run.db) under `runs_dir`, by name."""
        return (
            sorted(path for path in Path(runs_dir).glob("*") if (path / "run.db").is_file())
            if Path(runs_dir).is_dir()
            else []
        )

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
            connection.execute(
                'CREATE TABLE IF NOT EXISTS "events" ("seq" INTEGER PRIMARY KEY, "ts" REAL, "kind" TEXT, "data" TEXT)'
            )
            make_tables(db)
            for table, indexed in {"events": ("kind",), **INDEXES}.items():
                present = db[table].columns_dict if db[table].exists() else {}
                for column in indexed:
                    if column in present:
                        connection.execute(
                            f'CREATE INDEX IF NOT EXISTS "idx_{table}_{column}" ON "{table}" ("{column}")'
                        )
        return db

    def _reader(self) -> sqlite_utils.Database:
        """A connection that never writes: another process may own this run (`compare` reads other runs' rollouts)."""
        connection = sqlite3.connect(
            f"file:{self.folder / 'run.db'}?mode=ro", uri=True, check_same_thread=False, timeout=30
        )
        return sqlite_utils.Database(connection)

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
                if (
                    self.db.conn.in_transaction
                ):  # a commit that failed leaves its transaction open: the event is not written
                    self.db.conn.rollback()
                if "full" in str(e) or "disk" in str(e):
                    then = f"`harness-evo resume {self.id}`" if self.info.kind == "evolve" else "run the command again"
                    raise UserError(
                        f"cannot write to {self.folder / 'run.db'}: {e}; what finished is kept: free disk space, "
                        f"then {then}"
                    ) from e
                raise
        return cursor.lastrowid

    def _project(self, kind: str, row: dict[str, Any]) -> None:
        if kind not in PROJECTIONS:
            return
        table, pk = PROJECTIONS[kind]
        # a column created from a None gets TEXT affinity and would turn later numbers into strings: wait for a value
        existing = self.db[table].columns_dict if self.db[table].exists() else {}
        self.db[table].upsert(
            {key: value for key, value in row.items() if value is not None or key in existing}, pk=pk, alter=True
        )

    def events(self, kinds: list[str] | None = None, after: int = 0) -> Iterator[dict[str, Any]]:
        """The log in order, each as {seq, ts, kind, data}."""
        where, params = "seq > ?", [after]
        if kinds:
            where += f" AND kind IN ({', '.join('?' for _ in kinds)})"
            params += kinds
        for seq, ts, kind, data in self.db.execute(
            f"SELECT seq, ts, kind, data FROM events WHERE {where} ORDER BY seq", params
        ):
            yield {"seq": seq, "ts": ts, "kind": kind, "data": json.loads(data)}

    def last_event(self) -> tuple[int, float]:
        """(sequence number, time) of the log's last event; (0, 0.0) for an empty log."""
        seq, ts = self.db.execute("SELECT MAX(seq), MAX(ts) FROM events").fetchone()
        return seq or 0, ts or 0.0

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

    # reading the tables: filters are field = value (None: no value; a list, set or tuple: any of its values)

    def rows(
        self, table: str, order_by: str | None = None, limit: int | None = None, **equal: Any
    ) -> list[dict[str, Any]]:
        """Rows of a projected table that match `equal`, JSON columns decoded; `order_by` names columns (each may end in
        ` DESC`; `rowid` is the order they were first written). A table or column an older run lacks reads as empty."""
        if table not in self.db.table_names():
            return []
        where, params = self._where(table, equal)
        if where is None:
            return []
        return [
            decode_json(row)
            for row in self.db[table].rows_where(where, params, order_by=self._order(table, order_by), limit=limit)
        ]

    def put(self, record: Record) -> int:
        """Append a record as an event of its kind (its row in its table)."""
        return self.emit(record.event, record.model_dump(mode="json"))

    def records(
        self, model: type[R], /, order_by: str | None = None, limit: int | None = None, **equal: Any
    ) -> list[R]:
        """The rows of a record's table that match `equal`, as records (see `rows`)."""
        return [model.model_validate(row) for row in self.rows(model.table, order_by, limit, **equal)]

    def record(self, model: type[R], pk: Any) -> R | None:
        """One record by its primary key, or None."""
        found = self.records(model, limit=1, **{PROJECTIONS_BY_TABLE[model.table]: pk})
        return found[0] if found else None

    def rollouts_starting(self, prefix: str) -> list[Rollout]:
        """The rollouts whose id starts with `prefix`, read on the key's index."""
        rows = (
            self.db["rollouts"].rows_where("id >= ? AND id < ?", [prefix, prefix + "\U0010ffff"])
            if "rollouts" in self.db.table_names()
            else []
        )
        return [Rollout.model_validate(decode_json(row)) for row in rows]

    def count(self, model: type[Record], /, **equal: Any) -> int:
        """How many rows of a record's table match `equal`."""
        if model.table not in self.db.table_names():
            return 0
        where, params = self._where(model.table, equal)
        return (
            0
            if where is None
            else self.db.execute(f'SELECT COUNT(*) FROM "{model.table}" WHERE {where}', params).fetchone()[0]
        )

    def tally(self, model: type[Record], *fields: str) -> dict[Any, int]:
        """Rows per value of `fields` (a tuple of values for several), the most frequent first, then by value."""
        columns = self._columns(model.table)
        if not columns or any(field not in columns for field in fields):
            return {}
        names = ", ".join(f'"{field}"' for field in fields)
        rows = self.db.execute(
            f'SELECT {names}, COUNT(*) FROM "{model.table}" GROUP BY {names} ORDER BY {len(fields) + 1} DESC, {names}'
        )
        return {(values[0] if len(fields) == 1 else tuple(values)): n for *values, n in rows}

    def spend(self) -> dict[str, Spend]:
        """The model calls of each role (cache hits included) and what they cost."""
        if "llm_calls" not in self.db.table_names():
            return {}
        rows = self.db.execute("""SELECT role, COUNT(*), SUM(COALESCE(cache_hit, 0)), SUM(error IS NOT NULL),
                                         SUM(COALESCE(tokens_in, 0)), SUM(COALESCE(tokens_out, 0)),
                                         SUM(COALESCE(cost, 0))
                                  FROM llm_calls GROUP BY role ORDER BY role""")
        names = ("calls", "cached", "errors", "tokens_in", "tokens_out", "cost")
        return {role: Spend(**dict(zip(names, values))) for role, *values in rows}

    def _columns(self, table: str) -> set[str]:
        return set(self.db[table].columns_dict) if table in self.db.table_names() else set()

    def _where(self, table: str, equal: dict[str, Any]) -> tuple[str | None, list[Any]]:
        """SQL for `equal` on `table`, or None when no row can match (a value asked of a column the table lacks)."""
        columns = self._columns(table)
        clauses, params = ["1"], []
        for name, value in equal.items():
            if not COLUMN.fullmatch(name):
                raise ValueError(f"{name!r} is no field name")
            if name not in columns:
                if value is None:
                    continue
                return None, []
            if value is None:
                clauses.append(f'"{name}" IS NULL')
            elif isinstance(value, (list, tuple, set, frozenset)):
                values = list(value)
                clauses.append(f'"{name}" IN ({", ".join("?" for _ in values)})' if values else "0")
                params += values
            else:
                clauses.append(f'"{name}" = ?')
                params.append(value)
        return " AND ".join(clauses), params

    def _order(self, table: str, order_by: str | None) -> str | None:
        if order_by is None:
            return None
        columns = self._columns(table) | {"rowid"}
        terms = []
        for term in order_by.split(","):
            name, _, direction = term.strip().partition(" ")
            if name not in columns or direction not in ("", "DESC"):
                raise ValueError(f"cannot order {table} by {term.strip()!r}")
            terms.append(f'"{name}" {direction}'.strip() if name != "rowid" else f"rowid {direction}".strip())
        return ", ".join(terms)

    # the run row

    @property
    def info(self) -> RunInfo:
        """The run's row (of a folder copied under another name, the row it has; its defaults when there is none
        yet)."""
        return self.record(RunInfo, self.id) or next(iter(self.records(RunInfo, limit=1)), None) or RunInfo(id=self.id)

    def update_info(self, **fields: Any) -> None:
        """Set these fields of the run's row, leaving the others;
        a name that is no field of `RunInfo` is a TypeError."""
        unknown = sorted(set(fields) - set(RunInfo.model_fields))
        if unknown:
            raise TypeError(f"no field {', '.join(unknown)} in a run's row")
        info = RunInfo.model_validate({**fields, "id": self.id})
        self.emit("run", info.model_dump(mode="json", include={"id", *fields}))

    def set_status(self, status: RunStatus, **fields: Any) -> None:
        self.update_info(status=RunStatus(status), **fields)

    @contextmanager
    def stopped_on_interrupt(self) -> Iterator[None]:
        """Ctrl-C inside marks the run stopped (what finished stays recorded) and goes on up."""
        try:
            yield
        except KeyboardInterrupt:
            self.set_status(RunStatus.STOPPED, finished=time.time())
            raise

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
