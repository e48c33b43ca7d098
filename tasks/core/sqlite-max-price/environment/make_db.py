"""Writes a small store database with a products table; prices are REAL values in euros."""

import sqlite3
import sys

PRODUCTS = [
    ("Desk lamp", 34.9),
    ("Office chair", 189.0),
    ("Keyboard", 59.0),
    ("Monitor arm", 79.99),
    ("Standing desk", 449.5),
    ("Mouse", 24.5),
    ("Webcam", 89.95),
    ("Headset", 129.0),
    ("Notebook", 3.25),
    ("Monitor", 279.99),
    ("USB hub", 19.99),
    ("Bookshelf", 149.0),
]

db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL NOT NULL)")
db.executemany("INSERT INTO products (name, price) VALUES (?, ?)", PRODUCTS)
db.commit()
