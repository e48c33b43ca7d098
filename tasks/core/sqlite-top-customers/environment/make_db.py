"""Writes a reproducible shop database: customers, orders (some cancelled) and order items priced in cents."""

import random
import sqlite3
import sys

rng = random.Random(4242)
db = sqlite3.connect(sys.argv[1])
db.executescript(
    """
    CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
    CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), placed_on TEXT NOT NULL, status TEXT NOT NULL);
    CREATE TABLE order_items (
        order_id INTEGER NOT NULL REFERENCES orders(id),
        product TEXT NOT NULL,
        quantity INTEGER NOT NULL,
        unit_price_cents INTEGER NOT NULL
    );
    """
)
names = ["Alder Bakery", "Birch & Co", "Cedar Goods", "Dune Foods", "Elm Studio", "Fjord Supplies", "Granite Works", "Harbor Tools",
         "Iris Florist", "Juniper Cafe", "Kestrel Print", "Linden Books", "Maple Garage", "Nettle Farm"]
for n, name in enumerate(names, start=1):
    db.execute("INSERT INTO customers VALUES (?, ?, ?)", (n, name, rng.choice(["Porto", "Lyon", "Graz", "Gent"])))
products = {"paper A4": 499, "toner": 6450, "stapler": 1299, "desk lamp": 3490, "chair": 15900, "cable": 750}
order_id = 0
for customer in range(1, len(names) + 1):
    for _ in range(rng.randint(2, 9)):
        order_id += 1
        status = "cancelled" if rng.random() < 0.2 else rng.choice(["delivered", "shipped", "paid"])
        db.execute("INSERT INTO orders VALUES (?, ?, ?, ?)", (order_id, customer, f"2024-{rng.randint(1, 9):02d}-{rng.randint(1, 28):02d}", status))
        for product in rng.sample(sorted(products), rng.randint(1, 3)):
            db.execute("INSERT INTO order_items VALUES (?, ?, ?, ?)", (order_id, product, rng.randint(1, 6), products[product]))
# A big cancelled order: customers who count it rank wrongly.
db.execute("INSERT INTO orders VALUES (?, ?, ?, ?)", (order_id + 1, 9, "2024-09-30", "cancelled"))
db.execute("INSERT INTO order_items VALUES (?, ?, ?, ?)", (order_id + 1, "chair", 12, products["chair"]))
db.commit()
