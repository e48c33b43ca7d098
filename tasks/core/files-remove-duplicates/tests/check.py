"""Reward 1 when /app/photos holds exactly the alphabetically first file of each set of identical files, unchanged."""

import hashlib
from pathlib import Path

KEPT = {
    "beach.jpg": "0c6c2d3db42aa2fd",
    "birthday.jpg": "2904a3bb16a8cff0",
    "city.jpg": "b6fe1b28e8161db3",
    "dog.jpg": "4dc412124009b0a4",
    "flowers.jpg": "f26e76b910d55ddf",
    "lake.jpg": "3253933d57be4411",
    "mountain.jpg": "194e2ea3684aead7",
    "river.jpg": "6fd39e9ebdb1a91e",
    "snow.jpg": "68563699fa80bc64",
    "sunset.jpg": "f25a0f948a4b7586",
}

folder = Path("/app/photos")
found = {path.name: hashlib.sha256(path.read_bytes()).hexdigest()[:16] for path in folder.iterdir()} if folder.is_dir() else {}
print(1 if found == KEPT else 0)
