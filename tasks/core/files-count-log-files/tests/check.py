"""Prints 1 when /app/log_count.txt holds the number of *.log files under /app/logs, which must still all be there, else 0."""

import hashlib
import sys
from pathlib import Path

TREE_SHA256 = "ac023f4e41e8fc567be37707e568b0447a6536a21f588c37241337ab484ae3c4"
COUNT_SHA256 = "8527a891e224136950ff32ca212b45bc93f69fbb801c3b1ebedac52775f99e61"

root = Path("/app/logs")
listing = "\n".join(sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())) if root.is_dir() else ""
tree_kept = hashlib.sha256(listing.encode()).hexdigest() == TREE_SHA256
if not tree_kept:
    print("the files under /app/logs were changed", file=sys.stderr)
answer = Path("/app/log_count.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = hashlib.sha256(found.encode()).hexdigest() == COUNT_SHA256
if not right:
    print(f"/app/log_count.txt holds {found!r}, not the number of .log files", file=sys.stderr)
print(1 if tree_kept and right else 0)
