"""Writes a service tree where a few files (and one folder) are writable by anyone."""

import sys
from pathlib import Path

MODES = {
    "app/server.py": 0o644,
    "app/config.yml": 0o666,
    "app/run.sh": 0o777,
    "app/static/style.css": 0o644,
    "app/static/upload.tmp": 0o602,
    "data/users.db": 0o660,
    "data/cache.bin": 0o646,
    "data/export.csv": 0o664,
    "logs/access.log": 0o640,
    "logs/error log.txt": 0o622,
    "bin/tool": 0o755,
    "bin/helper": 0o775,
}

root = Path(sys.argv[1])
for name, mode in MODES.items():
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(f"{name}\n")
    (root / name).chmod(mode)
(root / "shared").mkdir()
(root / "shared").chmod(0o777)
