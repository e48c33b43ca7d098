"""Writes a reproducible CRM database in which some customers appear two or three times
with the same email in a different letter case, each copy with its own orders."""

import random
import sqlite3
import sys

rng = random.Random(1234)
db = sqlite3.connect(sys.argv[1])
db.executescript(
    """
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, phone TEXT);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), placed_on TEXT NOT NULL, amount_cents INTEGER NOT NULL);
    CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
    INSERT INTO notes (text) VALUES ('import from the old shop finished'), ('call list exported for Q2');
    """
)
first = ["Rosa", "Karl", "Mei", "Jorge", "Anya", "Felix", "Leila", "Oscar", "Priya", "Viktor", "Hana", "Bruno", "Elif", "Noah"]
last = ["Lind", "Moreau", "Chen", "Ruiz", "Petrova", "Bauer", "Nasser", "Dahl", "Rao", "Sokol"]
people = []
for n in range(40):
    name = f"{first[n % len(first)]} {last[(n * 7) % len(last)]}"
    people.append((name, f"{name.lower().replace(' ', '.')}{n}@example.com"))
rows = []
for name, email in people:
    rows.append((name, email, f"+49 30 {rng.randint(100000, 999999)}"))
for name, email in rng.sample(people, 9):
    for _ in range(rng.choice([1, 1, 2])):
        variant = rng.choice([email.upper(), email.capitalize(), email.replace("@example.com", "@Example.com")])
        rows.append((name, variant, rng.choice([None, f"+49 30 {rng.randint(100000, 999999)}"])))
rng.shuffle(rows)
db.executemany("INSERT INTO customers (name, email, phone) VALUES (?, ?, ?)", rows)
for order_id in range(1, 301):
    db.execute("INSERT INTO orders VALUES (?, ?, ?, ?)", (order_id, rng.randint(1, len(rows)), f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", rng.randint(300, 90000)))
db.commit()
