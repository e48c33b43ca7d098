"""Writes a reproducible users database whose emails have mixed case and stray spaces, tabs and newlines."""

import random
import sqlite3
import sys

rng = random.Random(77)
db = sqlite3.connect(sys.argv[1])
db.executescript(
    """
    CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, plan TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE logins (user_id INTEGER NOT NULL REFERENCES users(id), at TEXT NOT NULL);
    """
)
first = ["Maria", "John", "Aiko", "Pedro", "Olga", "Samir", "Lucy", "Tomas", "Nina", "Omar", "Eva", "Liam", "Zoe", "Ivan", "Mila"]
last = ["Garcia", "Smith", "Tanaka", "Costa", "Ivanova", "Haddad", "Brown", "Novak", "Berg", "Aziz"]
domains = ["example.com", "Mail.Example.org", "EXAMPLE.NET"]
messes = [lambda e: e, str.upper, str.title, lambda e: f"  {e}", lambda e: f"{e} ", lambda e: f"{e}\t", lambda e: f"\t{e.upper()}", lambda e: f" {e}\n"]
for user_id in range(1, 121):
    name = f"{rng.choice(first)} {rng.choice(last)}"
    email = f"{name.lower().replace(' ', '.')}{user_id}@{rng.choice(domains).lower()}"
    db.execute(
        "INSERT INTO users VALUES (?, ?, ?, ?, ?)",
        (user_id, name, rng.choice(messes)(email), rng.choice(["free", "pro", "team"]), f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"),
    )
    for _ in range(rng.randint(0, 3)):
        db.execute("INSERT INTO logins VALUES (?, ?)", (user_id, f"2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)} {rng.randint(0, 23):02d}:00"))
db.commit()
