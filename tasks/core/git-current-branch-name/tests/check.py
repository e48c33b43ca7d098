"""Prints 1 when /app/branch.txt holds the name of the branch checked out in /app/repo, which is still checked out; else 0."""

import hashlib
import subprocess
import sys
from pathlib import Path

BRANCH_SHA256 = "409eaf28e373dc26d1f70588d0cf17432874c0465ba79bc2b8f1b310ab12a5e2"


def checked_out() -> str:
    result = subprocess.run(["git", "-C", "/app/repo", "symbolic-ref", "--short", "-q", "HEAD"], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else ""


def main() -> int:
    current = checked_out()
    if hashlib.sha256(current.encode()).hexdigest() != BRANCH_SHA256:
        print(f"the branch checked out in /app/repo is now {current!r}: it was switched", file=sys.stderr)
        return 0
    answer = Path("/app/branch.txt")
    found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
    if found != current:
        print(f"/app/branch.txt holds {found!r}, not the name of the checked-out branch", file=sys.stderr)
        return 0
    return 1


print(main())
