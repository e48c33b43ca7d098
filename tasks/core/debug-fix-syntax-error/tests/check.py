"""Prints 1 when report.py runs and prints the right summary of /app/orders.csv (unchanged) and of other order files, else 0."""

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

ORDERS_SHA256 = "14c1e2b57dd910111d6c7ea96d2dfa6b741b8b92d5c658ce5bb8dd2127a9d01c"
OTHER_FILES = [
    "order_id,customer,amount\n1,A,10.00\n2,B,20.00\n3,C,45.50\n",
    "order_id,customer,amount\n7,Solo,999.99\n",
]


def expected_summary(text: str) -> str:
    amounts = [float(line.split(",")[-1]) for line in text.strip().splitlines()[1:]]
    total = sum(amounts)
    return f"orders: {len(amounts)}\ntotal: {total:.2f}\naverage: {total / len(amounts):.2f}"


def report_of(path: Path) -> str:
    try:
        result = subprocess.run(["python3", "/app/report.py", str(path)], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "(timed out)"
    return result.stdout.strip() if result.returncode == 0 else f"(exit {result.returncode}) {result.stderr.strip()}"


orders = Path("/app/orders.csv")
kept = orders.is_file() and hashlib.sha256(orders.read_bytes()).hexdigest() == ORDERS_SHA256
if not kept:
    print("/app/orders.csv was changed or removed", file=sys.stderr)
right = kept
with tempfile.TemporaryDirectory() as scratch:
    cases = [(orders, orders.read_text() if kept else "")]
    for index, text in enumerate(OTHER_FILES):
        path = Path(scratch) / f"orders-{index}.csv"
        path.write_text(text)
        cases.append((path, text))
    for path, text in cases:
        if not right:
            break
        found, expected = report_of(path), expected_summary(text)
        if found != expected:
            print(f"report of {path}: {found!r}, expected {expected!r}", file=sys.stderr)
            right = False
print(1 if right else 0)
