"""Prints 1 when /app/answer.txt holds the number of orders placed in March 2024, else 0."""

import sys
from pathlib import Path

EXPECTED = "48"

try:
    answer = Path("/app/answer.txt").read_text().strip()
except (FileNotFoundError, UnicodeDecodeError) as e:
    print(f"no readable /app/answer.txt: {e}", file=sys.stderr)
    answer = ""
if answer != EXPECTED:
    print(f"answer {answer[:80]!r} is not the number of orders placed in March 2024", file=sys.stderr)
print(1 if answer == EXPECTED else 0)
