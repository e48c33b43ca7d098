"""Reward 1 when /app/summary.csv lists each customer with paid orders, their count and total, largest total first."""

import csv
import hashlib
from pathlib import Path

INPUTS_SHA256 = {
    "customers.csv": "3774a494ab8d2e2ca1d5e795929e2dd7a8b3baa0bff495a87759acc944e719fd",
    "orders.csv": "c46d7df65871dd962adaa2cbd22dbc751964e322b52025b27ec5f183c4ca0b89",
}
EXPECTED = """
name,orders,total
Mateo Khan,9,1650.55
Lucas Weber,7,1546.97
Chloe Kim,7,1451.81
Sofia Silva,7,1435.96
Mia Novak,7,1304.70
Ava Novak,4,1276.96
Mateo Moreau,5,1264.28
Ethan Garcia,6,1209.70
Yuki Berg,5,1163.87
Yuki Kim,6,969.56
Liam Moreau,5,918.05
Omar Novak,4,855.84
Yuki Silva,6,723.66
Noah Silva,3,721.34
Liam Weber,4,580.49
Chloe Silva,2,454.57
Sofia Okafor,2,250.63
Ethan Novak,2,222.51
Mia Rossi,1,186.26
"""


def intact(name: str) -> bool:
    path = Path("/app") / name
    return path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == INPUTS_SHA256[name]


summary = Path("/app/summary.csv")
rows = []
if summary.is_file():
    with summary.open(newline="") as table:
        rows = [[field.strip() for field in row] for row in csv.reader(table) if row]
expected = [line.split(",") for line in EXPECTED.strip().splitlines()]
print(1 if all(intact(name) for name in INPUTS_SHA256) and rows == expected else 0)
