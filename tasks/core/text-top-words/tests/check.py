"""Reward 1 when /app/top_words.txt lists the ten most frequent case-folded words with their exact counts, most frequent first."""

from pathlib import Path

EXPECTED = [
    ["the", "410"],
    ["data", "209"],
    ["server", "163"],
    ["we", "129"],
    ["system", "95"],
    ["users", "77"],
    ["report", "68"],
    ["team", "61"],
    ["storage", "55"],
    ["network", "52"],
]

answer = Path("/app/top_words.txt")
lines = [line.split() for line in answer.read_text().splitlines() if line.strip()] if answer.is_file() else []
print(1 if lines == EXPECTED else 0)
