"""Reward 1 when /app/usage.txt lists each storage directory with the exact sum of its file sizes, largest first."""

from pathlib import Path

EXPECTED = [("media", 814977), ("alpha", 657551), ("backups", 531245), ("old projects", 386359), ("logs", 182262), ("scratch", 0)]


def parse(line: str) -> tuple[str, int] | None:
    name, _, number = line.strip().rpartition(" ")
    return (name.strip(), int(number)) if number.isdigit() else None


report = Path("/app/usage.txt")
lines = [line for line in report.read_text().splitlines() if line.strip()] if report.is_file() else []
print(1 if [parse(line) for line in lines] == EXPECTED else 0)
