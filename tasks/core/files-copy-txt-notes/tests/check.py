"""Prints 1 when /app/notes holds exactly copies of the .txt files of /app/inbox, and /app/inbox is unchanged, else 0."""

import hashlib
import sys
from pathlib import Path

INBOX_SHA256 = "93d0ce286f929e6f51e898f8c6e117571811e2c2d50209de0c402ff6d001b2d1"


def contents(folder: Path) -> dict[str, bytes]:
    """The entries of folder by name, with the bytes of regular files (None for anything else)."""
    if not folder.is_dir():
        return {}
    return {p.name: (p.read_bytes() if p.is_file() and not p.is_symlink() else None) for p in folder.iterdir()}


def digest(entries: dict[str, bytes]) -> str:
    rows = sorted(f"{name}\t{hashlib.sha256(data).hexdigest() if data is not None else 'not a file'}"
                  for name, data in entries.items())
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


inbox = contents(Path("/app/inbox"))
kept = digest(inbox) == INBOX_SHA256
if not kept:
    print("/app/inbox was changed", file=sys.stderr)
expected = {name: data for name, data in inbox.items() if name.endswith(".txt")}
notes = contents(Path("/app/notes"))
right = kept and notes == expected
if kept and not right:
    print(f"/app/notes holds {sorted(notes)}, expected copies of {sorted(expected)}", file=sys.stderr)
print(1 if right else 0)
