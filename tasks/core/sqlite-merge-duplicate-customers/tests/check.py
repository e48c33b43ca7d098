"""Prints 1 when crm.db holds exactly the expected customers, orders and notes after the merge, else 0."""

import hashlib
import sqlite3
import sys
from pathlib import Path

# sha256 over the repr of the expected rows of each table, ordered by rowid
EXPECTED = {
    "customers": "2da32ef687269a3094c01bfaa9d700dff48c5599cb56b265c69142a592096f35",
    "notes": "a9169da9991a9198909e0f4106a25a0daa2926832b91df35a037d7c49e7b1af6",
    "orders": "4fb1fad7d160b622be2faa7faf0f077a32ed747ef8eeb357db26e71f4984cb58",
}


def digest(db: sqlite3.Connection, table: str) -> str:
    rows = db.execute(f"SELECT * FROM {table} ORDER BY rowid").fetchall()
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def main() -> int:
    if not Path("/app/crm.db").is_file():
        print("/app/crm.db is gone", file=sys.stderr)
        return 0
    db = sqlite3.connect("file:/app/crm.db?mode=ro", uri=True)
    try:
        tables = sorted(name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
        found = {table: digest(db, table) for table in tables}
    except sqlite3.Error as e:
        print(f"cannot read /app/crm.db: {e}", file=sys.stderr)
        return 0
    if found != EXPECTED:
        bad = sorted(set(found) ^ set(EXPECTED) | {table for table in found if found.get(table) != EXPECTED.get(table)})
        print(f"these tables are not as expected: {bad}", file=sys.stderr)
        return 0
    return 1


print(main())
