"""Reward 1 when /app/answer.txt names the largest file, which must still be there."""

from pathlib import Path

EXPECTED = "/app/data/.cache/old exports/full dump.bin"

answer = Path("/app/answer.txt")
given = answer.read_text().strip() if answer.is_file() else ""
print(1 if given == EXPECTED and Path(EXPECTED).stat().st_size == 1_234_567 else 0)
