"""Prints 1 when /app/report.txt holds exactly what the unchanged /app/report.sh prints, else 0."""

import hashlib
import sys
from pathlib import Path

SCRIPT_SHA256 = "6f19c41fce4f2375cf905ed2bd828e6ef358f8eda882f5d9ac016d5f760f0857"
OUTPUT_SHA256 = "2cb86176a7c3e141ad7eca9c2494d41140a36fed1e12fb3ca447acd5ab6c34c6"


def main() -> int:
    script = Path("/app/report.sh")
    if not script.is_file() or hashlib.sha256(script.read_bytes()).hexdigest() != SCRIPT_SHA256:
        print("/app/report.sh was changed or removed", file=sys.stderr)
        return 0
    answer = Path("/app/report.txt")
    found = answer.read_text(errors="replace") if answer.is_file() else ""
    found = "\n".join(line.rstrip() for line in found.strip().splitlines())
    if hashlib.sha256(found.encode()).hexdigest() != OUTPUT_SHA256:
        print(f"/app/report.txt holds {found!r}, not the output of /app/report.sh", file=sys.stderr)
        return 0
    return 1


print(main())
