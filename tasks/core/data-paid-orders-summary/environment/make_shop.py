"""Writes customers.csv and orders.csv: orders are paid, pending or refunded, and some customers have none paid."""

import csv
import random
import sys
from pathlib import Path

FIRST = ["Mia", "Noah", "Emma", "Liam", "Ava", "Lucas", "Sofia", "Ethan", "Chloe", "Mateo", "Zoe", "Omar", "Lena", "Ivan", "Yuki"]
LAST = ["Garcia", "Kim", "Novak", "Okafor", "Rossi", "Silva", "Berg", "Khan", "Moreau", "Weber"]

folder = Path(sys.argv[1])
rng = random.Random(41)
names = rng.sample([f"{first} {last}" for first in FIRST for last in LAST], 24)
with (folder / "customers.csv").open("w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["customer_id", "name", "country"])
    for number, name in enumerate(names, start=1):
        writer.writerow([f"C{number:03d}", name, rng.choice(["DE", "FR", "US", "JP", "BR", "NG"])])
with (folder / "orders.csv").open("w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["order_id", "customer_id", "amount", "status"])
    for number in range(1, 181):
        customer = rng.randint(1, 24)
        # customers 20 to 24 never pay, so they must not appear in the summary
        status = rng.choice(["pending", "refunded"]) if customer >= 20 else rng.choice(["paid", "paid", "paid", "pending", "refunded"])
        writer.writerow([f"O{number:04d}", f"C{customer:03d}", f"{rng.randint(500, 40000) / 100:.2f}", status])
