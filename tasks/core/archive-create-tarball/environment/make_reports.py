"""Writes a small reports folder with one level of subfolders."""

import random
import sys
from pathlib import Path

root = Path(sys.argv[1])
rng = random.Random(9)
files = {"summary.txt": "Quarterly reports 2024: see the q1-q4 folders.\n"}
for quarter in ("q1", "q2", "q3", "q4"):
    rows = "".join(f"{region},{rng.randint(1000, 90000)}\n" for region in ("north", "south", "east", "west"))
    files[f"{quarter}/sales.csv"] = "region,revenue\n" + rows
    files[f"{quarter}/notes.md"] = f"# {quarter.upper()} notes\n\nRevenue grew by {rng.randint(1, 12)}%.\n"
for name, text in files.items():
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)
