"""Prints 1 when /app/lyon.txt lists the names of the customers in Lyon, alphabetically, one per line, and the
customers table is unchanged, else 0."""

import hashlib
import sqlite3
import sys
from pathlib import Path

CUSTOMERS_SHA256 = "e63ea5e0d9c607f45c1284325738c2b27891c1346223a7ae54b12d694b188256"


def customers() -> list:
    if not Path("/app/crm.db").is_file():
        return []
    try:
        db = sqlite3.connect("file:/app/crm.db?mode=ro", uri=True)
        return db.execute("SELECT * FROM customers ORDER BY id").fetchall()
    except sqlite3.Error as e:
        print(f"cannot read the customers table: {e}", file=sys.stderr)
        return []


rows = customers()
kept = hashlib.sha256(repr(rows).encode()).hexdigest() == CUSTOMERS_SHA256
if not kept:
    print("the customers table of /app/crm.db was changed or removed", file=sys.stderr)
expected = sorted(name for _, name, city in rows if city == "Lyon") if kept else None
answer = Path("/app/lyon.txt")
found = [line.strip() for line in answer.read_text(errors="replace").strip().splitlines()] if answer.is_file() else []
right = found == expected
if not right:
    print(f"/app/lyon.txt holds {found!r}, expected {expected!r}", file=sys.stderr)
print(1 if kept and right else 0)
