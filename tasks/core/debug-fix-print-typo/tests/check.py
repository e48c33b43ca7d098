"""Prints 1 when `python3 /app/hello.py` exits 0 and prints exactly the greeting, else 0."""

import subprocess
import sys

GREETING = "Good morning, team!"

try:
    result = subprocess.run(["python3", "/app/hello.py"], capture_output=True, text=True, timeout=20)
    found = result.stdout.strip() if result.returncode == 0 else f"(exit {result.returncode}) {result.stderr.strip()}"
except (subprocess.TimeoutExpired, OSError) as e:
    found = f"({e})"
right = found == GREETING
if not right:
    print(f"python3 /app/hello.py gave {found!r}, expected {GREETING!r}", file=sys.stderr)
print(1 if right else 0)
