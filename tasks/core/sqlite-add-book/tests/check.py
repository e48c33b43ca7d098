"""Prints 1 when the books table of /app/library.db holds its 10 original rows unchanged plus exactly one new row
for Dune by Frank Herbert (1965), else 0."""

import hashlib
import sqlite3
import sys
from pathlib import Path

ORIGINAL_IDS = range(1, 11)
ORIGINAL_SHA256 = "99749ff6a8b4e635f8f8d130d97a3f1f0ad409fa71f81de80ee560137ce67dbf"
NEW_BOOK = ("Dune", "Frank Herbert", "1965")


def main() -> int:
    if not Path("/app/library.db").is_file():
        print("/app/library.db is missing", file=sys.stderr)
        return 0
    try:
        db = sqlite3.connect("file:/app/library.db?mode=ro", uri=True)
        rows = db.execute("SELECT id, title, author, year FROM books ORDER BY id").fetchall()
    except sqlite3.Error as e:
        print(f"cannot read the books table: {e}", file=sys.stderr)
        return 0
    original = [row for row in rows if row[0] in ORIGINAL_IDS]
    added = [row for row in rows if row[0] not in ORIGINAL_IDS]
    if hashlib.sha256(repr(original).encode()).hexdigest() != ORIGINAL_SHA256:
        print("the books that were already in the table were changed or removed", file=sys.stderr)
        return 0
    if len(added) != 1:
        print(f"expected exactly one new row, found {added}", file=sys.stderr)
        return 0
    values = tuple(str(value).strip() for value in added[0][1:])
    if values != NEW_BOOK:
        print(f"the new row holds {values}, expected {NEW_BOOK}", file=sys.stderr)
        return 0
    return 1


print(main())
