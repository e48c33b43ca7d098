"""Prints 1 when /app/settings_path.txt holds the absolute path of the (unmoved, unchanged) settings.yaml, else 0."""

import hashlib
import sys
from pathlib import Path

SETTINGS = Path("/app/project/services/api/config/settings.yaml")
SETTINGS_SHA256 = "5a1056137dc3d5a33b5c516ac4943d36173ee93ce692d01441f95757b4973112"

kept = SETTINGS.is_file() and hashlib.sha256(SETTINGS.read_bytes()).hexdigest() == SETTINGS_SHA256
if not kept:
    print(f"{SETTINGS} was moved, changed or removed", file=sys.stderr)
answer = Path("/app/settings_path.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = found == str(SETTINGS)
if not right:
    print(f"/app/settings_path.txt holds {found!r}, not the absolute path of settings.yaml", file=sys.stderr)
print(1 if kept and right else 0)
