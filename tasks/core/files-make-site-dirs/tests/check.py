"""Prints 1 when /app/site/css, /app/site/js and /app/site/images are folders and /app/site/index.html is unchanged, else 0."""

import hashlib
import sys
from pathlib import Path

INDEX_SHA256 = "7ebc7c28a491fcc040876787ae04a34db71414cb1f22486ec0a02e6db20ae05c"
FOLDERS = ["css", "js", "images"]

site = Path("/app/site")
index = site / "index.html"
kept = index.is_file() and hashlib.sha256(index.read_bytes()).hexdigest() == INDEX_SHA256
if not kept:
    print("/app/site/index.html was changed or removed", file=sys.stderr)
missing = [name for name in FOLDERS if not (site / name).is_dir() or (site / name).is_symlink()]
if missing:
    print(f"these folders are missing under /app/site: {missing}", file=sys.stderr)
print(1 if kept and not missing else 0)
