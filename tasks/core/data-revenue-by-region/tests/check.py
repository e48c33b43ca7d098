"""Reward 1 when /app/revenue.csv has the exact revenue of every region, sorted by region, two decimals, and sales.csv is unchanged."""

import hashlib
from pathlib import Path

SALES_SHA256 = "59a4fd0b6ae844c3d86a93c6c18ee8b85714ed3c5ef5c465e64419d1b04b536f"
EXPECTED = "region,revenue\nCentral,19622.84\nEast,13154.98\nNorth,20630.31\nSouth,17838.49\nWest,17549.99\n"

sales, revenue = Path("/app/sales.csv"), Path("/app/revenue.csv")
sales_intact = sales.is_file() and hashlib.sha256(sales.read_bytes()).hexdigest() == SALES_SHA256
lines = [line.strip().replace(" ", "") for line in revenue.read_text().splitlines() if line.strip()] if revenue.is_file() else []
print(1 if sales_intact and "\n".join(lines) + "\n" == EXPECTED else 0)
