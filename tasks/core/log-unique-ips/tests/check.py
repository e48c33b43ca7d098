"""Prints 1 when /app/ip_count.txt holds the number of distinct client IPs of the unchanged /app/access.log, else 0."""

import hashlib
import sys
from pathlib import Path

LOG_SHA256 = "641595bac5d3d7a82dbb0f983b1ca650644b57798d84a740a6b3f88050267477"
COUNT_SHA256 = "e7f6c011776e8db7cd330b54174fd76f7d0216b612387a5ffcfb81e6f0919683"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


log_kept = sha256_of(Path("/app/access.log")) == LOG_SHA256
if not log_kept:
    print("/app/access.log was changed or removed", file=sys.stderr)
answer = Path("/app/ip_count.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = hashlib.sha256(found.encode()).hexdigest() == COUNT_SHA256
if not right:
    print(f"/app/ip_count.txt holds {found!r}, not the number of distinct client IPs", file=sys.stderr)
print(1 if log_kept and right else 0)
