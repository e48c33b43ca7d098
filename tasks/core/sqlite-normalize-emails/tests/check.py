"""Prints 1 when every email in users.db is lowercase and trimmed and nothing else in the database changed, else 0."""

import hashlib
import sqlite3
import sys
from pathlib import Path

# sha256 over the repr of the expected rows of each table, ordered by rowid
EXPECTED = {
    "logins": "da90b775733a7a0a0e75c40463451735ba6e7fa3856cfff1f62ecfd5e9fab368",
    "users": "f77096aecb924f366aa0e5322e26e98082c73be2dd7b9825dabab51a54f3a309",
}


def digest(db: sqlite3.Connection, table: str) -> str:
    rows = db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def main() -> int:
    if not Path("/app/users.db").is_file():
        print("/app/users.db is gone", file=sys.stderr)
        return 0
    db = sqlite3.connect("file:/app/users.db?mode=ro", uri=True)
    try:
        tables = sorted(name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        found = {table: digest(db, table) for table in tables}
    except sqlite3.Error as e:
        print(f"cannot read /app/users.db: {e}", file=sys.stderr)
        return 0
    if found != EXPECTED:
        bad = sorted(set(found) ^ set(EXPECTED) | {table for table in found if found.get(table) != EXPECTED.get(table)})
        print(f"these tables are not as expected: {bad}", file=sys.stderr)
        return 0
    return 1


print(main())
