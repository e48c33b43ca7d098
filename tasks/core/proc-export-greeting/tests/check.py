"""Prints 1 when sourcing /app/env.sh exports GREETING=hello and TARGET=world to child processes, else 0."""

import os
import subprocess
import sys
from pathlib import Path

EXPECTED = ["hello", "world"]
COMMAND = 'source /app/env.sh && bash -c "echo \\$GREETING \\$TARGET"'


def main() -> int:
    if not Path("/app/env.sh").is_file():
        print("/app/env.sh does not exist", file=sys.stderr)
        return 0
    environment = {name: value for name, value in os.environ.items() if name not in ("GREETING", "TARGET")}
    try:
        result = subprocess.run(["bash", "-c", COMMAND], capture_output=True, text=True, timeout=20, cwd="/tmp", env=environment)
    except subprocess.TimeoutExpired:
        print("sourcing /app/env.sh did not finish", file=sys.stderr)
        return 0
    if result.returncode != 0 or result.stdout.strip() != " ".join(EXPECTED):
        print(f"a child of a shell that sourced /app/env.sh printed {result.stdout!r} (exit {result.returncode}), not {' '.join(EXPECTED)}", file=sys.stderr)
        return 0
    return 1


print(main())
