"""Prints 1 when /app/sum.txt holds the sum of the numbers in the unchanged /app/numbers.txt, else 0."""

import hashlib
import sys
from pathlib import Path

NUMBERS_SHA256 = "a33be764bdd049bbde0ba064d1d93d03ecef14bde7d145f1e6c772e99f1c5948"

source = Path("/app/numbers.txt")
kept = source.is_file() and hashlib.sha256(source.read_bytes()).hexdigest() == NUMBERS_SHA256
if not kept:
    print("/app/numbers.txt was changed or removed", file=sys.stderr)
expected = str(sum(int(line) for line in source.read_text().split())) if kept else None
answer = Path("/app/sum.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = found == expected
if kept and not right:
    print(f"/app/sum.txt holds {found!r}, not the sum of the numbers", file=sys.stderr)
print(1 if kept and right else 0)
