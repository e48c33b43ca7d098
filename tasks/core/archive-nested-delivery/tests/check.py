"""Reward 1 when /app/manifest.txt is the manifest from inside the delivery and the delivery is still there."""

import zipfile
from pathlib import Path

EXPECTED = "delivery: 2024-0931\nsupplier: Northwind Parts\nitems: 1250\nchecksum: 7f3a9c\n"

delivery_kept = Path("/app/delivery.bin").is_file() and zipfile.is_zipfile("/app/delivery.bin")
manifest = Path("/app/manifest.txt")
print(1 if delivery_kept and manifest.is_file() and manifest.read_text() == EXPECTED else 0)
