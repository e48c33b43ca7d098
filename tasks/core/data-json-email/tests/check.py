"""Prints 1 when /app/email.txt holds the email address of the unchanged /app/user.json, else 0."""

import hashlib
import json
import sys
from pathlib import Path

USER_SHA256 = "0f4f4d00f7392c8283884600d2a2ed2ce2e31486548cc7227e4126a8be71a644"

source = Path("/app/user.json")
kept = source.is_file() and hashlib.sha256(source.read_bytes()).hexdigest() == USER_SHA256
if not kept:
    print("/app/user.json was changed or removed", file=sys.stderr)
expected = json.loads(source.read_text())["email"] if kept else None
answer = Path("/app/email.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = found == expected
if kept and not right:
    print(f"/app/email.txt holds {found!r}, not the user's email address", file=sys.stderr)
print(1 if kept and right else 0)
