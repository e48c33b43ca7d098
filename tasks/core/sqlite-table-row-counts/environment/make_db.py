"""Writes a reproducible library database with five tables of different sizes."""

import random
import sqlite3
import sys

rng = random.Random(55)
db = sqlite3.connect(sys.argv[1])
db.executescript(
    """
    CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, author_id INTEGER REFERENCES authors(id), year INTEGER);
    CREATE TABLE members (id INTEGER PRIMARY KEY, name TEXT NOT NULL, joined TEXT NOT NULL);
    CREATE TABLE loans (book_id INTEGER REFERENCES books(id), member_id INTEGER REFERENCES members(id), out_on TEXT, back_on TEXT);
    CREATE TABLE branch_hours (branch TEXT, weekday INTEGER, opens TEXT, closes TEXT);
    """
)
words = ["River", "Night", "Glass", "Salt", "Iron", "Garden", "Winter", "Paper", "Silent", "Golden"]
authors = 37
db.executemany("INSERT INTO authors VALUES (?, ?)", [(n, f"Author {n}") for n in range(1, authors + 1)])
books = 412
db.executemany(
    "INSERT INTO books VALUES (?, ?, ?, ?)",
    [(n, f"The {rng.choice(words)} {rng.choice(words)}", rng.randint(1, authors), rng.randint(1950, 2024)) for n in range(1, books + 1)],
)
members = 158
db.executemany("INSERT INTO members VALUES (?, ?, ?)", [(n, f"Member {n}", f"20{rng.randint(10, 24)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}") for n in range(1, members + 1)])
db.executemany(
    "INSERT INTO loans VALUES (?, ?, ?, ?)",
    [(rng.randint(1, books), rng.randint(1, members), f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}", rng.choice([None, "2024-10-01"])) for _ in range(1093)],
)
db.executemany("INSERT INTO branch_hours VALUES (?, ?, ?, ?)", [(branch, day, "09:00", "18:00") for branch in ("north", "south") for day in range(1, 7)])
db.commit()
