"""Prints 1 when /app/emails.txt lists the email of every user of the unchanged /app/users.json, in file order, else 0."""

import hashlib
import json
import sys
from pathlib import Path

USERS_SHA256 = "08e64b7ea0f9125d713dc196832a2fc376863bfdcfcf7b4153a88c1e6d1ab845"

source = Path("/app/users.json")
kept = source.is_file() and hashlib.sha256(source.read_bytes()).hexdigest() == USERS_SHA256
if not kept:
    print("/app/users.json was changed or removed", file=sys.stderr)
expected = [user["email"] for user in json.loads(source.read_text())["users"]] if kept else None
answer = Path("/app/emails.txt")
found = [line.strip() for line in answer.read_text(errors="replace").strip().splitlines()] if answer.is_file() else []
right = found == expected
if not right:
    print(f"/app/emails.txt holds {found!r}, expected {expected!r}", file=sys.stderr)
print(1 if kept and right else 0)
