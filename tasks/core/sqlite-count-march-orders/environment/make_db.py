"""Writes a reproducible shop database with orders from January 2023 to June 2024."""

import random
import sqlite3
import sys
from datetime import datetime, timedelta

rng = random.Random(303)
db = sqlite3.connect(sys.argv[1])
db.executescript(
    """
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
    CREATE TABLE orders (
        id INTEGER PRIMARY KEY,
        customer_id INTEGER NOT NULL REFERENCES customers(id),
        placed_at TEXT NOT NULL,
        status TEXT NOT NULL,
        total_cents INTEGER NOT NULL
    );
    """
)
names = ["Ada", "Ben", "Chloe", "Dario", "Emma", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kemal", "Lena"]
for n, name in enumerate(names, start=1):
    db.execute("INSERT INTO customers VALUES (?, ?, ?)", (n, f"{name} {rng.choice(['Meyer', 'Rossi', 'Novak', 'Silva'])}", rng.choice(["DE", "IT", "FR", "PT"])))
start = datetime(2023, 1, 1)
for order_id in range(1, 901):
    placed = start + timedelta(minutes=rng.randint(0, 546 * 24 * 60))
    status = rng.choice(["delivered"] * 6 + ["shipped", "cancelled", "pending"])
    db.execute("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", (order_id, rng.randint(1, len(names)), placed.strftime("%Y-%m-%d %H:%M:%S"), status, rng.randint(500, 40000)))
db.commit()
