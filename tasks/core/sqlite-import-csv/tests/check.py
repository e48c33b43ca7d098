"""Prints 1 when inventory.db has the products table as specified holding the CSV's rows with their types
and the suppliers table is untouched, else 0."""

import csv
import sqlite3
import sys
from pathlib import Path

COLUMNS = [("sku", "TEXT", 1), ("name", "TEXT", 0), ("price", "REAL", 0), ("stock", "INTEGER", 0)]
SUPPLIERS = [(1, "Boltworks, Ltd", "UK"), (2, "Ferro SA", "ES"), (3, "Schraube GmbH", "DE")]


def main() -> int:
    expected_rows = [(row["sku"], row["name"], float(row["price"]), int(row["stock"])) for row in csv.DictReader(open("/tests/products.csv", newline=""))]
    if not Path("/app/inventory.db").is_file():
        print("/app/inventory.db is gone", file=sys.stderr)
        return 0
    db = sqlite3.connect("file:/app/inventory.db?mode=ro", uri=True)
    try:
        columns = [(name, kind.upper(), pk) for _, name, kind, _, _, pk in db.execute("PRAGMA table_info(products)")]
        rows = db.execute("SELECT sku, name, price, stock FROM products ORDER BY sku").fetchall()
        types = db.execute("SELECT DISTINCT typeof(sku), typeof(name), typeof(price), typeof(stock) FROM products").fetchall()
        suppliers = db.execute("SELECT * FROM suppliers ORDER BY id").fetchall()
    except sqlite3.Error as e:
        print(f"cannot read the tables: {e}", file=sys.stderr)
        return 0
    problems = []
    if columns != COLUMNS:
        problems.append(f"products has the columns {columns}, expected {COLUMNS}")
    if rows != sorted(expected_rows):
        problems.append(f"products holds {len(rows)} rows that differ from the CSV's {len(expected_rows)} (first: {rows[:2]})")
    if types != [("text", "text", "real", "integer")]:
        problems.append(f"stored value types are {types}")
    if suppliers != SUPPLIERS:
        problems.append("the suppliers table changed")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 0 if problems else 1


print(main())
