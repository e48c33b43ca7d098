"""Half the reward for deleting exactly the broken links, half for listing them in /app/broken.txt, sorted."""

import os
from pathlib import Path

BROKEN = sorted([
    "/app/links/notes",
    "/app/links/missing",
    "/app/links/current/next.csv",
    "/app/links/current/notes-again",
    "/app/links/old/zero version.csv",
])
KEPT = {
    "/app/links/report": "/app/targets/report.txt",
    "/app/links/config": "../targets/app.conf",
    "/app/links/data": "/app/targets/data",
    "/app/links/current/latest.csv": "/app/targets/data/v2.csv",
    "/app/links/old/first.csv": "/app/targets/data/v1.csv",
    "/app/links/old/latest-copy.csv": "/app/links/current/latest.csv",
}

links_kept = all(os.path.islink(path) and os.readlink(path) == target for path, target in KEPT.items())
deleted = links_kept and Path("/app/links/plain.txt").is_file() and not any(os.path.lexists(path) for path in BROKEN)
listing = Path("/app/broken.txt")
listed = listing.is_file() and [line.strip() for line in listing.read_text().splitlines() if line.strip()] == BROKEN
print(0.5 * deleted + 0.5 * listed)
