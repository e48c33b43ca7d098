"""Prints 1 when /app/exit_codes.csv lists every job script with the exit status it returns, else 0."""

import csv
import sys
from pathlib import Path

EXPECTED = {
    "backup.sh": "0",
    "clean cache.sh": "0",
    "deploy.sh": "3",
    "notify.sh": "0",
    "report.sh": "42",
    "sync data.sh": "1",
    "verify.sh": "255",
}


def main() -> int:
    path = Path("/app/exit_codes.csv")
    if not path.is_file():
        print("no /app/exit_codes.csv", file=sys.stderr)
        return 0
    rows = list(csv.reader(path.read_text(errors="replace").splitlines()))
    if not rows or [cell.strip() for cell in rows[0]] != ["script", "exit_code"]:
        print(f"the header is {rows[:1]}, not script,exit_code", file=sys.stderr)
        return 0
    found = {Path(row[0].strip()).name: row[1].strip() for row in rows[1:] if len(row) == 2}
    if len(rows) - 1 != len(EXPECTED) or found != EXPECTED:
        print(f"rows {rows[1:]} differ from the scripts' exit statuses", file=sys.stderr)
        return 0
    return 1


print(main())
