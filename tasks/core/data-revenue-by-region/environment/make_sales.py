"""Prints a sales CSV whose product names sometimes contain commas (and so are quoted)."""

import csv
import random
import sys
from datetime import date, timedelta

PRODUCTS = {"Laptop stand": 39.90, "Cable, 2m": 7.49, "Monitor 27in": 229.00, "Adapter, USB-C to HDMI": 18.75,
            "Keyboard": 54.20, "Mouse": 21.99, "Desk lamp": 33.10, "Headset, wireless": 89.00}
REGIONS = ["North", "South", "East", "West", "Central"]

rng = random.Random(17)
writer = csv.writer(sys.stdout, lineterminator="\n")
writer.writerow(["order_id", "date", "region", "product", "quantity", "unit_price"])
for number in range(1, 241):
    product = rng.choice(list(PRODUCTS))
    day = date(2024, 1, 1) + timedelta(days=rng.randrange(180))
    writer.writerow([f"A{number:05d}", day.isoformat(), rng.choice(REGIONS), product, rng.randint(1, 12), f"{PRODUCTS[product]:.2f}"])
