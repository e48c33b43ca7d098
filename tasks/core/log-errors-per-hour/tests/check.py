"""Prints 1 when /app/errors_per_hour.csv has the right ERROR count for every hour, else 0."""

import sys
from pathlib import Path


def lines_of(path: Path) -> list[str]:
    text = path.read_text(errors="replace") if path.is_file() else ""
    return [line.strip() for line in text.splitlines() if line.strip()]


found, expected = lines_of(Path("/app/errors_per_hour.csv")), lines_of(Path("/tests/expected.csv"))
if found != expected:
    print(f"/app/errors_per_hour.csv is {found[:12]}", file=sys.stderr)
print(1 if found == expected else 0)
