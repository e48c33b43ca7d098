"""Writes photos, some of them identical copies under other names, and some unrelated ones of equal size."""

import random
import sys
from pathlib import Path

GROUPS = [
    ["sea.jpg", "copy1.jpg", "beach.jpg"],
    ["garden.jpg", "flowers.jpg"],
    ["mountain.jpg"],
    ["party.jpg", "cake.jpg", "birthday.jpg", "party2.jpg"],
    ["sunset.jpg"],
    ["puppy.jpg", "dog.jpg"],
    ["city.jpg"],
    ["winter.jpg", "snow.jpg"],
    ["river.jpg"],
    ["lake.jpg"],
]

folder = Path(sys.argv[1])
folder.mkdir(parents=True)
rng = random.Random(3)
for number, names in enumerate(GROUPS):
    # every other group has the same size as the one before it, so equal size does not mean equal content
    size = 40_000 + (number // 2) * 7_000
    blob = rng.randbytes(size)
    for name in names:
        (folder / name).write_bytes(blob)
