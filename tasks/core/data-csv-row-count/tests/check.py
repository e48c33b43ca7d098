"""Prints 1 when /app/order_count.txt holds the number of orders (lines after the header) of the unchanged /app/orders.csv, else 0."""

import hashlib
import sys
from pathlib import Path

ORDERS_SHA256 = "83bb5a3a05a08ab82f9af9f53b04821e5cf0f7263381a12f93952fb336b15cbe"

source = Path("/app/orders.csv")
kept = source.is_file() and hashlib.sha256(source.read_bytes()).hexdigest() == ORDERS_SHA256
if not kept:
    print("/app/orders.csv was changed or removed", file=sys.stderr)
expected = str(len(source.read_text().splitlines()) - 1) if kept else None
answer = Path("/app/order_count.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = found == expected
if kept and not right:
    print(f"/app/order_count.txt holds {found!r}, not the number of orders", file=sys.stderr)
print(1 if kept and right else 0)
