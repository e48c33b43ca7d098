"""Prints 1 when `python3 /app/circle.py [radius]` runs and prints the right area and square side for several radii, else 0."""

import math
import subprocess
import sys

RADII = [None, "1", "2.5", "10"]


def expected_output(radius: float) -> str:
    area = math.pi * radius**2
    return f"area: {area:.2f}\nsquare side: {math.sqrt(area):.2f}"


def output_of(radius) -> str:
    command = ["python3", "/app/circle.py"] + ([radius] if radius else [])
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=20)
    except (subprocess.TimeoutExpired, OSError) as e:
        return f"({e})"
    if result.returncode != 0:
        return f"(exit {result.returncode}) {result.stderr.strip()}"
    return "\n".join(line.rstrip() for line in result.stdout.strip().splitlines())


right = True
for radius in RADII:
    found, expected = output_of(radius), expected_output(float(radius or 3))
    if found != expected:
        print(f"python3 /app/circle.py {radius or ''}: {found!r}, expected {expected!r}", file=sys.stderr)
        right = False
        break
print(1 if right else 0)
