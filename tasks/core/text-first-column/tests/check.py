"""Prints 1 when /app/names.txt holds the first column of the unchanged /app/people.txt, in order, else 0."""

import hashlib
import sys
from pathlib import Path

PEOPLE_SHA256 = "ed6d87283626590acf08f8749e4fa896df86c4c20af3c1c3a2443e05191f26a6"

source = Path("/app/people.txt")
kept = source.is_file() and hashlib.sha256(source.read_bytes()).hexdigest() == PEOPLE_SHA256
if not kept:
    print("/app/people.txt was changed or removed", file=sys.stderr)
expected = [line.split()[0] for line in source.read_text().splitlines()] if kept else None
answer = Path("/app/names.txt")
found = [line.strip() for line in answer.read_text(errors="replace").strip().splitlines()] if answer.is_file() else []
right = found == expected
if kept and not right:
    print(f"/app/names.txt holds {found!r}, expected {expected!r}", file=sys.stderr)
print(1 if kept and right else 0)
