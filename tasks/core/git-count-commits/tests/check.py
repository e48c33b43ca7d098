"""Prints 1 when /app/commit_count.txt holds the number of commits of the checked-out branch of the unchanged /app/repo, else 0."""

import subprocess
import sys
from pathlib import Path

SUBJECTS = [
    "Invite contributions",
    "Add carrot cake",
    "Explain the grouping",
    "Add focaccia",
    "Add rye bread",
    "Add pea soup",
    "Add lemon drizzle",
    "Add apple cake",
    "Add lentil soup",
    "Add tomato soup",
    "Describe the project",
    "Start the recipe box",
]


def history() -> list[str]:
    result = subprocess.run(["git", "-C", "/app/repo", "log", "--format=%s", "HEAD"], capture_output=True, text=True)
    return result.stdout.splitlines() if result.returncode == 0 else []


def main() -> int:
    if history() != SUBJECTS:
        print("the history of /app/repo was changed", file=sys.stderr)
        return 0
    answer = Path("/app/commit_count.txt")
    found = answer.read_text(errors="replace").strip() if answer.is_file() else ""
    if found != str(len(SUBJECTS)):
        print(f"/app/commit_count.txt holds {found!r}, not the number of commits", file=sys.stderr)
        return 0
    return 1


print(main())
