"""Prints 1 when /app/app.conf equals the original with log_level changed from info to debug, else 0."""

import difflib
import sys
from pathlib import Path

original = Path("/tests/app.conf.original").read_text().rstrip("\n").split("\n")
expected = ["log_level = debug" if line == "log_level = info" else line for line in original]
path = Path("/app/app.conf")
found = path.read_text(errors="replace").rstrip("\n").split("\n") if path.is_file() else []
# Spacing around "=" on the changed line does not matter.
found = ["log_level = debug" if line.replace(" ", "") == "log_level=debug" else line for line in found]
right = found == expected
if not right:
    print("\n".join(difflib.unified_diff(expected, found, "expected", "found", lineterm="")), file=sys.stderr)
print(1 if right else 0)
