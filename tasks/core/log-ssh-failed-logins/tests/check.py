"""Prints 1 when /app/suspects.txt lists exactly the IPs with at least 5 failed passwords, with counts, most first."""

import sys
from pathlib import Path

EXPECTED = ["203.0.113.7 23", "198.51.100.23 17", "192.0.2.144 9", "203.0.113.90 6", "198.51.100.5 5"]

path = Path("/app/suspects.txt")
found = [" ".join(line.split()) for line in (path.read_text(errors="replace") if path.is_file() else "").splitlines() if line.strip()]
if found != EXPECTED:
    print(f"/app/suspects.txt is {found[:10]}", file=sys.stderr)
print(1 if found == EXPECTED else 0)
