"""Prints 1 when app.env differs from the original only in DEBUG, now false, else 0."""

import difflib
import sys
from pathlib import Path

expected = Path("/tests/app.env.expected").read_text().rstrip("\n")
path = Path("/app/config/app.env")
found = path.read_text(errors="replace").rstrip("\n") if path.is_file() else ""
if found != expected:
    print("".join(difflib.unified_diff(expected.splitlines(True), found.splitlines(True), "expected", "found")), file=sys.stderr)
print(1 if found == expected else 0)
