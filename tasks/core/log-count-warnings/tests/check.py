"""Prints 1 when /app/warn_count.txt holds the number of WARN lines of the unchanged /app/app.log, else 0."""

import hashlib
import sys
from pathlib import Path

LOG_SHA256 = "eaa7c67147a4ca450e3147582855b047ff702d13006b08ee1e93f7174e9bd445"
COUNT_SHA256 = "2c624232cdd221771294dfbb310aca000a0df6ac8b66b696d90ef06fdefb64a3"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


log_kept = sha256_of(Path("/app/app.log")) == LOG_SHA256
if not log_kept:
    print("/app/app.log was changed or removed", file=sys.stderr)
answer = Path("/app/warn_count.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = hashlib.sha256(found.encode()).hexdigest() == COUNT_SHA256
if not right:
    print(f"/app/warn_count.txt holds {found!r}, not the number of WARN lines", file=sys.stderr)
print(1 if log_kept and right else 0)
