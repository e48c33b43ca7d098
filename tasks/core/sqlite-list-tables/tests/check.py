"""Prints 1 when /app/tables.txt lists the tables (no views or indexes) of the unchanged /app/inventory.db, sorted; else 0."""

import hashlib
import sqlite3
import sys
from pathlib import Path

SCHEMA_SHA256 = "27d84bcbb75e02adc24ad80bd8af9fdc443b6540678da54b3ca8f67470dd192c"


def schema() -> list[tuple]:
    if not Path("/app/inventory.db").is_file():
        return []
    db = sqlite3.connect("file:/app/inventory.db?mode=ro", uri=True)
    return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()


def main() -> int:
    try:
        rows = schema()
    except sqlite3.Error as e:
        print(f"cannot read the schema: {e}", file=sys.stderr)
        return 0
    if hashlib.sha256(repr(rows).encode()).hexdigest() != SCHEMA_SHA256:
        print("the schema of /app/inventory.db was changed, or the database removed", file=sys.stderr)
        return 0
    expected = sorted(name for kind, name, _, _ in rows if kind == "table" and not name.startswith("sqlite_"))
    path = Path("/app/tables.txt")
    found = [line.strip() for line in path.read_text(errors="replace").splitlines() if line.strip()] if path.is_file() else []
    if found != expected:
        print(f"/app/tables.txt lists {found}, not the {len(expected)} tables sorted by name", file=sys.stderr)
        return 0
    return 1


print(main())
