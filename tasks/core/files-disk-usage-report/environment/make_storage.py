"""Fills a storage area with directories of different sizes and depths, one of them holding only empty folders."""

import random
import sys
from pathlib import Path

root = Path(sys.argv[1])
rng = random.Random(5)
LAYOUT = {
    "alpha": ["", "src", "src/lib", "docs"],
    "backups": ["", "2023", "2024", "2024/03"],
    "media": ["", "video", "audio", "audio/raw", ".thumbnails"],
    "old projects": ["website", "website/css", "app"],
    "scratch": ["tmp"],
    "logs": [""],
}
for top, subfolders in LAYOUT.items():
    for subfolder in subfolders:
        (root / top / subfolder).mkdir(parents=True, exist_ok=True)
        if top == "scratch":
            continue
        for index in range(rng.randint(2, 6)):
            (root / top / subfolder / f"file{index}.dat").write_bytes(b"x" * rng.randint(10, 90_000))
(root / "index.txt").write_text("storage index\n" * 500)
