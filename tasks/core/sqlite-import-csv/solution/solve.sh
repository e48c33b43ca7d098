#!/bin/bash
set -euo pipefail
python3 - <<'PY'
import csv
import sqlite3

db = sqlite3.connect("/app/inventory.db")
db.execute("CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT, price REAL, stock INTEGER)")
with open("/app/data/products.csv", newline="") as f:
    rows = [(row["sku"], row["name"], float(row["price"]), int(row["stock"])) for row in csv.DictReader(f)]
db.executemany("INSERT INTO products VALUES (?, ?, ?, ?)", rows)
db.commit()
print(db.execute("SELECT count(*) FROM products").fetchone())
PY
