#!/bin/bash
python3 - <<'PY'
import csv
from collections import defaultdict
from decimal import Decimal

with open("/app/customers.csv", newline="") as source:
    names = {row["customer_id"]: row["name"] for row in csv.DictReader(source)}
counts, totals = defaultdict(int), defaultdict(Decimal)
with open("/app/orders.csv", newline="") as source:
    for row in csv.DictReader(source):
        if row["status"] == "paid":
            counts[row["customer_id"]] += 1
            totals[row["customer_id"]] += Decimal(row["amount"])
with open("/app/summary.csv", "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["name", "orders", "total"])
    for customer in sorted(totals, key=totals.get, reverse=True):
        writer.writerow([names[customer], counts[customer], f"{totals[customer]:.2f}"])
PY
