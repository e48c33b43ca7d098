"""Reward 1 when the CLI prints the right report for the unchanged stock.csv and for a second file the agent never saw."""

import hashlib
import subprocess
from pathlib import Path

STOCK_SHA256 = "b01320d875adc0465d36ac31539ba50891d65c0cd4b221d8126a27ca964c2ae6"
REPORTS = {
    "stock.csv": """
bolt M6      400 x   0.12 =    48.00
nut M6       380 x   0.05 =    19.00
washer      1200 x   0.02 =    24.00
hinge         35 x   3.40 =   119.00
bracket       60 x   1.75 =   105.00
TOTAL 315.00
""",
    "/tests/other.csv": """
cable 2m      12 x   7.49 =    89.88
adapter, usb-c     3 x  18.75 =    56.25
TOTAL 146.13
""",
}


def report(path: str) -> str:
    result = subprocess.run(["python3", "-m", "inventory.cli", path], cwd="/app", capture_output=True, text=True, timeout=30)
    return "\n".join(line.rstrip() for line in result.stdout.strip().splitlines()) if result.returncode == 0 else ""


stock = Path("/app/stock.csv")
unchanged = stock.is_file() and hashlib.sha256(stock.read_bytes()).hexdigest() == STOCK_SHA256
print(1 if unchanged and all(report(path) == expected.strip() for path, expected in REPORTS.items()) else 0)
