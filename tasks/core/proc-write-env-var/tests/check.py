"""Prints 1 when /app/release.txt holds exactly the value of APP_RELEASE (one line), else 0."""

import hashlib
import sys
from pathlib import Path

RELEASE_SHA256 = "a5b16ec6086e91ebc3c88e3c1c9c9b2ad1d45d0d1dda08c1aaeba7efe8d66dd1"

path = Path("/app/release.txt")
found = path.read_text(errors="replace").strip() if path.is_file() else ""
ok = hashlib.sha256(found.encode()).hexdigest() == RELEASE_SHA256
if not ok:
    print(f"/app/release.txt holds {found!r}, not the value of APP_RELEASE", file=sys.stderr)
print(1 if ok else 0)
