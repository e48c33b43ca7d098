"""The share of the verifier's cases where retry.sh runs the command the right number of times and exits with the right status."""

import subprocess
import tempfile
from pathlib import Path

# flaky.sh COUNTER SUCCEED_AT CODE [ARGS...]: counts its runs, prints its ARGS, fails with CODE until run SUCCEED_AT
FLAKY = """#!/bin/bash
count=$(( $(cat "$1" 2>/dev/null || echo 0) + 1 ))
echo "$count" > "$1"
for arg in "${@:4}"; do printf '[%s]' "$arg"; done
echo
[ "$count" -ge "$2" ] && exit 0
exit "$3"
"""

# (N, SUCCEED_AT, CODE, ARGS, expected exit status, expected runs)
CASES = [
    ("5", "3", "1", [], 0, 3),
    ("2", "4", "7", [], 7, 2),
    ("3", "1", "1", ["two words", "x"], 0, 1),
    ("4", "9", "3", ["a  b"], 3, 4),
]


def behaves(n: str, succeed_at: str, code: str, args: list[str], status: int, runs: int, folder: Path) -> bool:
    flaky, counter = folder / "flaky.sh", folder / "count"
    flaky.write_text(FLAKY)
    flaky.chmod(0o755)
    try:
        result = subprocess.run(["/app/retry.sh", n, str(flaky), str(counter), succeed_at, code, *args], capture_output=True, text=True, timeout=20)
    except (subprocess.TimeoutExpired, OSError):
        return False
    printed = "".join(f"[{arg}]" for arg in args) + "\n"
    ran = int(counter.read_text()) if counter.is_file() else 0
    return result.returncode == status and ran == runs and result.stdout == printed * runs


passed = 0
for case in CASES:
    with tempfile.TemporaryDirectory() as scratch:
        passed += behaves(*case, Path(scratch))
print(round(passed / len(CASES), 3))
