"""Writes a reproducible database with a users table whose accounts are active, disabled or pending."""

import random
import sqlite3
import sys

rng = random.Random(515)
db = sqlite3.connect(sys.argv[1])
db.executescript(
    """
    CREATE TABLE users (
        id INTEGER PRIMARY KEY,
        username TEXT NOT NULL UNIQUE,
        email TEXT NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE sessions (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), started_at TEXT NOT NULL);
    """
)
first = ["ana", "ben", "chloe", "dev", "emma", "farid", "gus", "hana", "ivan", "jade", "kofi", "lena"]
for user_id in range(1, 131):
    name = f"{rng.choice(first)}{user_id}"
    status = rng.choices(["active", "disabled", "pending"], [70, 18, 12])[0]
    created = f"2023-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    db.execute("INSERT INTO users VALUES (?, ?, ?, ?, ?)", (user_id, name, f"{name}@example.com", status, created))
    for _ in range(rng.randint(0, 3)):
        db.execute("INSERT INTO sessions (user_id, started_at) VALUES (?, ?)", (user_id, f"2024-02-{rng.randint(1, 28):02d}"))
db.commit()
