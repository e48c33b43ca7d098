"""Prints 1 when countdown.py counts down from N to 1 and then prints Liftoff! for several N, else 0."""

import subprocess
import sys


def output_of(n: int) -> str:
    try:
        result = subprocess.run(["python3", "/app/countdown.py", str(n)], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "(timed out)"
    return result.stdout.strip() if result.returncode == 0 else f"(exit {result.returncode}) {result.stderr.strip()}"


right = True
for n in (3, 1, 2, 10, 25):
    expected = "\n".join([*(str(k) for k in range(n, 0, -1)), "Liftoff!"])
    found = output_of(n)
    if found != expected:
        print(f"countdown.py {n} printed {found!r}, expected {expected!r}", file=sys.stderr)
        right = False
print(1 if right else 0)
