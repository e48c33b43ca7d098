"""Prints 1 when /app/first_error.txt holds the timestamp of the first ERROR entry of the unchanged /app/logs/server.log, else 0."""

import hashlib
import sys
from pathlib import Path

LOG_SHA256 = "ef051f1435fdf3c3efc610624f1c13da2a3ef91a2c62448b740488f0b546f2ca"
TIMESTAMP_SHA256 = "b65e30a0c09da145b4438f14e5ff570d3739c5f8035e7cc9631e273b95a57ec6"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


log_kept = sha256_of(Path("/app/logs/server.log")) == LOG_SHA256
if not log_kept:
    print("/app/logs/server.log was changed or removed", file=sys.stderr)
answer = Path("/app/first_error.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = hashlib.sha256(found.encode()).hexdigest() == TIMESTAMP_SHA256
if not right:
    print(f"/app/first_error.txt holds {found!r}, not the timestamp of the first ERROR entry", file=sys.stderr)
print(1 if log_kept and right else 0)
