"""The share of the verifier's cases that colsum.py gets right: sums with quoted fields, empty cells and negatives, and a missing column."""

import subprocess
import tempfile
from pathlib import Path

# (CSV text, COLUMN, expected stdout, expected exit status)
CASES = [
    (None, "amount", "1084.25", 0),
    ('id,name,price,qty\n1,"Bolt, M6",0.10,400\n2,Nut,0.05,\n3,"Washer, flat",0.02,1200\n', "qty", "1600.00", 0),
    ("city,delta\nOslo,-3.5\nRome,\nLima,10.25\nCairo,-0.75\n", "delta", "6.00", 0),
    ("a,b\n1,2\n", "c", "", 2),
]


def sums(text: str | None, column: str, stdout: str, status: int, folder: Path) -> bool:
    path = Path("/app/expenses.csv")
    if text is not None:
        path = folder / "input.csv"
        path.write_text(text)
    try:
        result = subprocess.run(["python3", "/app/colsum.py", str(path), column], capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return False
    return result.returncode == status and result.stdout.strip() == stdout and (status == 0 or result.stderr.strip() != "")


passed = 0
for case in CASES:
    with tempfile.TemporaryDirectory() as scratch:
        passed += Path("/app/colsum.py").is_file() and sums(*case, Path(scratch))
print(round(passed / len(CASES), 3))
