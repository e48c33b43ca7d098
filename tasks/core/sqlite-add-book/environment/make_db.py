"""Writes a small library database with a books table."""

import sqlite3
import sys

BOOKS = [
    ("Pride and Prejudice", "Jane Austen", 1813),
    ("Nineteen Eighty-Four", "George Orwell", 1949),
    ("The Hobbit", "J. R. R. Tolkien", 1937),
    ("Foundation", "Isaac Asimov", 1951),
    ("Beloved", "Toni Morrison", 1987),
    ("The Left Hand of Darkness", "Ursula K. Le Guin", 1969),
    ("Things Fall Apart", "Chinua Achebe", 1958),
    ("Neuromancer", "William Gibson", 1984),
    ("Frankenstein", "Mary Shelley", 1818),
    ("The Name of the Rose", "Umberto Eco", 1980),
]

db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, author TEXT NOT NULL, year INTEGER NOT NULL)")
db.executemany("INSERT INTO books (title, author, year) VALUES (?, ?, ?)", BOOKS)
db.commit()
