"""Builds a directory tree of files with varied sizes; the two largest sit in awkward places."""

import random
import sys
from pathlib import Path

root = Path(sys.argv[1])
rng = random.Random(7)
folders = ["logs", "logs/archive", "reports/2023", "reports/2024", "images", "tmp", ".cache/old exports", "notes"]
for index in range(60):
    folder = root / rng.choice(folders)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{rng.choice(['data', 'report', 'img', 'log', 'backup'])}-{index:03d}{rng.choice(['.txt', '.bin', '.log', '.csv'])}"
    (folder / name).write_bytes(rng.randbytes(rng.randint(200, 400_000)))
(root / "images" / "panorama final.raw").write_bytes(rng.randbytes(1_100_000))
(root / ".cache" / "old exports" / "full dump.bin").write_bytes(rng.randbytes(1_234_567))
(root / "notes" / "todo.txt").write_text("clean up /app/data\n")
