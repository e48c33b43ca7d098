"""Prints 1 when `python3 /app/square.py N` prints the square of N for every one of the verifier's integers, else 0."""

import subprocess
import sys
from pathlib import Path

NUMBERS = [7, 3, 0, -4, 12, 1, -15, 250]


def squares(number: int) -> bool:
    try:
        result = subprocess.run(["python3", "/app/square.py", str(number)], capture_output=True, text=True, timeout=20, cwd="/tmp")
    except subprocess.TimeoutExpired:
        print(f"square.py {number} did not finish", file=sys.stderr)
        return False
    ok = result.returncode == 0 and result.stdout.strip() == str(number * number)
    if not ok:
        print(f"square.py {number} printed {result.stdout!r} (exit {result.returncode}), expected {number * number}", file=sys.stderr)
    return ok


if not Path("/app/square.py").is_file():
    print("/app/square.py does not exist", file=sys.stderr)
    print(0)
else:
    results = [squares(number) for number in NUMBERS]
    print(1 if all(results) else 0)
