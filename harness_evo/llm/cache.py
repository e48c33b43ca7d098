"""The response cache: identical requests are answered from a SQLite file instead of paying again.

The file lives in the user cache folder (`~/.cache/harness-evo/`, or `$HARNESS_EVO_CACHE`), shared by all
runs, so a resumed run or a repeated evaluation never calls a model twice for the same request.
"""

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import sqlite_utils
from sqlite_utils.db import NotFoundError


def cache_home() -> Path:
    """The user cache folder of harness-evo (created on demand)."""
    folder = Path(os.environ.get("HARNESS_EVO_CACHE") or Path.home() / ".cache" / "harness-evo")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def request_key(request: dict[str, Any]) -> str:
    """A stable digest of everything that determines a reply. Key order counts nowhere but in a response format: a
    constrained decoder writes a schema's fields in their order, so reordering them changes the reply."""
    params = request.get("params") or {}
    if "response_format" in params:
        request = {
            **request,
            "params": {**params, "response_format": json.dumps(params["response_format"], default=str)},
        }
    return hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()


def wal_mode(db: sqlite_utils.Database, tries: int = 100) -> None:
    """Put the file in WAL mode (several processes read while one writes). SQLite does not wait for a busy file to
    change its journal mode, as it does for other statements: a process that opens a new cache while another one
    switches it gets "database is locked" at once, so this tries again, 50 ms apart."""
    for attempt in range(tries):
        try:
            db.enable_wal()
            return
        except sqlite3.OperationalError as e:
            if e.sqlite_errorname != "SQLITE_BUSY" or attempt == tries - 1:
                raise
            time.sleep(0.05)


class ResponseCache:
    """Key -> response (a JSON object). Thread-safe; several processes may share the file."""

    def __init__(self, path: Path | None = None):
        self.path = path or cache_home() / "responses.sqlite"
        self._lock = threading.Lock()
        db = sqlite_utils.Database(
            sqlite3.connect(self.path, check_same_thread=False, timeout=30, isolation_level=None)
        )
        wal_mode(db)
        self._responses = db["responses"]
        db.execute("BEGIN IMMEDIATE")  # the write lock first: two processes creating the table at once would deadlock
        self._responses.create(
            {"key": str, "response": str, "ts": float}, pk="key", not_null={"response", "ts"}, if_not_exists=True
        )
        db.execute("COMMIT")

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            try:
                row = self._responses.get(key)
            except NotFoundError:
                return None
        return json.loads(row["response"])

    def put(self, key: str, response: dict[str, Any]) -> None:
        with self._lock:
            self._responses.insert({"key": key, "response": json.dumps(response), "ts": time.time()}, replace=True)

    def close(self) -> None:
        with self._lock:
            self._responses.db.close()
