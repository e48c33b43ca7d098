"""The share of the verifier's argument lists whose count `bash /app/nargs.sh ARGS...` prints right."""

import subprocess
import sys
from pathlib import Path

CASES = [
    [],
    ["apple", "banana", "cherry"],
    ["one"],
    ["two words", "and", "three more words"],
    ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"],
    ["*", "-n", "--help"],
]


def counts(arguments: list[str]) -> bool:
    try:
        result = subprocess.run(["bash", "/app/nargs.sh", *arguments], capture_output=True, text=True, timeout=20, cwd="/tmp")
    except subprocess.TimeoutExpired:
        return False
    ok = result.returncode == 0 and result.stdout.strip() == str(len(arguments))
    if not ok:
        print(f"nargs.sh {arguments!r} printed {result.stdout!r} (exit {result.returncode})", file=sys.stderr)
    return ok


passed = sum(counts(case) for case in CASES) if Path("/app/nargs.sh").is_file() else 0
print(round(passed / len(CASES), 3))
