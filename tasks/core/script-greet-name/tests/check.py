"""The share of the verifier's names that /app/greet.sh, run directly, greets exactly right."""

import subprocess
import sys

NAMES = ["Alice", "Bob", "Mary Ann", "Jo"]


def greets(name: str) -> bool:
    try:
        result = subprocess.run(["/app/greet.sh", name], capture_output=True, text=True, timeout=20, cwd="/tmp")
    except (OSError, subprocess.TimeoutExpired) as error:
        print(f"/app/greet.sh {name!r}: {error}", file=sys.stderr)
        return False
    ok = result.returncode == 0 and result.stdout.strip() == f"Hello, {name}!"
    if not ok:
        print(f"/app/greet.sh {name!r} printed {result.stdout!r} (exit {result.returncode})", file=sys.stderr)
    return ok


print(round(sum(greets(name) for name in NAMES) / len(NAMES), 3))
