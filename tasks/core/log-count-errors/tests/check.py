"""Prints 1 when /app/error_count.txt holds the number of ERROR entries of the unchanged /app/logs/app.log, else 0."""

import hashlib
import sys
from pathlib import Path

LOG_SHA256 = "25a60f4e9f5bc472bdbdd6fe4cbe1b7dd50bceaae6422393b07545fe0730e89a"
COUNT_SHA256 = "0b918943df0962bc7a1824c0555a389347b4febdc7cf9d1254406d80ce44e3f9"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


log_kept = sha256_of(Path("/app/logs/app.log")) == LOG_SHA256
if not log_kept:
    print("/app/logs/app.log was changed or removed", file=sys.stderr)
answer = Path("/app/error_count.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = hashlib.sha256(found.encode()).hexdigest() == COUNT_SHA256
if not right:
    print(f"/app/error_count.txt holds {found!r}, not the number of ERROR entries", file=sys.stderr)
print(1 if log_kept and right else 0)
