"""Prints 1 when /app/answer.txt holds the full hash of the commit that set DEBUG = True in config/settings.py, else 0."""

import sys
from pathlib import Path

EXPECTED = "387c047069853b699f065cecd191c59e893775ed"

try:
    answer = Path("/app/answer.txt").read_text().strip()
except (FileNotFoundError, UnicodeDecodeError) as e:
    print(f"no readable /app/answer.txt: {e}", file=sys.stderr)
    answer = ""
if answer != EXPECTED:
    print(f"answer {answer[:80]!r} is not the commit that set DEBUG = True in config/settings.py", file=sys.stderr)
print(1 if answer == EXPECTED else 0)
