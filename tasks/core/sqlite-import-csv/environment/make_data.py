"""Writes /app/data/products.csv (quoted names with commas and quotes) and /app/inventory.db with a suppliers table."""

import csv
import random
import sqlite3
import sys
from pathlib import Path

rng = random.Random(9001)
root = Path(sys.argv[1])
(root / "data").mkdir(parents=True, exist_ok=True)
kinds = ["Bolt", "Nut", "Washer", "Screw", "Anchor", "Hinge", "Bracket"]
sizes = ["M4", "M5", "M6", "M8", "M10"]
rows = []
for n in range(1, 48):
    kind = rng.choice(kinds)
    name = f"{kind}, {rng.choice(sizes)} x {rng.choice([10, 16, 20, 30, 40])}" if rng.random() < 0.6 else f"{kind} {rng.choice(sizes)}"
    if n % 11 == 0:
        name = f'{kind} "heavy duty", {rng.choice(sizes)}'
    rows.append([f"HW-{n:04d}", name, f"{rng.randint(5, 4000) / 100:.2f}", str(rng.randint(0, 900))])
with open(root / "data" / "products.csv", "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["sku", "name", "price", "stock"])
    writer.writerows(rows)

db = sqlite3.connect(root / "inventory.db")
db.execute("CREATE TABLE suppliers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL)")
db.executemany("INSERT INTO suppliers VALUES (?, ?, ?)", [(1, "Boltworks, Ltd", "UK"), (2, "Ferro SA", "ES"), (3, "Schraube GmbH", "DE")])
db.commit()
