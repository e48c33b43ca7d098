"""Prints 1 when rectangle_area in /app/geometry.py multiplies and the other functions still work as before, else 0."""

import importlib.util
import sys

RECTANGLES = [((3, 4), 12), ((5, 5), 25), ((7, 1), 7), ((0, 9), 0), ((2.5, 4), 10), ((12, 30), 360)]
OTHERS = [
    ("square_area", (3,), 9), ("square_area", (1.5,), 2.25), ("square_area", (10,), 100),
    ("triangle_area", (4, 3), 6), ("triangle_area", (10, 5), 25),
    ("total_area", ([12, 9, 6],), 27), ("total_area", ([],), 0),
]


def problems() -> list[str]:
    spec = importlib.util.spec_from_file_location("geometry", "/app/geometry.py")
    geometry = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(geometry)
    found = []
    for args, expected in RECTANGLES:
        got = geometry.rectangle_area(*args)
        if got != expected:
            found.append(f"rectangle_area{args} returned {got!r}, expected {expected!r}")
    for name, args, expected in OTHERS:
        got = getattr(geometry, name)(*args)
        if got != expected:
            found.append(f"{name}{args} returned {got!r}, expected {expected!r}")
    return found


try:
    issues = problems()
except Exception as e:  # a broken or missing module, or a missing function
    issues = [f"/app/geometry.py could not be used: {e!r}"]
for issue in issues:
    print(issue, file=sys.stderr)
print(0 if issues else 1)
