"""Prints 1 when `bash /app/backup.sh` copies /app/data/notes.txt to notes.txt.bak (tried on the original notes and on changed notes), else 0."""

import hashlib
import subprocess
import sys
from pathlib import Path

NOTES_SHA256 = "b417266318d0d1c749712d7460c57640f2898e867913f303ad5534cd065ea517"
NEW_NOTES = "2024-10-01 pick up the parcel at the post office\n2024-10-02 pay the electricity bill\n"

notes = Path("/app/data/notes.txt")
backup = Path("/app/data/notes.txt.bak")


def backs_up(text: bytes) -> bool:
    """Writes text as the notes, removes any backup, runs the script and compares."""
    notes.write_bytes(text)
    backup.unlink(missing_ok=True)
    try:
        result = subprocess.run(["bash", "/app/backup.sh"], capture_output=True, text=True, timeout=20, cwd="/tmp")
    except subprocess.TimeoutExpired:
        print("backup.sh did not finish", file=sys.stderr)
        return False
    if result.returncode != 0:
        print(f"backup.sh exited with {result.returncode}: {result.stderr.strip()}", file=sys.stderr)
        return False
    if not notes.is_file() or notes.read_bytes() != text:
        print("after backup.sh, /app/data/notes.txt is gone or changed", file=sys.stderr)
        return False
    if not backup.is_file() or backup.read_bytes() != text:
        print("after backup.sh, /app/data/notes.txt.bak is missing or not a copy of the notes", file=sys.stderr)
        return False
    return True


def main() -> int:
    if not notes.is_file() or hashlib.sha256(notes.read_bytes()).hexdigest() != NOTES_SHA256:
        print("/app/data/notes.txt was changed or removed", file=sys.stderr)
        return 0
    if not Path("/app/backup.sh").is_file():
        print("/app/backup.sh does not exist", file=sys.stderr)
        return 0
    original = notes.read_bytes()
    try:
        return 1 if backs_up(original) and backs_up(NEW_NOTES.encode()) else 0
    finally:
        notes.write_bytes(original)


print(main())
