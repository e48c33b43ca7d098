"""Prints 1 when /app/active_users.txt holds the number of active users and the users table is unchanged, else 0."""

import hashlib
import sqlite3
import sys
from pathlib import Path

USERS_SHA256 = "d11eae5c1dce1613727096cec2d64be143ca145426387449f098c6f052df4f75"
COUNT_SHA256 = "ad48ff99415b2f007dc35b7eb553fd1eb35ebfa2f2f308acd9488eeb86f71fa8"


def users_digest() -> str:
    if not Path("/app/app.db").is_file():
        return ""
    try:
        db = sqlite3.connect("file:/app/app.db?mode=ro", uri=True)
        rows = db.execute("SELECT * FROM users ORDER BY id").fetchall()
    except sqlite3.Error as e:
        print(f"cannot read the users table: {e}", file=sys.stderr)
        return ""
    return hashlib.sha256(repr(rows).encode()).hexdigest()


users_kept = users_digest() == USERS_SHA256
if not users_kept:
    print("the users table of /app/app.db was changed or removed", file=sys.stderr)
answer = Path("/app/active_users.txt")
found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
right = hashlib.sha256(found.encode()).hexdigest() == COUNT_SHA256
if not right:
    print(f"/app/active_users.txt holds {found!r}, not the number of active users", file=sys.stderr)
print(1 if users_kept and right else 0)
