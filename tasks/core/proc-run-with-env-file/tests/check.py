"""Prints 1 when /app/report.txt is what /app/bin/report prints with the settings of prod.env, else 0."""

import sys
from pathlib import Path

expected = Path("/tests/expected_report.txt").read_text()
try:
    report = Path("/app/report.txt").read_text()
except (FileNotFoundError, UnicodeDecodeError) as e:
    print(f"no readable /app/report.txt: {e}", file=sys.stderr)
    report = ""
if report.strip() != expected.strip():
    print(f"/app/report.txt is not the report of prod.env's settings; it starts with {report[:120]!r}", file=sys.stderr)
print(1 if report.strip() == expected.strip() else 0)
