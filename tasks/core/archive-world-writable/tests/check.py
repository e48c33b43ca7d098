"""Half the reward for the sorted list of world-writable files, half for exactly those files losing (only) their others-write bit."""

import stat
from pathlib import Path

# file -> mode it must have at the end; the world-writable ones keep all bits but others-write
MODES = {
    "app/server.py": 0o644,
    "app/config.yml": 0o664,
    "app/run.sh": 0o775,
    "app/static/style.css": 0o644,
    "app/static/upload.tmp": 0o600,
    "data/users.db": 0o660,
    "data/cache.bin": 0o644,
    "data/export.csv": 0o664,
    "logs/access.log": 0o640,
    "logs/error log.txt": 0o620,
    "bin/tool": 0o755,
    "bin/helper": 0o775,
}
WORLD_WRITABLE = ["app/config.yml", "app/run.sh", "app/static/upload.tmp", "data/cache.bin", "logs/error log.txt"]

root = Path("/app/srv")
modes_right = all((root / name).is_file() and stat.S_IMODE((root / name).stat().st_mode) == mode for name, mode in MODES.items())
listing = Path("/app/world_writable.txt")
listed = [line.strip() for line in listing.read_text().splitlines() if line.strip()] if listing.is_file() else []
print(0.5 * (listed == sorted(f"/app/srv/{name}" for name in WORLD_WRITABLE)) + 0.5 * modes_right)
