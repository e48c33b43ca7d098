"""Prints 1 when /app/release_notes.md is the original with every Quickpad replaced by Notely, and nothing else changed, else 0."""

import difflib
import sys
from pathlib import Path

expected = Path("/tests/release_notes.md.expected").read_text().rstrip("\n")
path = Path("/app/release_notes.md")
found = path.read_text(errors="replace").rstrip("\n") if path.is_file() else ""
if found != expected:
    print("".join(difflib.unified_diff(expected.splitlines(True), found.splitlines(True), "expected", "found")), file=sys.stderr)
print(1 if found == expected else 0)
