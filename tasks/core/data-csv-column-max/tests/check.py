"""Prints 1 when /app/max_amount.txt holds the largest amount of the unchanged /app/sales.csv, else 0."""

import csv
import hashlib
import sys
from pathlib import Path

SALES_SHA256 = "b80cb1dae37e4aac6c3993d87e47bc474fc26d2b77393778143d676c312086c8"

source = Path("/app/sales.csv")
kept = source.is_file() and hashlib.sha256(source.read_bytes()).hexdigest() == SALES_SHA256
if not kept:
    print("/app/sales.csv was changed or removed", file=sys.stderr)
expected = max(float(row["amount"]) for row in csv.DictReader(source.open())) if kept else None
answer = Path("/app/max_amount.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
try:
    right = expected is not None and float(found) == expected
except ValueError:
    right = False
if not right:
    print(f"/app/max_amount.txt holds {found!r}, not the largest amount", file=sys.stderr)
print(1 if kept and right else 0)
