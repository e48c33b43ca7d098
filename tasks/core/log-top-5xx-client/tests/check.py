"""Prints 1 when /app/answer.txt names the client that got the most 5xx responses, else 0."""

import sys
from pathlib import Path

EXPECTED = "10.0.7.23"

try:
    answer = Path("/app/answer.txt").read_text().strip()
except (FileNotFoundError, UnicodeDecodeError) as e:
    print(f"no readable /app/answer.txt: {e}", file=sys.stderr)
    answer = ""
if answer != EXPECTED:
    print(f"answer {answer[:80]!r} is not the client with the most 5xx responses", file=sys.stderr)
print(1 if answer == EXPECTED else 0)
