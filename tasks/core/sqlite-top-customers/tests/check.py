"""Prints 1 when /app/top_customers.csv lists the 5 biggest spenders (cancelled orders left out) with their totals, else 0."""

import csv
import sys
from pathlib import Path

EXPECTED = [
    ["Juniper Cafe", "2541.00"],
    ["Harbor Tools", "2428.98"],
    ["Dune Foods", "2002.30"],
    ["Birch & Co", "1938.77"],
    ["Fjord Supplies", "1337.62"],
]


def main() -> int:
    path = Path("/app/top_customers.csv")
    rows = list(csv.reader(path.read_text(errors="replace").splitlines())) if path.is_file() else []
    rows = [[cell.strip() for cell in row] for row in rows if row]
    if not rows or rows[0] != ["name", "total"]:
        print(f"the header is {rows[:1]}, not name,total", file=sys.stderr)
        return 0
    if rows[1:] != EXPECTED:
        print(f"rows {rows[1:]} are not the five biggest spenders with their totals", file=sys.stderr)
        return 0
    return 1


print(main())
