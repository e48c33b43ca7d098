"""Prints 1 when /app/last_entry.txt holds the last line of the unchanged /app/service.log, else 0."""

import hashlib
import sys
from pathlib import Path

LOG_SHA256 = "52d9df1083dddb7bbd2503a1cad29bc4f582533c8bc5192c2a81d3914ae4df5f"

log = Path("/app/service.log")
log_kept = log.is_file() and hashlib.sha256(log.read_bytes()).hexdigest() == LOG_SHA256
if not log_kept:
    print("/app/service.log was changed or removed", file=sys.stderr)
expected = log.read_text().splitlines()[-1].strip() if log_kept else None
answer = Path("/app/last_entry.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = found == expected
if not right:
    print(f"/app/last_entry.txt holds {found!r}, not the last line of the log", file=sys.stderr)
print(1 if log_kept and right else 0)
