#!/bin/bash
python3 - <<'PY'
import csv
from collections import defaultdict
from decimal import Decimal

totals = defaultdict(Decimal)
with open("/app/sales.csv", newline="") as sales:
    for row in csv.DictReader(sales):
        totals[row["region"]] += int(row["quantity"]) * Decimal(row["unit_price"])
with open("/app/revenue.csv", "w", newline="") as out:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["region", "revenue"])
    for region in sorted(totals):
        writer.writerow([region, f"{totals[region]:.2f}"])
PY
