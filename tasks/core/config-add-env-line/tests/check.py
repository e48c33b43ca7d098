"""Prints 1 when /app/.env holds its original lines unchanged and in order plus one new line MAX_CONNECTIONS=100, else 0."""

import sys
from pathlib import Path

NEW_LINE = "MAX_CONNECTIONS=100"

original = Path("/tests/env.original").read_text().splitlines()
path = Path("/app/.env")
found = [line.rstrip() for line in path.read_text(errors="replace").splitlines() if line.strip()] if path.is_file() else []
added = [line for line in found if line.strip() == NEW_LINE]
kept = [line for line in found if line.strip() != NEW_LINE]
if len(added) != 1:
    print(f"/app/.env holds the line {NEW_LINE} {len(added)} times, not once", file=sys.stderr)
if kept != original:
    print(f"the other lines of /app/.env are {kept!r}, not {original!r}", file=sys.stderr)
print(1 if len(added) == 1 and kept == original else 0)
