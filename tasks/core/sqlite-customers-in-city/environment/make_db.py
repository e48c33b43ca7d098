"""Writes a small CRM database with a customers table; each customer lives in one city."""

import sqlite3
import sys

CUSTOMERS = [
    ("Mathilde", "Paris"),
    ("Theo", "Lyon"),
    ("Ines", "Marseille"),
    ("Camille", "Lyon"),
    ("Hugo", "Nantes"),
    ("Zoe", "Lyon"),
    ("Louis", "Paris"),
    ("Adele", "Lille"),
    ("Nathan", "Lyon"),
    ("Jeanne", "Marseille"),
    ("Bastien", "Lyon"),
    ("Manon", "Nantes"),
    ("Lucie", "Paris"),
    ("Romain", "Lyon"),
    ("Clara", "Lille"),
    ("Victor", "Marseille"),
    ("Elise", "Lyon"),
    ("Paul", "Paris"),
]

db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL)")
db.executemany("INSERT INTO customers (name, city) VALUES (?, ?)", CUSTOMERS)
db.commit()
