"""Prints 1 when /app/loud.txt is the unchanged /app/quiet.txt in upper case, else 0."""

import hashlib
import sys
from pathlib import Path

QUIET_SHA256 = "85c7f201e49f71f8d451bfe63c29d9869ec6e1274b5c795031174f27039854e2"

source = Path("/app/quiet.txt")
kept = source.is_file() and hashlib.sha256(source.read_bytes()).hexdigest() == QUIET_SHA256
if not kept:
    print("/app/quiet.txt was changed or removed", file=sys.stderr)
expected = [line.upper() for line in source.read_text().splitlines()] if kept else None
answer = Path("/app/loud.txt")
found = [line.rstrip() for line in answer.read_text(errors="replace").strip().splitlines()] if answer.is_file() else []
right = found == expected
if kept and not right:
    print(f"/app/loud.txt holds {found!r}, expected {expected!r}", file=sys.stderr)
print(1 if kept and right else 0)
