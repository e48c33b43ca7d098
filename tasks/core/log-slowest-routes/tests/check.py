"""Prints 1 when /app/slowest.csv names the three slowest routes in order with their averages (to 0.1 ms), else 0."""

import csv
import sys
from pathlib import Path

EXPECTED = [("/api/reports/{id}", 1098.2), ("/api/checkout", 644.1), ("/api/export", 505.5)]


def main() -> int:
    path = Path("/app/slowest.csv")
    rows = list(csv.reader(path.read_text(errors="replace").splitlines())) if path.is_file() else []
    rows = [[cell.strip() for cell in row] for row in rows if row]
    if not rows or rows[0] != ["route", "avg_ms"]:
        print(f"the header is {rows[:1]}, not route,avg_ms", file=sys.stderr)
        return 0
    try:
        found = [(route, float(average)) for route, average in rows[1:]]
    except ValueError:
        print(f"rows {rows[1:]} are not route,average pairs", file=sys.stderr)
        return 0
    if len(found) != len(EXPECTED) or any(route != want_route or abs(average - want) > 0.051 for (route, average), (want_route, want) in zip(found, EXPECTED)):
        print(f"rows {found} are not the three slowest routes with their averages", file=sys.stderr)
        return 0
    return 1


print(main())
