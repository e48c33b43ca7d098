"""Prints 1 when /app/line_count.txt holds the number of lines of the unchanged /app/poem.txt, else 0."""

import hashlib
import sys
from pathlib import Path

POEM_SHA256 = "2ab70931e8eaba3aa0e75b1339f4297814ffac0d4e2977d9559b92da80c91334"

poem = Path("/app/poem.txt")
kept = poem.is_file() and hashlib.sha256(poem.read_bytes()).hexdigest() == POEM_SHA256
if not kept:
    print("/app/poem.txt was changed or removed", file=sys.stderr)
expected = str(len(poem.read_text().splitlines())) if kept else None
answer = Path("/app/line_count.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = found == expected
if kept and not right:
    print(f"/app/line_count.txt holds {found!r}, not the number of lines of the poem", file=sys.stderr)
print(1 if kept and right else 0)
