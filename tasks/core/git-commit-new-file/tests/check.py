"""Prints 1 when the newest commit of /app/notes adds only todo.md, with the message "Add todo list", on top of the old history; else 0."""

import subprocess
import sys
from pathlib import Path

REPO = Path("/app/notes")
TODO = "# TODO\n\n- [ ] renew the TLS certificate\n- [ ] book the team offsite\n- [x] send the May invoice\n"
README = "# Notes\n\nPersonal notes and plans.\n\nSee meetings/ for the weekly syncs.\n"
OLD_SUBJECTS = ["Notes of the 2024-05-13 sync", "Start notes"]


def git(*args: str) -> str:
    result = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout


def problems() -> list[str]:
    found = []
    message = git("log", "-1", "--format=%B", "HEAD").strip()
    if message != "Add todo list":
        found.append(f"the newest commit's message is {message!r}")
    subjects = git("log", "--format=%s", "HEAD~1").splitlines()
    if subjects != OLD_SUBJECTS:
        found.append(f"the history before the new commit is {subjects}, not {OLD_SUBJECTS}")
    changed = git("diff-tree", "--no-commit-id", "--name-status", "-r", "HEAD~1", "HEAD").split("\n")
    changed = [line.split() for line in changed if line.strip()]
    if changed != [["A", "todo.md"]]:
        found.append(f"the new commit changes {changed}, not only adds todo.md")
    if git("show", "HEAD:todo.md") != TODO:
        found.append("the committed todo.md is not the file that was written")
    readme = REPO / "README.md"
    if not readme.is_file() or readme.read_text() != README:
        found.append("the uncommitted edit of README.md was lost")
    if git("show", "HEAD:README.md") == README:
        found.append("the edit of README.md was committed")
    return found


try:
    issues = problems()
except (RuntimeError, OSError) as e:
    issues = [str(e)]
for issue in issues:
    print(issue, file=sys.stderr)
print(0 if issues else 1)
