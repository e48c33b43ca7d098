"""Prints 1 when /app/sorted_names.txt holds the names of the unchanged /app/names.txt in alphabetical order, without blank lines, else 0."""

import hashlib
import sys
from pathlib import Path

NAMES_SHA256 = "724a44614cad43d5e1ba9d2bfdd1e5a526c73ce3aae321c7468798944f2b9cce"

source = Path("/app/names.txt")
kept = source.is_file() and hashlib.sha256(source.read_bytes()).hexdigest() == NAMES_SHA256
if not kept:
    print("/app/names.txt was changed or removed", file=sys.stderr)
expected = sorted(line.strip() for line in source.read_text().splitlines() if line.strip()) if kept else None
answer = Path("/app/sorted_names.txt")
found = [line.rstrip() for line in answer.read_text(errors="replace").rstrip("\n").split("\n")] if answer.is_file() else []
right = found == expected
if not right:
    print(f"/app/sorted_names.txt holds {found!r}, expected {expected!r}", file=sys.stderr)
print(1 if kept and right else 0)
