"""Reward 1 when /app/answer.txt holds the number of error events of the auth service (and nothing else)."""

from pathlib import Path

EXPECTED = "24"

answer = Path("/app/answer.txt")
print(1 if answer.is_file() and answer.read_text().strip() == EXPECTED else 0)
