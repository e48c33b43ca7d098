"""Prints 1 when /app/max_price.txt holds the highest price of the unchanged products table, else 0."""

import hashlib
import sqlite3
import sys
from pathlib import Path

PRODUCTS_SHA256 = "7f53520805ae32fd5111c32257ac65c72aafd3e2972c8d71c2b72d46525b5514"


def products() -> list:
    if not Path("/app/store.db").is_file():
        return []
    try:
        db = sqlite3.connect("file:/app/store.db?mode=ro", uri=True)
        return db.execute("SELECT * FROM products ORDER BY id").fetchall()
    except sqlite3.Error as e:
        print(f"cannot read the products table: {e}", file=sys.stderr)
        return []


rows = products()
kept = hashlib.sha256(repr(rows).encode()).hexdigest() == PRODUCTS_SHA256
if not kept:
    print("the products table of /app/store.db was changed or removed", file=sys.stderr)
expected = max(price for _, _, price in rows) if kept else None
answer = Path("/app/max_price.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
try:
    right = expected is not None and float(found) == expected
except ValueError:
    right = False
if not right:
    print(f"/app/max_price.txt holds {found!r}, not the highest price", file=sys.stderr)
print(1 if kept and right else 0)
